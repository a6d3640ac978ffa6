------------------------------- MODULE raftkvs ------------------------------
(* MUTANT flipped_guard: ElectionTimeout's role guard is flipped (only a leader may time out). It must fail every ElectionTimeout window (all start as follower) and pass every ClientRequest window. *)
(* Reference spec for the raftkvs contract (a test fixture, not a leaderboard entry).
   Raft leader election and log replication with a key-value state machine, and clients that
   send requests to the server they believe leads. Messages go through per-node FIFO mailboxes.
   Follows the contract's names (identity adapter); votesGranted, matchIndex and
   newCommitIndex are auxiliary state outside the schema. *)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS Servers, Clients, MaxTerm, MaxCommitIndex, MaxNodeFail

VARIABLES
  state, currentTerm, votedFor, leader, log, commitIndex, sm, smDomain, plog, nodeEnabled,
  network, pc, clientLeader, req, reqIdx,
  votesGranted, matchIndex, newCommitIndex

serverVars == <<state, currentTerm, votedFor, leader, log, commitIndex, sm, smDomain, plog,
                nodeEnabled, votesGranted, matchIndex, newCommitIndex>>
clientVars == <<pc, clientLeader, req, reqIdx>>
vars == <<serverVars, clientVars, network>>

Nil == "None"
Nodes == Servers \cup Clients
IsQuorum(S) == Cardinality(S) * 2 > Cardinality(Servers)
EmptySM == [k \in {} |-> ""]
NoReq == [k \in {} |-> ""]
\* The recorded runs' workload (PGo's test driver): request n puts "value<p>" under
\* "key<p mod 3 + 1>" for odd n (p = (n - 1) \div 2) and gets that key back for even n.
Request(n) ==
  LET p == (n - 1) \div 2
      key == "key" \o ToString((p % 3) + 1)
  IN IF n % 2 = 1 THEN [type |-> "put", key |-> key, value |-> "value" \o ToString(p)]
                  ELSE [type |-> "get", key |-> key]
LastTerm(l) == IF l = <<>> THEN 0 ELSE l[Len(l)].term
Max(S) == CHOOSE x \in S : \A y \in S : y <= x

Init ==
  /\ state = [i \in Servers |-> "follower"]
  /\ currentTerm = [i \in Servers |-> 1]
  /\ votedFor = [i \in Servers |-> Nil]
  /\ leader = [i \in Servers |-> Nil]
  /\ log = [i \in Servers |-> <<>>]
  /\ plog = [i \in Servers |-> <<>>]
  /\ commitIndex = [i \in Servers |-> 0]
  /\ newCommitIndex = [i \in Servers |-> 0]
  /\ sm = [i \in Servers |-> EmptySM]
  /\ smDomain = [i \in Servers |-> {}]
  /\ nodeEnabled = [i \in Servers |-> TRUE]
  /\ votesGranted = [i \in Servers |-> {}]
  /\ matchIndex = [i \in Servers |-> [j \in Servers |-> 0]]
  /\ network = [n \in Nodes |-> <<>>]
  /\ pc = [c \in Clients |-> "clientLoop"]
  /\ clientLeader = [c \in Clients |-> Nil]
  /\ req = [c \in Clients |-> NoReq]
  /\ reqIdx = [c \in Clients |-> 0]

Receive(i) == network' = [network EXCEPT ![i] = Tail(@)]
ReceiveAndSend(i, to, m) == network' = [network EXCEPT ![i] = Tail(@), ![to] = Append(@, m)]

\* A newer term seen in message m: adopt it and step down.
NewTerm(i, m) == m.mterm > currentTerm[i]
TermAfter(i, m) == IF NewTerm(i, m) THEN m.mterm ELSE currentTerm[i]

---------------------------------------------------------------------------------------------
\* Elections

\* The election timer fires: only when the server is not leader and its mailbox is empty.
ElectionTimeout(i) ==
  /\ nodeEnabled[i]
  /\ state[i] = "leader"
  /\ network[i] = <<>>
  /\ currentTerm[i] + 1 < MaxTerm
  /\ state' = [state EXCEPT ![i] = "candidate"]
  /\ currentTerm' = [currentTerm EXCEPT ![i] = @ + 1]
  /\ votedFor' = [votedFor EXCEPT ![i] = i]
  /\ leader' = [leader EXCEPT ![i] = Nil]
  /\ votesGranted' = [votesGranted EXCEPT ![i] = {i}]
  /\ network' = [n \in Nodes |->
                   IF n \in Servers \ {i}
                     THEN Append(network[n], [mtype |-> "rvq", mterm |-> currentTerm[i] + 1,
                                              mlastLogTerm |-> LastTerm(log[i]),
                                              mlastLogIndex |-> Len(log[i]),
                                              msource |-> i, mdest |-> n])
                     ELSE network[n]]
  /\ UNCHANGED <<log, plog, commitIndex, newCommitIndex, sm, smDomain, nodeEnabled, matchIndex,
                 clientVars>>

