---------------------------- MODULE spin ----------------------------
(* Attack (docs/decisions/0012-held-out-traces.md): a script. Thread "0" asks for the lock, takes
it, and nothing moves
   again: P3's windows of the other threads have no pre-state in this spec (undecided), yet
   its invariants hold of the three states it has. *)
EXTENDS TLC, Naturals

CONSTANT Threads

VARIABLES lockState, pc, callType, step

vars == <<lockState, pc, callType, step>>

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]
  /\ step = 0

Ask(t) ==
  /\ step = 0 /\ t = "0"
  /\ pc' = [pc EXCEPT ![t] = "acquiring"]
  /\ callType' = [callType EXCEPT ![t] = "lock"]
  /\ step' = 1
  /\ UNCHANGED lockState

AcquireLock(t) ==
  /\ step = 1 /\ t = "0"
  /\ lockState' = "locked"
  /\ pc' = [pc EXCEPT ![t] = "locked"]
  /\ step' = 2
  /\ UNCHANGED callType

ReleaseLock(t) == FALSE /\ UNCHANGED vars

Next == \E t \in Threads : Ask(t) \/ AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars
=============================================================================
