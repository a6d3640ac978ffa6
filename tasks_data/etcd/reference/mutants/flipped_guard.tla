---------------------------- MODULE etcdraft ----------------------------
(* MUTANT of the etcd reference spec (test fixture).
   Flipped guard: HandleVoteRequest grants a vote only when the candidate's log is NOT up to date.
   Should fail the HandleVoteRequest windows where the voter is free to vote; the trace is left
   there, so no window of another action fails. *)
EXTENDS Naturals, FiniteSets, Sequences, TLC

CONSTANTS Server, MaxTerm, MaxLogLen

VARIABLES currentTerm, state, votedFor, commitIndex, logLen, logLastTerm

vars == <<currentTerm, state, votedFor, commitIndex, logLen, logLastTerm>>

Follower == "StateFollower"
Candidate == "StateCandidate"
Leader == "StateLeader"
None == "None"

Max(a, b) == IF a >= b THEN a ELSE b
Min(a, b) == IF a <= b THEN a ELSE b
Quorum == {Q \in SUBSET Server : 2 * Cardinality(Q) > Cardinality(Server)}

TypeOK ==
  /\ currentTerm \in [Server -> 0..MaxTerm]
  /\ state \in [Server -> {Follower, "StatePreCandidate", Candidate, Leader}]
  /\ votedFor \in [Server -> Server \cup {None}]
  /\ commitIndex \in [Server -> Nat]
  /\ logLen \in [Server -> Nat]
  /\ logLastTerm \in [Server -> 0..MaxTerm]

Init ==
  /\ currentTerm = [i \in Server |-> 0]
  /\ state = [i \in Server |-> Follower]
  /\ votedFor = [i \in Server |-> None]
  /\ commitIndex = [i \in Server |-> 0]
  /\ logLen = [i \in Server |-> 0]
  /\ logLastTerm = [i \in Server |-> 0]

\* A message from a newer term turns the receiver into a follower of that term with no vote.
TermAfter(i, m) == Max(currentTerm[i], m.term)
VoteAfter(i, m) == IF m.term > currentTerm[i] THEN None ELSE votedFor[i]

\* tickElection -> campaign (pre-vote off): a new term, voting for itself.
ElectionTimeout(i) ==
  /\ state[i] \in {Follower, Candidate}
  /\ currentTerm' = [currentTerm EXCEPT ![i] = @ + 1]
  /\ state' = [state EXCEPT ![i] = Candidate]
  /\ votedFor' = [votedFor EXCEPT ![i] = i]
  /\ UNCHANGED <<commitIndex, logLen, logLastTerm>>

\* Step(MsgVote): a request of an older term is dropped (raft.Step ignores it, as upstream's
\* spec drops stale messages); otherwise grant when the receiver may vote for the sender and its
\* log is up to date.
HandleVoteRequest(i, m) ==
  /\ m.type = "MsgVote"
  /\ m.to = i
  /\ m.from # i
  /\ IF m.term < currentTerm[i]
       THEN UNCHANGED vars
       ELSE /\ LET vote == VoteAfter(i, m)
                   upToDate == \/ m.logTerm > logLastTerm[i]
                               \/ m.logTerm = logLastTerm[i] /\ m.logIndex >= logLen[i]
                   grant == (vote = None \/ vote = m.from) /\ ~upToDate
               IN /\ currentTerm' = [currentTerm EXCEPT ![i] = m.term]
                  /\ state' = [state EXCEPT ![i] = IF m.term > currentTerm[i] THEN Follower ELSE @]
                  /\ votedFor' = [votedFor EXCEPT ![i] = IF grant THEN m.from ELSE vote]
            /\ UNCHANGED <<commitIndex, logLen, logLastTerm>>

