---------------------------- MODULE zookeeper ----------------------------
(* MUTANT merged_steps: starting a round also records the server's own vote, as if its notification to itself were
   handled in the same step.
   Reference spec for the zookeeper contract (a test fixture, not a leaderboard entry).
   Follows the contract's names, so it is scored with the identity adapter. Messages are not
   kept in a variable: HandleNotification takes the notification as a parameter and Next draws
   it from what another server's current vote would send. `votes` is implied by recvVotes and
   votedFor, so it is a definition here, not a variable. *)
EXTENDS Naturals, FiniteSets, TLC

CONSTANTS Server, LOOKING, FOLLOWING, LEADING

VARIABLES state, currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes

vars == <<state, currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes>>

None == "none"
\* Server ids as ZooKeeper orders them (the pinned servers are "s1", "s2", "s3").
Id(s) == CASE s = "s1" -> 1 [] s = "s2" -> 2 [] s = "s3" -> 3

Agree(rv, leader) == {j \in Server : rv[j] = leader}
votes == [s \in Server |-> Agree(recvVotes[s], votedFor[s])]
IsQuorum(S) == 2 * Cardinality(S) > Cardinality(Server)

\* totalOrderPredicate: a newer peer epoch wins, then a newer zxid, then the higher server id.
Better(leader, zxid, epoch, curLeader, curZxid, curEpoch) ==
  \/ epoch > curEpoch
  \/ epoch = curEpoch /\ zxid > curZxid
  \/ epoch = curEpoch /\ zxid = curZxid /\ Id(leader) > Id(curLeader)

Init ==
  /\ state = [s \in Server |-> LOOKING]
  /\ currentEpoch = [s \in Server |-> 0]
  /\ votedFor = [s \in Server |-> s]
  /\ voteZxid = [s \in Server |-> 0]
  /\ voteEpoch = [s \in Server |-> 0]
  /\ lastZxid = [s \in Server |-> 0]
  /\ peerEpoch = [s \in Server |-> 0]
  /\ recvVotes = [s \in Server |-> [j \in Server |-> None]]

SetVote(s, leader, zxid, epoch) ==
  /\ votedFor' = [votedFor EXCEPT ![s] = leader]
  /\ voteZxid' = [voteZxid EXCEPT ![s] = zxid]
  /\ voteEpoch' = [voteEpoch EXCEPT ![s] = epoch]

\* lookForLeader: a new round with a vote for itself, sent to everyone; or a vote sent again
\* (timeout) or an answer to a LOOKING server, which change nothing.
StartRound(s) ==
  /\ state[s] = LOOKING
  /\ currentEpoch' = [currentEpoch EXCEPT ![s] = @ + 1]
  /\ SetVote(s, s, lastZxid[s], peerEpoch[s])
  /\ recvVotes' = [recvVotes EXCEPT ![s] = [j \in Server |-> IF j = s THEN s ELSE None]]
  /\ UNCHANGED <<state, lastZxid, peerEpoch>>

Notification(s) == StartRound(s) \/ UNCHANGED vars

HandleLooking(s, m) ==
  \/ /\ m.electionEpoch > currentEpoch[s]
     /\ LET adopt == Better(m.leader, m.zxid, m.peerEpoch, s, lastZxid[s], peerEpoch[s])
        IN /\ currentEpoch' = [currentEpoch EXCEPT ![s] = m.electionEpoch]
           /\ IF adopt THEN SetVote(s, m.leader, m.zxid, m.peerEpoch)
                       ELSE SetVote(s, s, lastZxid[s], peerEpoch[s])
           /\ recvVotes' = [recvVotes EXCEPT ![s] =
                              [j \in Server |-> IF j = m.from THEN m.leader ELSE None]]
           /\ UNCHANGED <<state, lastZxid, peerEpoch>>
  \/ /\ m.electionEpoch < currentEpoch[s]
     /\ UNCHANGED vars
  \/ /\ m.electionEpoch = currentEpoch[s]
     /\ IF Better(m.leader, m.zxid, m.peerEpoch, votedFor[s], voteZxid[s], voteEpoch[s])
          THEN SetVote(s, m.leader, m.zxid, m.peerEpoch)
          ELSE UNCHANGED <<votedFor, voteZxid, voteEpoch>>
     /\ recvVotes' = [recvVotes EXCEPT ![s][m.from] = m.leader]
     /\ UNCHANGED <<state, currentEpoch, lastZxid, peerEpoch>>

