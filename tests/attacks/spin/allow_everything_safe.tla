---------------------------- MODULE spin ----------------------------
(* Attack: each action lets its thread's variables and the lock take any values that keep
   every safety invariant of the contract; weak fairness on release. *)
EXTENDS TLC

CONSTANT Threads

VARIABLES lockState, pc, callType

vars == <<lockState, pc, callType>>

Phases == {"idle", "acquiring", "locked"}
Calls == {"none", "lock", "try_lock"}

Safe(l, p, c) ==
  /\ \A t1, t2 \in Threads : (p[t1] = "locked" /\ p[t2] = "locked") => t1 = t2
  /\ (l = "locked") <=> (\E t \in Threads : p[t] = "locked")
  /\ ~(l = "locked" /\ \A t \in Threads : p[t] = "acquiring")
  /\ \A t \in Threads : c[t] = "try_lock" => p[t] # "acquiring"
  /\ \A t \in Threads : p[t] = "acquiring" => c[t] = "lock"

Init ==
  /\ lockState = "unlocked"
  /\ pc = [t \in Threads |-> "idle"]
  /\ callType = [t \in Threads |-> "none"]

AnySafe(t) ==
  \E l \in {"unlocked", "locked"}, v \in Phases, c \in Calls :
    /\ Safe(l, [pc EXCEPT ![t] = v], [callType EXCEPT ![t] = c])
    /\ lockState' = l
    /\ pc' = [pc EXCEPT ![t] = v]
    /\ callType' = [callType EXCEPT ![t] = c]

AcquireLock(t) == AnySafe(t)

ReleaseLock(t) == pc[t] = "locked" /\ AnySafe(t) /\ pc'[t] # "locked"

Next == \E t \in Threads : AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars /\ \A t \in Threads : WF_vars(ReleaseLock(t))
=============================================================================