HandleRequestVoteRequest(i, m) ==
  /\ network[i] # <<>> /\ m = Head(network[i]) /\ m.mtype = "rvq"
  /\ LET term == TermAfter(i, m)
         vote == IF NewTerm(i, m) THEN Nil ELSE votedFor[i]
         logOk == \/ m.mlastLogTerm > LastTerm(log[i])
                  \/ m.mlastLogTerm = LastTerm(log[i]) /\ m.mlastLogIndex >= Len(log[i])
         grant == m.mterm = term /\ logOk /\ vote \in {Nil, m.msource}
     IN /\ currentTerm' = [currentTerm EXCEPT ![i] = term]
        /\ state' = [state EXCEPT ![i] = IF NewTerm(i, m) THEN "follower" ELSE @]
        /\ leader' = [leader EXCEPT ![i] = IF NewTerm(i, m) THEN Nil ELSE @]
        /\ votedFor' = [votedFor EXCEPT ![i] = IF grant THEN m.msource ELSE vote]
        /\ ReceiveAndSend(i, m.msource, [mtype |-> "rvp", mterm |-> term,
                                        mvoteGranted |-> grant, msource |-> i, mdest |-> m.msource])
  /\ UNCHANGED <<log, plog, commitIndex, newCommitIndex, sm, smDomain, nodeEnabled, votesGranted,
                 matchIndex, clientVars>>

HandleRequestVoteResponse(i, m) ==
  /\ network[i] # <<>> /\ m = Head(network[i]) /\ m.mtype = "rvp"
  /\ Receive(i)
  /\ IF NewTerm(i, m)
       THEN /\ currentTerm' = [currentTerm EXCEPT ![i] = m.mterm]
            /\ state' = [state EXCEPT ![i] = "follower"]
            /\ votedFor' = [votedFor EXCEPT ![i] = Nil]
            /\ leader' = [leader EXCEPT ![i] = Nil]
            /\ UNCHANGED votesGranted
       ELSE /\ votesGranted' = [votesGranted EXCEPT ![i] =
                                  IF m.mvoteGranted /\ m.mterm = currentTerm[i] THEN @ \cup {m.msource} ELSE @]
            /\ UNCHANGED <<currentTerm, state, votedFor, leader>>
  /\ UNCHANGED <<log, plog, commitIndex, newCommitIndex, sm, smDomain, nodeEnabled, matchIndex,
                 clientVars>>

BecomeLeader(i) ==
  /\ state[i] = "candidate"
  /\ IsQuorum(votesGranted[i])
  /\ state' = [state EXCEPT ![i] = "leader"]
  /\ leader' = [leader EXCEPT ![i] = i]
  /\ matchIndex' = [matchIndex EXCEPT ![i] = [j \in Servers |-> IF j = i THEN Len(log[i]) ELSE 0]]
  /\ UNCHANGED <<currentTerm, votedFor, log, plog, commitIndex, newCommitIndex, sm, smDomain,
                 nodeEnabled, votesGranted, network, clientVars>>

---------------------------------------------------------------------------------------------
\* Replication

\* The leader sends j the entries after what j is known to hold (at most one request in flight).
AppendEntries(i, j) ==
  /\ state[i] = "leader" /\ j # i
  /\ network[j] = <<>>
  /\ LET prev == matchIndex[i][j]
     IN network' = [network EXCEPT ![j] = Append(@,
          [mtype |-> "apq", mterm |-> currentTerm[i], mprevLogIndex |-> prev,
           mprevLogTerm |-> IF prev = 0 THEN 0 ELSE log[i][prev].term,
           mentries |-> SubSeq(log[i], prev + 1, Len(log[i])),
           mcommitIndex |-> commitIndex[i], msource |-> i, mdest |-> j])]
  /\ UNCHANGED <<serverVars, clientVars>>

