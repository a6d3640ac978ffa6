---------------------------- MODULE rwmutex ----------------------------
(* Reference spec for the rwmutex contract (a test fixture, not a leaderboard entry). Follows the
   contract's names, so it is scored with the identity adapter. Models Asterinas OSTD RwMutex: one
   lock word (WRITER, UPGRADEABLE_READER, BEING_UPGRADED bits and a reader count) and a wait queue.
   The queue is abstract: a thread waiting for a guard takes it once the lock word allows (every
   release wakes waiters that then retry), so waking order is not modelled. *)
EXTENDS Naturals, FiniteSets, TLC

CONSTANT Threads

VARIABLES lockWord, pc

vars == <<lockWord, pc>>

Phases ==
  {"idle", "wait_read", "wait_write", "wait_upread", "reading", "writing", "upread", "upgrading"}

Free == [writer |-> FALSE, upreader |-> FALSE, beingUpgraded |-> FALSE, readers |-> 0]

Readers == Cardinality({t \in Threads : pc[t] = "reading"})

\* Written so that TLC can enumerate it (the conformance phase draws unobserved state from it).
TypeOK ==
  /\ lockWord \in [writer: BOOLEAN, upreader: BOOLEAN, beingUpgraded: BOOLEAN,
                   readers: 0..Cardinality(Threads)]
  /\ pc \in [Threads -> Phases]

Init ==
  /\ lockWord = Free
  /\ pc = [t \in Threads |-> "idle"]

CanRead == ~lockWord.writer /\ ~lockWord.beingUpgraded
CanWrite == lockWord = Free
CanUpread == ~lockWord.writer /\ ~lockWord.upreader

\* read()/try_read() succeeds: from idle (first attempt) or after waiting.
AcquireReadLock(t) ==
  /\ pc[t] \in {"idle", "wait_read"}
  /\ CanRead
  /\ lockWord' = [lockWord EXCEPT !.readers = @ + 1]
  /\ pc' = [pc EXCEPT ![t] = "reading"]

AcquireWriteLock(t) ==
  /\ pc[t] \in {"idle", "wait_write"}
  /\ CanWrite
  /\ lockWord' = [lockWord EXCEPT !.writer = TRUE]
  /\ pc' = [pc EXCEPT ![t] = "writing"]

AcquireUpReadLock(t) ==
  /\ pc[t] \in {"idle", "wait_upread"}
  /\ CanUpread
  /\ lockWord' = [lockWord EXCEPT !.upreader = TRUE]
  /\ pc' = [pc EXCEPT ![t] = "upread"]

\* A blocking call whose attempt fails queues the thread (a failing try_* changes nothing).
Wait(t) ==
  /\ pc[t] = "idle"
  /\ \/ ~CanRead /\ pc' = [pc EXCEPT ![t] = "wait_read"]
     \/ ~CanWrite /\ pc' = [pc EXCEPT ![t] = "wait_write"]
     \/ ~CanUpread /\ pc' = [pc EXCEPT ![t] = "wait_upread"]
  /\ UNCHANGED lockWord

\* upgrade(): set BEING_UPGRADED (no new readers), then spin until the readers are gone.
StartUpgrade(t) ==
  /\ pc[t] = "upread"
  /\ lockWord' = [lockWord EXCEPT !.beingUpgraded = TRUE]
  /\ pc' = [pc EXCEPT ![t] = "upgrading"]

FinishUpgrade(t) ==
  /\ pc[t] = "upgrading"
  /\ lockWord.readers = 0
  /\ lockWord' = [lockWord EXCEPT !.writer = TRUE, !.upreader = FALSE, !.beingUpgraded = FALSE]
  /\ pc' = [pc EXCEPT ![t] = "writing"]

\* downgrade(): the writer becomes the upgradeable reader in one compare-and-swap.
Downgrade(t) ==
  /\ pc[t] = "writing"
  /\ lockWord' = [lockWord EXCEPT !.writer = FALSE, !.upreader = TRUE]
  /\ pc' = [pc EXCEPT ![t] = "upread"]

ReleaseLock(t) ==
  /\ pc[t] \in {"reading", "writing", "upread"}
  /\ lockWord' =
       CASE pc[t] = "reading" -> [lockWord EXCEPT !.readers = @ - 1]
         [] pc[t] = "writing" -> [lockWord EXCEPT !.writer = FALSE]
         [] OTHER -> [lockWord EXCEPT !.upreader = FALSE]
  /\ pc' = [pc EXCEPT ![t] = "idle"]

WakeAndAcquire(t) ==
  \/ pc[t] = "wait_read" /\ AcquireReadLock(t)
  \/ pc[t] = "wait_write" /\ AcquireWriteLock(t)
  \/ pc[t] = "wait_upread" /\ AcquireUpReadLock(t)

Next ==
  \E t \in Threads :
    \/ AcquireReadLock(t) \/ AcquireWriteLock(t) \/ AcquireUpReadLock(t) \/ Wait(t)
    \/ StartUpgrade(t) \/ FinishUpgrade(t) \/ Downgrade(t) \/ ReleaseLock(t)

Spec ==
  /\ Init /\ [][Next]_vars
  /\ \A t \in Threads : SF_vars(ReleaseLock(t)) /\ WF_vars(FinishUpgrade(t))
  \* A woken waiter takes a lock that stays free (the wait queue's wake-up never gets lost).
  /\ \A t \in Threads : WF_vars(WakeAndAcquire(t))
=============================================================================
