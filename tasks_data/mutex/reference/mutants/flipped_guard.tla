---------------------------- MODULE mutex ----------------------------
(* MUTANT flipped_guard of the mutex reference spec: lock() takes the lock only when it is already held (fails every AcquireLock window).
   Reference spec for the mutex contract (a test fixture, not a leaderboard entry). Follows the
   contract's names, so it is scored with the identity adapter. Models Asterinas OSTD Mutex:
   lock() = WaitQueue::wait_until(try_lock); release clears the lock word and wakes the queue head. *)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANT Threads

VARIABLES lockState, pc, callType, guard, waitQueue

vars == <<lockState, pc, callType, guard, waitQueue>>

Phases == {"idle", "acquiring", "waiting", "locked"}
CallTypes == {"none", "lock", "try_lock"}

Range(q) == {q[i] : i \in DOMAIN q}

\* The queue orders exactly the sleeping threads (each once).
QueuesOf(S) == {q \in [1..Cardinality(S) -> S] : Range(q) = S}

CallOK(t) ==
  CASE pc[t] = "idle" -> callType[t] = "none"
    [] pc[t] \in {"acquiring", "waiting"} -> callType[t] = "lock"
    [] OTHER -> callType[t] \in {"lock", "try_lock"}

\* Written so that TLC can enumerate it (the conformance phase draws unobserved state from it).
TypeOK ==
  /\ lockState \in {"unlocked", "locked"}
  /\ pc \in [Threads -> Phases]
  /\ callType \in [Threads -> CallTypes]
  /\ guard = [t \in Threads |-> pc[t] = "locked"]
  /\ waitQueue \in QueuesOf({t \in Threads : pc[t] = "waiting"})
  /\ \A t \in Threads : CallOK(t)

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]
  /\ guard = [t \in Threads |-> FALSE]
  /\ waitQueue = <<>>

\* lock() entered: the thread is about to try the compare-and-swap.
StartLock(t) ==
  /\ pc[t] = "idle"
  /\ pc' = [pc EXCEPT ![t] = "acquiring"]
  /\ callType' = [callType EXCEPT ![t] = "lock"]
  /\ UNCHANGED <<lockState, guard, waitQueue>>

\* The compare-and-swap inside lock() succeeds (on entry or after a wake-up).
AcquireLock(t) ==
  /\ pc[t] = "acquiring"
  /\ lockState = "locked"
  /\ lockState' = "locked"
  /\ pc' = [pc EXCEPT ![t] = "locked"]
  /\ guard' = [guard EXCEPT ![t] = TRUE]
  /\ UNCHANGED <<callType, waitQueue>>

\* It fails: the thread enqueues itself and sleeps (the re-check after enqueueing is part of it).
Sleep(t) ==
  /\ pc[t] = "acquiring"
  /\ lockState = "locked"
  /\ pc' = [pc EXCEPT ![t] = "waiting"]
  /\ waitQueue' = Append(waitQueue, t)
  /\ UNCHANGED <<lockState, callType, guard>>

\* One try_lock(): takes the lock if free, otherwise returns and changes nothing.
TryAcquireLock(t) ==
  /\ pc[t] = "idle"
  /\ IF lockState = "unlocked"
       THEN /\ lockState' = "locked"
            /\ pc' = [pc EXCEPT ![t] = "locked"]
            /\ callType' = [callType EXCEPT ![t] = "try_lock"]
            /\ guard' = [guard EXCEPT ![t] = TRUE]
            /\ UNCHANGED waitQueue
       ELSE UNCHANGED vars

\* The guard is dropped: the lock word is cleared and wake_one() wakes the queue head.
ReleaseLock(t) ==
  /\ pc[t] = "locked"
  /\ lockState' = "unlocked"
  /\ guard' = [guard EXCEPT ![t] = FALSE]
  /\ callType' = [callType EXCEPT ![t] = "none"]
  /\ IF waitQueue = <<>>
       THEN /\ pc' = [pc EXCEPT ![t] = "idle"]
            /\ UNCHANGED waitQueue
       ELSE /\ pc' = [pc EXCEPT ![t] = "idle", ![Head(waitQueue)] = "acquiring"]
            /\ waitQueue' = Tail(waitQueue)

Next ==
  \E t \in Threads :
    StartLock(t) \/ AcquireLock(t) \/ Sleep(t) \/ TryAcquireLock(t) \/ ReleaseLock(t)

Spec ==
  /\ Init /\ [][Next]_vars
  /\ \A t \in Threads : WF_vars(ReleaseLock(t)) /\ WF_vars(Sleep(t)) /\ SF_vars(AcquireLock(t))
=============================================================================