HandleAppendEntriesRequest(i, m) ==
  /\ network[i] # <<>> /\ m = Head(network[i]) /\ m.mtype = "apq"
  /\ LET term == TermAfter(i, m)
         logOk == m.mprevLogIndex = 0
                  \/ (m.mprevLogIndex <= Len(log[i]) /\ log[i][m.mprevLogIndex].term = m.mprevLogTerm)
         accept == m.mterm = term /\ logOk
         newLog == SubSeq(log[i], 1, m.mprevLogIndex) \o m.mentries
     IN /\ currentTerm' = [currentTerm EXCEPT ![i] = term]
        /\ state' = [state EXCEPT ![i] = IF m.mterm = term THEN "follower" ELSE @]
        /\ leader' = [leader EXCEPT ![i] = IF m.mterm = term THEN m.msource ELSE @]
        /\ votedFor' = [votedFor EXCEPT ![i] = IF NewTerm(i, m) THEN Nil ELSE @]
        /\ log' = [log EXCEPT ![i] = IF accept THEN newLog ELSE @]
        /\ plog' = [plog EXCEPT ![i] = IF accept THEN newLog ELSE @]
        /\ newCommitIndex' = [newCommitIndex EXCEPT ![i] =
                                IF accept /\ m.mcommitIndex > @ THEN m.mcommitIndex ELSE @]
        /\ ReceiveAndSend(i, m.msource, [mtype |-> "app", mterm |-> term, msuccess |-> accept,
                                        mmatchIndex |-> IF accept THEN Len(newLog) ELSE 0,
                                        msource |-> i, mdest |-> m.msource])
  /\ UNCHANGED <<commitIndex, sm, smDomain, nodeEnabled, votesGranted, matchIndex, clientVars>>

HandleAppendEntriesResponse(i, m) ==
  /\ network[i] # <<>> /\ m = Head(network[i]) /\ m.mtype = "app"
  /\ Receive(i)
  /\ IF NewTerm(i, m)
       THEN /\ currentTerm' = [currentTerm EXCEPT ![i] = m.mterm]
            /\ state' = [state EXCEPT ![i] = "follower"]
            /\ votedFor' = [votedFor EXCEPT ![i] = Nil]
            /\ leader' = [leader EXCEPT ![i] = Nil]
            /\ UNCHANGED matchIndex
       ELSE /\ matchIndex' = [matchIndex EXCEPT ![i][m.msource] =
                                IF m.msuccess /\ m.mterm = currentTerm[i] /\ m.mmatchIndex > @
                                  THEN m.mmatchIndex ELSE @]
            /\ UNCHANGED <<currentTerm, state, votedFor, leader>>
  /\ UNCHANGED <<log, plog, commitIndex, newCommitIndex, sm, smDomain, nodeEnabled, votesGranted,
                 clientVars>>

\* The leader commits the highest index of its term that a quorum holds.
AdvanceCommitIndex(i) ==
  /\ state[i] = "leader"
  /\ \E k \in (newCommitIndex[i] + 1)..Len(log[i]) :
       /\ k < MaxCommitIndex
       /\ log[i][k].term = currentTerm[i]
       /\ IsQuorum({j \in Servers : (IF j = i THEN Len(log[i]) ELSE matchIndex[i][j]) >= k})
       /\ newCommitIndex' = [newCommitIndex EXCEPT ![i] = k]
  /\ UNCHANGED <<state, currentTerm, votedFor, leader, log, plog, commitIndex, sm, smDomain,
                 nodeEnabled, votesGranted, matchIndex, network, clientVars>>

\* Apply the next committed entry; the leader answers the client that sent it.
Apply(i) ==
  /\ commitIndex[i] < newCommitIndex[i]
  /\ commitIndex[i] < Len(log[i])
  /\ LET k == commitIndex[i] + 1
         cmd == log[i][k].cmd
         client == log[i][k].client
         isPut == cmd.type = "put"
         newSm == IF isPut THEN [x \in DOMAIN sm[i] \cup {cmd.key} |->
                                   IF x = cmd.key THEN cmd.value ELSE sm[i][x]]
                           ELSE sm[i]
         value == IF cmd.key \in DOMAIN newSm THEN newSm[cmd.key] ELSE ""
         reply == [mtype |-> IF isPut THEN "cpp" ELSE "cgp", msuccess |-> TRUE,
                   mresponse |-> [idx |-> cmd.idx, key |-> cmd.key, value |-> value,
                                  ok |-> cmd.key \in DOMAIN newSm],
                   mleaderHint |-> i, msource |-> i, mdest |-> client]
     IN /\ commitIndex' = [commitIndex EXCEPT ![i] = k]
        /\ sm' = [sm EXCEPT ![i] = newSm]
        /\ smDomain' = [smDomain EXCEPT ![i] = DOMAIN newSm]
        /\ IF state[i] = "leader"
             THEN network' = [network EXCEPT ![client] = Append(@, reply)]
             ELSE UNCHANGED network
  /\ UNCHANGED <<state, currentTerm, votedFor, leader, log, plog, newCommitIndex, nodeEnabled,
                 votesGranted, matchIndex, clientVars>>

