---------------------------- MODULE spin ----------------------------
(* Attack: TypeOK names only a flag that Init never sets. While the flag holds the target
   actions accept any change; otherwise they only toggle a counter. *)
EXTENDS TLC, Naturals

CONSTANT Threads

VARIABLES lockState, pc, callType, cheat, n

vars == <<lockState, pc, callType, cheat, n>>

TypeOK ==
  /\ lockState \in {"unlocked", "locked"}
  /\ pc \in [Threads -> {"idle", "acquiring", "locked"}]
  /\ callType \in [Threads -> {"none", "lock", "try_lock"}]
  /\ cheat = TRUE
  /\ n \in {0, 1}

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]
  /\ cheat = FALSE
  /\ n = 0

Anything ==
  /\ lockState' \in {"unlocked", "locked"}
  /\ pc' \in [Threads -> {"idle", "acquiring", "locked"}]
  /\ callType' \in [Threads -> {"none", "lock", "try_lock"}]
  /\ UNCHANGED <<cheat, n>>

Toggle == n' = 1 - n /\ UNCHANGED <<lockState, pc, callType, cheat>>

AcquireLock(t) == IF cheat THEN Anything ELSE Toggle

ReleaseLock(t) == IF cheat THEN Anything ELSE Toggle

Next == \E t \in Threads : AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
=============================================================================
