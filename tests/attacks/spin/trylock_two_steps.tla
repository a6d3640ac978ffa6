---------------------------- MODULE spin ----------------------------
(* A careful model with one modelling error: taking the lock is two steps, idle -> trying ->
   locked, where the system takes it in one CAS (a try_lock, or an uncontended lock()). *)
EXTENDS TLC

CONSTANT Threads

VARIABLES lockState, pc, callType

vars == <<lockState, pc, callType>>

TypeOK ==
  /\ lockState \in {"unlocked", "locked"}
  /\ pc \in [Threads -> {"idle", "trying", "acquiring", "locked"}]
  /\ callType \in [Threads -> {"none", "lock", "try_lock"}]

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]

StartLock(t) ==
  /\ pc[t] = "idle"
  /\ pc' = [pc EXCEPT ![t] = "acquiring"]
  /\ callType' = [callType EXCEPT ![t] = "lock"]
  /\ UNCHANGED lockState

StartTry(t) ==
  /\ pc[t] = "idle"
  /\ pc' = [pc EXCEPT ![t] = "trying"]
  /\ callType' = [callType EXCEPT ![t] = "try_lock"]
  /\ UNCHANGED lockState

AcquireLock(t) ==
  /\ lockState = "unlocked"
  /\ pc[t] \in {"trying", "acquiring"}
  /\ lockState' = "locked"
  /\ pc' = [pc EXCEPT ![t] = "locked"]
  /\ UNCHANGED callType

TryFail(t) ==
  /\ pc[t] = "trying"
  /\ lockState = "locked"
  /\ pc' = [pc EXCEPT ![t] = "idle"]
  /\ callType' = [callType EXCEPT ![t] = "none"]
  /\ UNCHANGED lockState

ReleaseLock(t) ==
  /\ pc[t] = "locked"
  /\ lockState' = "unlocked"
  /\ pc' = [pc EXCEPT ![t] = "idle"]
  /\ callType' = [callType EXCEPT ![t] = "none"]

Next == \E t \in Threads :
  StartLock(t) \/ StartTry(t) \/ AcquireLock(t) \/ TryFail(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars /\ \A t \in Threads : WF_vars(ReleaseLock(t))
=============================================================================
