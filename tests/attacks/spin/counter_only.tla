---------------------------- MODULE spin ----------------------------
(* Attack: the only behaviour is a two-state counter; nothing the contract observes moves. *)
EXTENDS TLC, Naturals

CONSTANT Threads

VARIABLES lockState, pc, callType, n

vars == <<lockState, pc, callType, n>>

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]
  /\ n = 0

AcquireLock(t) == n' = 1 - n /\ UNCHANGED <<lockState, pc, callType>>

ReleaseLock(t) == n' = 1 - n /\ UNCHANGED <<lockState, pc, callType>>

Next == \E t \in Threads : AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
=============================================================================
