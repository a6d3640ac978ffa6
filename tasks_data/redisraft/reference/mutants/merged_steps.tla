---------------------------- MODULE redisraft ----------------------------
(* MUTANT of the redisraft reference spec (test fixture).
   Two steps merged into one atomic action: ElectionTimeout skips the pre-vote round and starts
   the real election at once (follower -> candidate, term + 1, own vote), as in Raft without
   pre-vote. Should fail all 4 ElectionTimeout windows (the traced step ends in precandidate with
   the term unchanged); BecomeCandidate is untouched and passes. *)
EXTENDS Naturals, FiniteSets, Sequences, TLC

CONSTANTS Server, MaxTerm, MaxLogLen

VARIABLES currentTerm, state, votedFor, commitIndex, logLen, logLastTerm

vars == <<currentTerm, state, votedFor, commitIndex, logLen, logLastTerm>>

Follower == "follower"
PreCandidate == "precandidate"
Candidate == "candidate"
Leader == "leader"
None == "None"

Max(a, b) == IF a >= b THEN a ELSE b
Min(a, b) == IF a <= b THEN a ELSE b
Quorum == {Q \in SUBSET Server : 2 * Cardinality(Q) > Cardinality(Server)}

TypeOK ==
  /\ currentTerm \in [Server -> Nat]
  /\ state \in [Server -> {Follower, PreCandidate, Candidate, Leader}]
  /\ votedFor \in [Server -> Server \cup {None}]
  /\ commitIndex \in [Server -> Nat]
  /\ logLen \in [Server -> Nat]
  /\ logLastTerm \in [Server -> Nat]

Init ==
  /\ currentTerm = [i \in Server |-> 0]
  /\ state = [i \in Server |-> Follower]
  /\ votedFor = [i \in Server |-> None]
  /\ commitIndex = [i \in Server |-> 0]
  /\ logLen = [i \in Server |-> 0]
  /\ logLastTerm = [i \in Server |-> 0]

VoteAfter(i, m) == IF m.term > currentTerm[i] THEN None ELSE votedFor[i]

\* raft_periodic -> raft_election_start: a non-leader whose timer fired starts the pre-vote round.
ElectionTimeout(i) ==
  /\ state[i] # Leader
  /\ currentTerm' = [currentTerm EXCEPT ![i] = @ + 1]
  /\ votedFor' = [votedFor EXCEPT ![i] = i]
  /\ state' = [state EXCEPT ![i] = Candidate]
  /\ UNCHANGED <<commitIndex, logLen, logLastTerm>>

\* raft_become_candidate, after the pre-vote succeeded: new term, vote for itself.
BecomeCandidate(i) ==
  /\ state[i] = PreCandidate
  /\ currentTerm' = [currentTerm EXCEPT ![i] = @ + 1]
  /\ votedFor' = [votedFor EXCEPT ![i] = i]
  /\ state' = [state EXCEPT ![i] = Candidate]
  /\ UNCHANGED <<commitIndex, logLen, logLastTerm>>

\* raft_become_leader: a majority voted for i in its term; it appends a no-op entry.
BecomeLeader(i) ==
  /\ state[i] = Candidate
  /\ \E Q \in Quorum : \A j \in Q : currentTerm[j] = currentTerm[i] /\ votedFor[j] = i
  /\ state' = [state EXCEPT ![i] = Leader]
  /\ logLen' = [logLen EXCEPT ![i] = @ + 1]
  /\ logLastTerm' = [logLastTerm EXCEPT ![i] = currentTerm[i]]
  /\ UNCHANGED <<currentTerm, votedFor, commitIndex>>

\* raft_recv_requestvote: a pre-vote is answered without any state change; a real request
\* from a newer term makes i a follower of that term, and the vote is granted when i has not
\* voted for another node and the candidate's log is at least as up to date.
RecvRequestVote(i, m) ==
  /\ m.type = "RequestVote"
  /\ m.to = i
  /\ m.from # i
  /\ IF m.prevote \/ m.term < currentTerm[i]
       THEN UNCHANGED vars
       ELSE
         LET vote == VoteAfter(i, m)
             upToDate == \/ m.lastLogTerm > logLastTerm[i]
                         \/ m.lastLogTerm = logLastTerm[i] /\ m.lastLogIndex >= logLen[i]
             grant == (vote = None \/ vote = m.from) /\ upToDate
         IN /\ currentTerm' = [currentTerm EXCEPT ![i] = m.term]
            /\ state' = [state EXCEPT ![i] = IF m.term > currentTerm[i] THEN Follower ELSE @]
            /\ votedFor' = [votedFor EXCEPT ![i] = IF grant THEN m.from ELSE vote]
            /\ UNCHANGED <<commitIndex, logLen, logLastTerm>>

