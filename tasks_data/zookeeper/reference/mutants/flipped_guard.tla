---------------------------- MODULE zookeeper ----------------------------
(* MUTANT flipped_guard: BecomeLeader's guard is negated: a server leads when its vote names another.
   Reference spec for the zookeeper contract (a test fixture, not a leaderboard entry).
   Follows the contract's names, so it is scored with the identity adapter. Messages are not
   kept in a variable: HandleNotification takes the notification as a parameter and Next draws
   it from what another server's current vote would send. `votes` is implied by recvVotes and
   votedFor, so it is a definition here, not a variable. `inElection` (whether the server is
   inside lookForLeader) and `faults` (the faults so far) are the spec's own hidden state. *)
EXTENDS Naturals, FiniteSets, TLC

CONSTANTS Server, LOOKING, FOLLOWING, LEADING

VARIABLES state, currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes,
          inElection, faults

vars == <<state, currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes,
          inElection, faults>>

None == "none"
\* Server ids as ZooKeeper orders them (the pinned servers are "s1", "s2", "s3").
Id(s) == CASE s = "s1" -> 1 [] s = "s2" -> 2 [] s = "s3" -> 3

\* Zxids are written epoch * 1000 + counter (the contract's encoding). The model lets a
\* leader's clients commit at most MaxTxn transactions in one epoch: the counter is what the
\* clients did, which the election neither decides nor observes, so it stays a choice.
ZxidBase == 1000
MaxTxn == 3

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
  /\ inElection = [s \in Server |-> FALSE]
  /\ faults = 0

SetVote(s, leader, zxid, epoch) ==
  /\ votedFor' = [votedFor EXCEPT ![s] = leader]
  /\ voteZxid' = [voteZxid EXCEPT ![s] = zxid]
  /\ voteEpoch' = [voteEpoch EXCEPT ![s] = epoch]

\* lookForLeader starts: the logical clock moves on once per call, with a vote for itself, sent
\* to everyone. QuorumPeer calls it when the server is LOOKING and not already in it (at start,
\* and after it stopped following or leading); inside it the clock moves only by adopting a
\* newer round.
StartRound(s) ==
  /\ state[s] = LOOKING
  /\ ~inElection[s]
  /\ currentEpoch' = [currentEpoch EXCEPT ![s] = @ + 1]
  /\ SetVote(s, s, lastZxid[s], peerEpoch[s])
  /\ recvVotes' = [recvVotes EXCEPT ![s] = [j \in Server |-> None]]
  /\ inElection' = [inElection EXCEPT ![s] = TRUE]
  /\ UNCHANGED <<state, lastZxid, peerEpoch, faults>>

\* Or a vote sent again (timeout) or an answer to a LOOKING server, which change nothing.
Notification(s) == StartRound(s) \/ UNCHANGED vars

HandleLooking(s, m) ==
  \/ /\ m.electionEpoch > currentEpoch[s]
     /\ LET adopt == Better(m.leader, m.zxid, m.peerEpoch, s, lastZxid[s], peerEpoch[s])
        IN /\ currentEpoch' = [currentEpoch EXCEPT ![s] = m.electionEpoch]
           /\ IF adopt THEN SetVote(s, m.leader, m.zxid, m.peerEpoch)
                       ELSE SetVote(s, s, lastZxid[s], peerEpoch[s])
           /\ recvVotes' = [recvVotes EXCEPT ![s] =
                              [j \in Server |-> IF j = m.from THEN m.leader ELSE None]]
           /\ UNCHANGED <<state, lastZxid, peerEpoch, inElection, faults>>
  \/ /\ m.electionEpoch < currentEpoch[s]
     /\ UNCHANGED vars
  \/ /\ m.electionEpoch = currentEpoch[s]
     /\ IF Better(m.leader, m.zxid, m.peerEpoch, votedFor[s], voteZxid[s], voteEpoch[s])
          THEN SetVote(s, m.leader, m.zxid, m.peerEpoch)
          ELSE UNCHANGED <<votedFor, voteZxid, voteEpoch>>
     /\ recvVotes' = [recvVotes EXCEPT ![s][m.from] = m.leader]
     /\ UNCHANGED <<state, currentEpoch, lastZxid, peerEpoch, inElection, faults>>

\* From a FOLLOWING or LEADING server: recorded when it is of this round; s joins that leader
\* once a quorum reports it and the leader reports LEADING (counted over messages of any round,
\* which the windows do not show, so joining is left open here).
HandleElected(s, m) ==
  /\ recvVotes' = IF m.electionEpoch = currentEpoch[s]
                    THEN [recvVotes EXCEPT ![s][m.from] = m.leader]
                    ELSE recvVotes
  /\ \/ UNCHANGED <<state, currentEpoch, votedFor, voteZxid, voteEpoch, inElection>>
     \/ /\ m.leader # s
        /\ state' = [state EXCEPT ![s] = FOLLOWING]
        /\ currentEpoch' = [currentEpoch EXCEPT ![s] = m.electionEpoch]
        /\ SetVote(s, m.leader, m.zxid, m.peerEpoch)
        /\ inElection' = [inElection EXCEPT ![s] = FALSE]
  /\ UNCHANGED <<lastZxid, peerEpoch, faults>>

\* Notifications are taken from the queue only inside lookForLeader.
HandleNotification(s, m) ==
  /\ state[s] = LOOKING
  /\ inElection[s]
  /\ m.to = s
  /\ IF m.state = LOOKING THEN HandleLooking(s, m) ELSE HandleElected(s, m)

\* A quorum agrees with s's vote, its own notification among them. (The final wait that follows
\* only delays the decision: a better vote that arrives later is missed, and the windows show
\* such a leader.)
Decided(s) ==
  /\ state[s] = LOOKING
  /\ inElection[s]
  /\ recvVotes[s][s] = votedFor[s]
  /\ IsQuorum(Agree(recvVotes[s], votedFor[s]))