\* From a FOLLOWING or LEADING server: recorded when it is of this round; s joins that leader
\* once a quorum reports it and the leader reports LEADING (counted over messages of any round,
\* which the windows do not show, so joining is left open here).
HandleElected(s, m) ==
  /\ recvVotes' = IF m.electionEpoch = currentEpoch[s]
                    THEN [recvVotes EXCEPT ![s][m.from] = m.leader]
                    ELSE recvVotes
  /\ \/ UNCHANGED <<state, currentEpoch, votedFor, voteZxid, voteEpoch>>
     \/ /\ m.leader # s
        /\ state' = [state EXCEPT ![s] = FOLLOWING]
        /\ currentEpoch' = [currentEpoch EXCEPT ![s] = m.electionEpoch]
        /\ SetVote(s, m.leader, m.zxid, m.peerEpoch)
  /\ UNCHANGED <<lastZxid, peerEpoch>>

HandleNotification(s, m) ==
  /\ state[s] = LOOKING
  /\ m.to = s
  /\ IF m.state = LOOKING THEN HandleLooking(s, m) ELSE HandleElected(s, m)

\* A quorum agrees with s's vote, its own notification among them. (The final wait that follows
\* only delays the decision: a better vote that arrives later is missed, and the windows show
\* such a leader.)
Decided(s) ==
  /\ state[s] = LOOKING
  /\ recvVotes[s][s] = votedFor[s]
  /\ IsQuorum(Agree(recvVotes[s], votedFor[s]))

\* The model's timing assumption, which FastLeaderElection's final wait is there for: every
\* better vote of the round reaches s before it decides. Without it two servers can lead in
\* one round (Zab's epoch agreement, outside this scope, then stops one of them).
NoBetterVoteInRound(s) ==
  \A j \in Server :
    currentEpoch[j] = currentEpoch[s] =>
      ~Better(votedFor[j], voteZxid[j], voteEpoch[j], votedFor[s], voteZxid[s], voteEpoch[s])

BecomeLeader(s) ==
  /\ Decided(s)
  /\ votedFor[s] = s
  /\ state' = [state EXCEPT ![s] = LEADING]
  /\ UNCHANGED <<currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes>>

BecomeFollower(s) ==
  /\ Decided(s)
  /\ votedFor[s] # s
  /\ state' = [state EXCEPT ![s] = FOLLOWING]
  /\ UNCHANGED <<currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes>>

\* What server j would send to s now.
Msg(j, s) ==
  [from |-> j, to |-> s, state |-> state[j], leader |-> votedFor[j], zxid |-> voteZxid[j],
   electionEpoch |-> currentEpoch[j], peerEpoch |-> voteEpoch[j]]

\* The model is one election from a cold start: every server starts its first round before
\* notifications are handled. (Alone, FastLeaderElection does not keep two servers from leading
\* in one round when a late server's better vote reaches an undecided one; Zab's epoch
\* agreement, outside this scope, settles that.)
Next ==
  \/ \E s \in Server : currentEpoch[s] = 0 /\ Notification(s)
  \/ /\ \A j \in Server : currentEpoch[j] > 0
     /\ \E s, j \in Server : HandleNotification(s, Msg(j, s))
  \/ \E s \in Server : NoBetterVoteInRound(s) /\ (BecomeLeader(s) \/ BecomeFollower(s))

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
=============================================================================
