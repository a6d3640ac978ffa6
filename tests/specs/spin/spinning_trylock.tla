---------------------------- MODULE spin ----------------------------
(* An honest model of the spinlock written the way a model of the original benchmark wrote it:
   every lock attempt goes idle -> trying, a failed CAS spins (trying -> spinning -> trying)
   and a successful one takes the lock (trying -> locked). Its one deviation from the system:
   the system's try_lock (and an uncontended lock()) takes the lock in one CAS from idle. *)
EXTENDS TLC

CONSTANT Threads

VARIABLES lockState, pc, callType

vars == <<lockState, pc, callType>>

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]

Start(t) ==
  /\ pc[t] = "idle"
  /\ pc' = [pc EXCEPT ![t] = "trying"]
  /\ callType' = [callType EXCEPT ![t] = "lock"]
  /\ UNCHANGED lockState

\* The CAS fails while the lock is held: the thread spins, then tries again.
Spin(t) ==
  /\ pc[t] = "trying"
  /\ lockState = "locked"
  /\ pc' = [pc EXCEPT ![t] = "spinning"]
  /\ UNCHANGED <<lockState, callType>>

Retry(t) ==
  /\ pc[t] = "spinning"
  /\ pc' = [pc EXCEPT ![t] = "trying"]
  /\ UNCHANGED <<lockState, callType>>

AcquireLock(t) ==
  /\ pc[t] = "trying"
  /\ lockState = "unlocked"
  /\ lockState' = "locked"
  /\ pc' = [pc EXCEPT ![t] = "locked"]
  /\ UNCHANGED callType

ReleaseLock(t) ==
  /\ pc[t] = "locked"
  /\ lockState' = "unlocked"
  /\ pc' = [pc EXCEPT ![t] = "idle"]
  /\ callType' = [callType EXCEPT ![t] = "none"]

Next == \E t \in Threads :
  Start(t) \/ Spin(t) \/ Retry(t) \/ AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars /\ \A t \in Threads : WF_vars(ReleaseLock(t))
=============================================================================
