---------------------------- MODULE spin ----------------------------
(* Attack: threads wander between "idle" and "acquiring" and the lock is never taken. What
   the contract observes does move (P2 counts both actions), but no state where a thread holds
   the lock is ever reached, so every invariant about holding it holds vacuously. *)
EXTENDS TLC, Naturals

CONSTANT Threads

VARIABLES lockState, pc, callType

vars == <<lockState, pc, callType>>

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]

AcquireLock(t) ==
  /\ pc[t] = "idle"
  /\ pc' = [pc EXCEPT ![t] = "acquiring"]
  /\ callType' = [callType EXCEPT ![t] = "lock"]
  /\ UNCHANGED lockState

ReleaseLock(t) ==
  /\ pc[t] = "acquiring"
  /\ pc' = [pc EXCEPT ![t] = "idle"]
  /\ callType' = [callType EXCEPT ![t] = "none"]
  /\ UNCHANGED lockState

Next == \E t \in Threads : AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
=============================================================================