\* The model's timing assumption for a server that follows, which FastLeaderElection's final
\* wait is there for: every better vote of the round reaches s before it decides. A server
\* that decides for itself is not held to it: the newer-zxid traces show one leading while a
\* better vote of its round was on the way, beside another leader of that round (Zab's epoch
\* agreement, outside this scope, then stops one of them).
NoBetterVoteInRound(s) ==
  \A j \in Server :
    currentEpoch[j] = currentEpoch[s] =>
      ~Better(votedFor[j], voteZxid[j], voteEpoch[j], votedFor[s], voteZxid[s], voteEpoch[s])

BecomeLeader(s) ==
  /\ Decided(s)
  /\ votedFor[s] # s
  /\ state' = [state EXCEPT ![s] = LEADING]
  /\ inElection' = [inElection EXCEPT ![s] = FALSE]
  /\ UNCHANGED <<currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes,
                 faults>>

BecomeFollower(s) ==
  /\ Decided(s)
  /\ votedFor[s] # s
  /\ state' = [state EXCEPT ![s] = FOLLOWING]
  /\ inElection' = [inElection EXCEPT ![s] = FALSE]
  /\ UNCHANGED <<currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes,
                 faults>>

(* Outside the election (the contract's unmapped events BecomeLooking, Synced, StartPeer).
   What the broadcast phase leaves in a server's data dir, read when its next round starts
   (Synced) or when its process restarts (StartPeer). Zab's leader of a vote of peer epoch e
   proposes epoch e + 1 (the largest accepted epoch of its quorum, its own, plus one); a server
   that joined an established leader took that leader's new epoch into its vote already, and
   the state does not record which way it joined, so both epochs are offered. The server's data
   moves to that epoch once (it only grows), with the zxid it had, the leader's history (the
   vote's zxid, synchronised by DIFF or SNAP) or a transaction of the new epoch. Killed before
   NEWLEADER, its data did not move: no step then. *)
SyncedEpochs(s) == {e \in {voteEpoch[s], voteEpoch[s] + 1} : e > peerEpoch[s]}

SyncedZxids(s, e) ==
  {z \in {lastZxid[s], voteZxid[s]} \cup {e * ZxidBase + c : c \in 1..MaxTxn} : z >= lastZxid[s]}

\* Data as it was or as the broadcast phase left it: <<zxid, epoch>> pairs. A server killed
\* inside lookForLeader has the data its round started with.
DataAfter(s) ==
  {<<lastZxid[s], peerEpoch[s]>>} \cup
    IF inElection[s] THEN {}
    ELSE UNION {{<<z, e>> : z \in SyncedZxids(s, e)} : e \in SyncedEpochs(s)}

\* A server between rounds (it stopped following or leading, and its next lookForLeader has not
\* started) whose data moved while it was not looking.
Synced(s) ==
  /\ state[s] = LOOKING
  /\ ~inElection[s]
  /\ currentEpoch[s] > 0
  /\ \E e \in SyncedEpochs(s) : \E z \in SyncedZxids(s, e) :
       /\ lastZxid' = [lastZxid EXCEPT ![s] = z]
       /\ peerEpoch' = [peerEpoch EXCEPT ![s] = e]
  /\ UNCHANGED <<state, currentEpoch, votedFor, voteZxid, voteEpoch, recvVotes, inElection,
                 faults>>

(* Faults: a leader or follower that loses its peers (BecomeLooking, FollowedBriefly) and a
   process killed and restarted (StartPeer). A behaviour has at most MaxFaults of them: with
   faults that never stop no election is bound to end, and the contract's liveness properties
   assume that they stop. Four is what the harness's scenarios cause: a killed leader is its
   two followers' losses and its restart, a full stop three restarts, and either may add a
   follower's loss of a leader that was not ready for it. *)
MaxFaults == 4

Fault ==
  /\ faults < MaxFaults
  /\ faults' = faults + 1

\* BecomeFollower, the broadcast phase's sync and BecomeLooking as one step: the trace logs the
\* three between two of its events with the follower LOOKING at both ends, and P3 keeps a slot
\* equal at both ends of a gap (a change there and back is not followed), so only a step that
\* leaves it LOOKING explains that gap. Its data moved, so no quiet gap takes it.
FollowedBriefly(s) ==
  /\ Decided(s)
  /\ votedFor[s] # s
  /\ Fault
  /\ inElection' = [inElection EXCEPT ![s] = FALSE]
  /\ \E e \in SyncedEpochs(s) : \E z \in SyncedZxids(s, e) :
       /\ lastZxid' = [lastZxid EXCEPT ![s] = z]
       /\ peerEpoch' = [peerEpoch EXCEPT ![s] = e]
  /\ UNCHANGED <<state, currentEpoch, votedFor, voteZxid, voteEpoch, recvVotes>>

\* A FOLLOWING or LEADING server lost its leader or its quorum: LOOKING, outside lookForLeader
\* until QuorumPeer's loop calls it again.
BecomeLooking(s) ==
  /\ state[s] \in {FOLLOWING, LEADING}
  /\ Fault
  /\ state' = [state EXCEPT ![s] = LOOKING]
  /\ UNCHANGED <<currentEpoch, votedFor, voteZxid, voteEpoch, lastZxid, peerEpoch, recvVotes,
                 inElection>>

\* A server that ran before is killed and restarts: a fresh peer in round 0 voting for itself
\* with what its data dir holds.
StartPeer(s) ==
  /\ currentEpoch[s] > 0
  /\ Fault
  /\ \E d \in DataAfter(s) :
       /\ lastZxid' = [lastZxid EXCEPT ![s] = d[1]]
       /\ peerEpoch' = [peerEpoch EXCEPT ![s] = d[2]]
       /\ SetVote(s, s, d[1], d[2])
  /\ state' = [state EXCEPT ![s] = LOOKING]
  /\ currentEpoch' = [currentEpoch EXCEPT ![s] = 0]
  /\ recvVotes' = [recvVotes EXCEPT ![s] = [j \in Server |-> None]]
  /\ inElection' = [inElection EXCEPT ![s] = FALSE]

\* What server j would send to s now.
Msg(j, s) ==
  [from |-> j, to |-> s, state |-> state[j], leader |-> votedFor[j], zxid |-> voteZxid[j],
   electionEpoch |-> currentEpoch[j], peerEpoch |-> voteEpoch[j]]

\* Steps that change something (a resent vote or a notification ignored is a stutter, which
\* [Next]_vars allows anyway). Notifications are handled once every server has started a round
\* since its process started. (Alone, FastLeaderElection does not keep two servers from leading
\* in one round when a late server's better vote reaches an undecided one; Zab's epoch
\* agreement, outside this scope, settles that.)
Next ==
  \/ \E s \in Server : Notification(s) /\ vars' # vars
  \/ /\ \A j \in Server : currentEpoch[j] > 0
     /\ \E s, j \in Server : HandleNotification(s, Msg(j, s)) /\ vars' # vars
  \/ \E s \in Server :
       \/ BecomeLeader(s)
       \/ NoBetterVoteInRound(s) /\ (BecomeFollower(s) \/ FollowedBriefly(s))
  \/ \E s \in Server : BecomeLooking(s) \/ Synced(s) \/ StartPeer(s)

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
=============================================================================