\* A client request: a leader appends it to its log; others answer with a hint.
HandleClientRequest(i, m) ==
  /\ network[i] # <<>> /\ m = Head(network[i]) /\ m.mtype \in {"cpq", "cgq"}
  /\ IF state[i] = "leader"
       THEN /\ Len(log[i]) < MaxCommitIndex
            /\ LET entry == [term |-> currentTerm[i], cmd |-> m.mcmd, client |-> m.msource]
               IN /\ log' = [log EXCEPT ![i] = Append(@, entry)]
                  /\ plog' = [plog EXCEPT ![i] = Append(@, entry)]
            /\ Receive(i)
       ELSE /\ ReceiveAndSend(i, m.msource,
                [mtype |-> IF m.mtype = "cpq" THEN "cpp" ELSE "cgp", msuccess |-> FALSE,
                 mresponse |-> [idx |-> m.mcmd.idx, key |-> m.mcmd.key],
                 mleaderHint |-> leader[i], msource |-> i, mdest |-> m.msource])
            /\ UNCHANGED <<log, plog>>
  /\ UNCHANGED <<state, currentTerm, votedFor, leader, commitIndex, newCommitIndex, sm, smDomain,
                 nodeEnabled, votesGranted, matchIndex, clientVars>>

---------------------------------------------------------------------------------------------
\* Clients

ClientLoop(c) ==
  /\ pc[c] = "clientLoop"
  /\ reqIdx[c] + 1 < MaxCommitIndex
  /\ req' = [req EXCEPT ![c] = Request(reqIdx[c] + 1)]
  /\ reqIdx' = [reqIdx EXCEPT ![c] = @ + 1]
  /\ pc' = [pc EXCEPT ![c] = "sndReq"]
  /\ UNCHANGED <<serverVars, network, clientLeader>>

Command(c) ==
  IF req[c].type = "put"
    THEN [idx |-> reqIdx[c], type |-> "put", key |-> req[c].key, value |-> req[c].value]
    ELSE [idx |-> reqIdx[c], type |-> "get", key |-> req[c].key]

\* Send the current request to the believed leader, picking a server when none is known.
ClientRequest(c) ==
  /\ pc[c] = "sndReq"
  /\ \E s \in IF clientLeader[c] = Nil THEN Servers ELSE {clientLeader[c]} :
       /\ clientLeader' = [clientLeader EXCEPT ![c] = s]
       /\ network' = [network EXCEPT ![s] = Append(@,
            [mtype |-> IF req[c].type = "put" THEN "cpq" ELSE "cgq",
             mcmd |-> Command(c), msource |-> c, mdest |-> s])]
  /\ pc' = [pc EXCEPT ![c] = "rcvResp"]
  /\ UNCHANGED <<serverVars, req, reqIdx>>

ClientReceive(c) ==
  /\ pc[c] = "rcvResp"
  /\ network[c] # <<>>
  /\ LET m == Head(network[c])
     IN /\ network' = [network EXCEPT ![c] = Tail(@)]
        /\ IF m.mresponse.idx # reqIdx[c]
             THEN UNCHANGED <<pc, clientLeader>>
             ELSE /\ clientLeader' = [clientLeader EXCEPT ![c] = m.mleaderHint]
                  /\ pc' = [pc EXCEPT ![c] = IF m.msuccess THEN "clientLoop" ELSE "sndReq"]
  /\ UNCHANGED <<serverVars, req, reqIdx>>

---------------------------------------------------------------------------------------------

Server(i) ==
  \/ ElectionTimeout(i)
  \/ BecomeLeader(i)
  \/ AdvanceCommitIndex(i)
  \/ Apply(i)
  \/ \E j \in Servers : AppendEntries(i, j)
  \/ network[i] # <<>> /\
       LET m == Head(network[i])
       IN \/ HandleRequestVoteRequest(i, m)
          \/ HandleRequestVoteResponse(i, m)
          \/ HandleAppendEntriesRequest(i, m)
          \/ HandleAppendEntriesResponse(i, m)
          \/ HandleClientRequest(i, m)

Client(c) == ClientLoop(c) \/ ClientRequest(c) \/ ClientReceive(c)

Next == (\E i \in Servers : Server(i)) \/ (\E c \in Clients : Client(c))

HandleMessage(i) ==
  /\ network[i] # <<>>
  /\ LET m == Head(network[i])
     IN \/ HandleRequestVoteRequest(i, m)
        \/ HandleRequestVoteResponse(i, m)
        \/ HandleAppendEntriesRequest(i, m)
        \/ HandleAppendEntriesResponse(i, m)
        \/ HandleClientRequest(i, m)

\* Fairness per server activity (each PGo archetype is its own process); the election timer is
\* strongly fair because client messages keep emptying and refilling the mailbox it checks.
Spec ==
  /\ Init /\ [][Next]_vars
  /\ \A i \in Servers :
       /\ SF_vars(ElectionTimeout(i))
       /\ WF_vars(BecomeLeader(i))
       /\ WF_vars(AdvanceCommitIndex(i))
       /\ WF_vars(Apply(i))
       /\ WF_vars(HandleMessage(i))
       /\ \A j \in Servers : WF_vars(AppendEntries(i, j))
  /\ \A c \in Clients : WF_vars(Client(c))
=============================================================================
