---------------------------- MODULE spin ----------------------------
(* Attack: two modes chosen in Init and never changed. In strict mode the actions are the
   spinlock's; in lax mode they allow any change that keeps every safety invariant. Both modes
   are reachable, so every real window has a pre-state of each mode: strict passes the real
   windows and rejects every negative, lax passes the real windows too. A scorer that asked
   every credited pre-state to accept a negative window before counting it accepted would never
   count one. *)
EXTENDS TLC

CONSTANT Threads

VARIABLES lockState, pc, callType, lax

vars == <<lockState, pc, callType, lax>>

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
  /\ lax \in BOOLEAN

AnySafe(t) ==
  \E l \in {"unlocked", "locked"}, v \in Phases, c \in Calls :
    /\ Safe(l, [pc EXCEPT ![t] = v], [callType EXCEPT ![t] = c])
    /\ lockState' = l
    /\ pc' = [pc EXCEPT ![t] = v]
    /\ callType' = [callType EXCEPT ![t] = c]

StartLock(t) ==
  /\ ~lax
  /\ pc[t] = "idle"
  /\ pc' = [pc EXCEPT ![t] = "acquiring"]
  /\ callType' = [callType EXCEPT ![t] = "lock"]
  /\ UNCHANGED <<lockState, lax>>

AcquireLock(t) ==
  \/ /\ lax /\ AnySafe(t) /\ UNCHANGED lax
  \/ /\ ~lax
     /\ lockState = "unlocked"
     /\ pc[t] \in {"idle", "acquiring"}
     /\ lockState' = "locked"
     /\ pc' = [pc EXCEPT ![t] = "locked"]
     /\ IF pc[t] = "acquiring"
          THEN UNCHANGED callType
          ELSE \E c \in {"lock", "try_lock"} : callType' = [callType EXCEPT ![t] = c]
     /\ UNCHANGED lax

ReleaseLock(t) ==
  \/ /\ lax /\ pc[t] = "locked" /\ AnySafe(t) /\ pc'[t] # "locked" /\ UNCHANGED lax
  \/ /\ ~lax
     /\ pc[t] = "locked"
     /\ lockState' = "unlocked"
     /\ pc' = [pc EXCEPT ![t] = "idle"]
     /\ callType' = [callType EXCEPT ![t] = "none"]
     /\ UNCHANGED lax

Next == \E t \in Threads : StartLock(t) \/ AcquireLock(t) \/ ReleaseLock(t)

Spec == Init /\ [][Next]_vars /\ \A t \in Threads : WF_vars(ReleaseLock(t))
=============================================================================
