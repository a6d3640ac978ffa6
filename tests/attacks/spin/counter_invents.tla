---------------------------- MODULE spin ----------------------------
(* Attack (docs/decisions/0012-held-out-traces.md): a counter; its adapter
(counter_invents.adapter.yaml) invents every
   observed value from it, so the spec's own state says nothing of a lock. *)
EXTENDS TLC, Naturals

CONSTANT Threads

VARIABLES n

vars == <<n>>

Init == n = 0

AcquireLock(t) == n < 5 /\ n' = n + 1

ReleaseLock(t) == n > 0 /\ n' = n - 1

Next == \E t \in Threads : AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars
=============================================================================
