---------------------------- MODULE spin ----------------------------
(* Attack (docs/decisions/0037-events-are-steps-of-next.md): the reference's actions, guards and
   all, under a Next that lets only thread "0" lock and release (every thread may still start
   spinning). Taken by its action operator alone, every window of threads "1" and "2" passed and
   the spec scored 1.0, though no behaviour of Spec ever lets them hold the lock. *)
EXTENDS TLC, FiniteSets

CONSTANT Threads

VARIABLES lockState, pc, callType

vars == <<lockState, pc, callType>>

TypeOK ==
  /\ lockState \in {"unlocked", "locked"}
  /\ pc \in [Threads -> {"idle", "acquiring", "locked"}]
  /\ callType \in [Threads -> {"none", "lock", "try_lock"}]

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]

\* lock() entered: the thread spins on the CAS until it succeeds (trace event TryAcquireBlocking).
StartLock(t) ==
  /\ pc[t] = "idle"
  /\ pc' = [pc EXCEPT ![t] = "acquiring"]
  /\ callType' = [callType EXCEPT ![t] = "lock"]
  /\ UNCHANGED lockState

\* The CAS succeeds (trace event AcquireSuccess): a spinning lock(), or a first attempt from
\* idle, which is either try_lock() or an uncontended lock(); the traces do not say which.
AcquireLock(t) ==
  /\ lockState = "unlocked"
  /\ pc[t] \in {"idle", "acquiring"}
  /\ lockState' = "locked"
  /\ pc' = [pc EXCEPT ![t] = "locked"]
  /\ IF pc[t] = "acquiring"
       THEN UNCHANGED callType
       ELSE \E c \in {"lock", "try_lock"} : callType' = [callType EXCEPT ![t] = c]

\* A failing try_lock() leaves every variable as it was, so it is a stuttering step here.

ReleaseLock(t) ==
  /\ pc[t] = "locked"
  /\ lockState' = "unlocked"
  /\ pc' = [pc EXCEPT ![t] = "idle"]
  /\ callType' = [callType EXCEPT ![t] = "none"]

Next == \E t \in Threads : StartLock(t) \/ (t = "0" /\ (AcquireLock(t) \/ ReleaseLock(t)))

Spec == Init /\ [][Next]_vars /\ \A t \in Threads : WF_vars(ReleaseLock(t))
=============================================================================
