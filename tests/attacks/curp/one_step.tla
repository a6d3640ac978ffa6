---------------------------- MODULE curp ----------------------------
(* Attack (docs/decisions/0012-held-out-traces.md): a task without traces. One action proposes and
commits a command at
   once; every invariant over the log holds, and no P3 exists to say this is not CURP. *)
EXTENDS TLC, Sequences, FiniteSets

CONSTANTS Replicas, Commands

VARIABLES leader, proposedCmds, specPools, uncommittedCmds, committedCmds, commitMsgs

vars == <<leader, proposedCmds, specPools, uncommittedCmds, committedCmds, commitMsgs>>

Init ==
  /\ leader = CHOOSE r \in Replicas : TRUE
  /\ proposedCmds = {}
  /\ specPools = [r \in Replicas |-> {}]
  /\ uncommittedCmds = <<>>
  /\ committedCmds = <<>>
  /\ commitMsgs = [r \in Replicas |-> {}]

Propose(cmd) ==
  /\ cmd \notin proposedCmds
  /\ proposedCmds' = proposedCmds \cup {cmd}
  /\ committedCmds' = Append(committedCmds, cmd)
  /\ UNCHANGED <<leader, specPools, uncommittedCmds, commitMsgs>>

ProcessProposeLeader(r, cmd) == FALSE /\ UNCHANGED vars
ProcessProposeNonLeader(r, cmd) == FALSE /\ UNCHANGED vars
Commit == FALSE /\ UNCHANGED vars
ProcessCommitMsg(r, cmd) == FALSE /\ UNCHANGED vars
LeaderChange(l) == FALSE /\ UNCHANGED vars

Next == \E cmd \in Commands : Propose(cmd)

Spec == Init /\ [][Next]_vars
=============================================================================