\* A candidate with a quorum of votes in its term becomes leader. Its empty entry is appended
\* after, as a proposal of its own: etcd logs BecomeLeader with the log unchanged and the append
\* as the Replicate event that follows (the contract's ClientProposal).
BecomeLeader(i) ==
  /\ state[i] = Candidate
  /\ \E Q \in Quorum : \A j \in Q : currentTerm[j] = currentTerm[i] /\ votedFor[j] = i
  /\ state' = [state EXCEPT ![i] = Leader]
  /\ UNCHANGED <<currentTerm, votedFor, commitIndex, logLen, logLastTerm>>

\* Step(MsgProp) on the leader: one entry of its term is appended.
ClientProposal(i) ==
  /\ state[i] = Leader
  /\ logLen' = [logLen EXCEPT ![i] = @ + 1]
  /\ logLastTerm' = [logLastTerm EXCEPT ![i] = currentTerm[i]]
  /\ UNCHANGED <<currentTerm, state, votedFor, commitIndex>>

\* handleAppendEntries: reject a stale term, a gap or a mismatching last term; otherwise append.
\* With logs abstracted, an overlap inside the log either matches (no change) or conflicts
\* (truncate to the message's last entry, never below the commit index).
HandleAppendEntries(i, m) ==
  /\ m.type = "MsgApp"
  /\ m.to = i
  /\ m.from # i
  /\ IF m.term < currentTerm[i]
       THEN UNCHANGED vars
       ELSE
         /\ currentTerm' = [currentTerm EXCEPT ![i] = m.term]
         /\ state' = [state EXCEPT ![i] = Follower]
         /\ votedFor' = [votedFor EXCEPT ![i] = VoteAfter(i, m)]
         /\ LET n == Len(m.entries)
                lastNew == m.prevLogIndex + n
                lastTerm == IF n = 0 THEN m.prevLogTerm ELSE m.entries[n].term
                matches == \/ m.prevLogIndex < logLen[i]
                           \/ m.prevLogIndex = logLen[i] /\ m.prevLogTerm = logLastTerm[i]
            IN IF m.prevLogIndex < commitIndex[i] \/ ~matches
                 THEN UNCHANGED <<commitIndex, logLen, logLastTerm>>
                 ELSE /\ \/ /\ lastNew > logLen[i]
                             /\ logLen' = [logLen EXCEPT ![i] = lastNew]
                             /\ logLastTerm' = [logLastTerm EXCEPT ![i] = lastTerm]
                          \/ /\ lastNew <= logLen[i]
                             /\ UNCHANGED <<logLen, logLastTerm>>
                          \/ /\ lastNew <= logLen[i]
                             /\ n > 0
                             /\ lastNew > commitIndex[i]
                             /\ logLen' = [logLen EXCEPT ![i] = lastNew]
                             /\ logLastTerm' = [logLastTerm EXCEPT ![i] = lastTerm]
                      /\ commitIndex' = [commitIndex EXCEPT ![i] =
                                           Max(@, Min(m.commitIndex, lastNew))]

\* handleHeartbeat: adopt the leader's term and advance the commit index it carries.
HandleHeartbeat(i, m) ==
  /\ m.type = "MsgHeartbeat"
  /\ m.to = i
  /\ m.from # i
  /\ IF m.term < currentTerm[i]
       THEN UNCHANGED vars
       ELSE /\ currentTerm' = [currentTerm EXCEPT ![i] = m.term]
            /\ state' = [state EXCEPT ![i] = Follower]
            /\ votedFor' = [votedFor EXCEPT ![i] = VoteAfter(i, m)]
            /\ commitIndex' = [commitIndex EXCEPT ![i] = Max(@, Min(m.commitIndex, logLen[i]))]
            /\ UNCHANGED <<logLen, logLastTerm>>

\* The leader commits an entry of its own term once a quorum holds a log that long in that term.
AdvanceCommitIndex(i) ==
  /\ state[i] = Leader
  /\ logLastTerm[i] = currentTerm[i]
  /\ \E c \in (commitIndex[i] + 1)..logLen[i] :
       /\ \E Q \in Quorum : \A j \in Q : logLen[j] >= c /\ logLastTerm[j] = currentTerm[i]
       /\ commitIndex' = [commitIndex EXCEPT ![i] = c]
  /\ UNCHANGED <<currentTerm, state, votedFor, logLen, logLastTerm>>

\* CheckQuorum: a leader that has not heard from a quorum steps down, in its own term (the
\* check_quorum scenario shows it; the step is logged as BecomeFollower, no target action).
StepDown(i) ==
  /\ state[i] = Leader
  /\ state' = [state EXCEPT ![i] = Follower]
  /\ UNCHANGED <<currentTerm, votedFor, commitIndex, logLen, logLastTerm>>

\* What Next lets a candidate or leader send (the handlers accept any message).
VoteMsg(c, i) ==
  [type |-> "MsgVote", from |-> c, to |-> i, term |-> currentTerm[c],
   logIndex |-> logLen[c], logTerm |-> logLastTerm[c]]

AppMsg(l, i) ==
  [type |-> "MsgApp", from |-> l, to |-> i, term |-> currentTerm[l],
   prevLogIndex |-> logLen[i], prevLogTerm |-> logLastTerm[i],
   entries |-> [k \in 1..(logLen[l] - logLen[i]) |-> [term |-> logLastTerm[l]]],
   commitIndex |-> commitIndex[l]]

HeartbeatMsg(l, i) ==
  [type |-> "MsgHeartbeat", from |-> l, to |-> i, term |-> currentTerm[l],
   commitIndex |-> Min(commitIndex[l], logLen[i])]

\* The bounds live here, not in the actions: real windows go beyond them (logs of 11 entries),
\* and only model checking needs a finite state space.
Next ==
  \/ \E i \in Server : currentTerm[i] < MaxTerm /\ ElectionTimeout(i)
  \/ \E i \in Server : BecomeLeader(i)
  \/ \E i \in Server : logLen[i] < MaxLogLen /\ ClientProposal(i)
  \/ \E i \in Server : AdvanceCommitIndex(i)
  \/ \E i \in Server : StepDown(i)
  \/ \E c, i \in Server : state[c] = Candidate /\ i # c /\ HandleVoteRequest(i, VoteMsg(c, i))
  \/ \E l, i \in Server :
       /\ state[l] = Leader /\ i # l
       /\ logLen[i] < logLen[l]
       /\ logLastTerm[i] <= logLastTerm[l]
       /\ HandleAppendEntries(i, AppMsg(l, i))
  \/ \E l, i \in Server : state[l] = Leader /\ i # l /\ HandleHeartbeat(i, HeartbeatMsg(l, i))

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
=============================================================================
