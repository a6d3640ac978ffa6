---------------------------- MODULE spin ----------------------------
(* Attack (docs/decisions/0015-safety-negatives.md): no guards (a held lock can be taken again) and
a Next where only
   thread "0" acts, so P4's bounded region never has two holders. callType is the adapter's
   (no_guards_one_actor.adapter.yaml), so every window gives every spec variable. *)
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

Next == \E t \in {"0"} : Ask(t) \/ AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars
=============================================================================
