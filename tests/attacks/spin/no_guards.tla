---------------------------- MODULE spin ----------------------------
(* Attack (docs/decisions/0015-safety-negatives.md), first half: no guards (a held lock can be taken
again), every thread
   acting. Following the traces it explains every real event; only the safety negatives
   (a step taken where the system never takes it) tell it from the system. callType is the
   adapter's (no_guards.adapter.yaml), so every window gives every spec variable. *)
EXTENDS TLC

CONSTANT Threads

VARIABLES lockState, pc

vars == <<lockState, pc>>

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]

Ask(t) == pc' = [pc EXCEPT ![t] = "acquiring"] /\ UNCHANGED lockState

AcquireLock(t) == lockState' = "locked" /\ pc' = [pc EXCEPT ![t] = "locked"]

ReleaseLock(t) == lockState' = "unlocked" /\ pc' = [pc EXCEPT ![t] = "idle"]

Next == \E t \in Threads : Ask(t) \/ AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars
=============================================================================