\* raft_recv_appendentries: reject a stale term, a gap or a mismatching last term; otherwise
\* follow the sender and append. With logs abstracted, an overlap inside the log either matches
\* (no change) or conflicts (truncate to the message's last entry, never below the commit index).
RecvAppendEntries(i, m) ==
  /\ m.type = "AppendEntries"
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
            IN IF ~matches
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
                                           Max(@, Min(m.leaderCommit, lastNew))]

\* raft_recv_entry on the leader: one client entry of its term.
LogAppend(i) ==
  /\ state[i] = Leader
  /\ logLen' = [logLen EXCEPT ![i] = @ + 1]
  /\ logLastTerm' = [logLastTerm EXCEPT ![i] = currentTerm[i]]
  /\ UNCHANGED <<currentTerm, state, votedFor, commitIndex>>

\* The leader commits an entry of its own term once a quorum holds a log that long in that term.
LogCommit(i) ==
  /\ state[i] = Leader
  /\ logLastTerm[i] = currentTerm[i]
  /\ \E c \in (commitIndex[i] + 1)..logLen[i] :
       /\ \E Q \in Quorum : \A j \in Q : logLen[j] >= c /\ logLastTerm[j] = currentTerm[i]
       /\ commitIndex' = [commitIndex EXCEPT ![i] = c]
  /\ UNCHANGED <<currentTerm, state, votedFor, logLen, logLastTerm>>

\* A leader that lost its quorum steps down in its own term (raft_periodic's quorum check;
\* logged as BecomeFollower with the same term, no target action: the traces show it).
StepDown(i) ==
  /\ state[i] = Leader
  /\ state' = [state EXCEPT ![i] = Follower]
  /\ UNCHANGED <<currentTerm, votedFor, commitIndex, logLen, logLastTerm>>

\* What Next lets a pre-candidate, candidate or leader send (the handlers accept any message).
VoteMsg(c, i) ==
  [type |-> "RequestVote", from |-> c, to |-> i,
   term |-> IF state[c] = PreCandidate THEN currentTerm[c] + 1 ELSE currentTerm[c],
   lastLogIndex |-> logLen[c], lastLogTerm |-> logLastTerm[c],
   prevote |-> state[c] = PreCandidate]

AppMsg(l, i) ==
  [type |-> "AppendEntries", from |-> l, to |-> i, term |-> currentTerm[l],
   prevLogIndex |-> logLen[i], prevLogTerm |-> logLastTerm[i],
   entries |-> [k \in 1..(logLen[l] - logLen[i]) |-> [term |-> logLastTerm[l]]],
   leaderCommit |-> commitIndex[l]]

\* The bounds live here, not in the actions: real windows go beyond them (terms up to 4).
Next ==
  \/ \E i \in Server : ElectionTimeout(i)
  \/ \E i \in Server : currentTerm[i] < MaxTerm /\ BecomeCandidate(i)
  \/ \E i \in Server : logLen[i] < MaxLogLen /\ BecomeLeader(i)
  \/ \E i \in Server : logLen[i] < MaxLogLen /\ LogAppend(i)
  \/ \E i \in Server : LogCommit(i)
  \/ \E i \in Server : StepDown(i)
  \/ \E c, i \in Server :
       /\ state[c] \in {PreCandidate, Candidate} /\ i # c
       /\ RecvRequestVote(i, VoteMsg(c, i))
  \/ \E l, i \in Server :
       /\ state[l] = Leader /\ i # l
       /\ logLen[i] <= logLen[l]
       /\ logLastTerm[i] <= logLastTerm[l]
       /\ RecvAppendEntries(i, AppMsg(l, i))

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
=============================================================================
