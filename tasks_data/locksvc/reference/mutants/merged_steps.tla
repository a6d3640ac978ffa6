------------------------------- MODULE locksvc ------------------------------
(* MUTANT merged_steps: The server takes a message and answers it in one atomic step (serverReceive and serverRespond merged), the textbook merge. It must fail every ServerGrantLock window (they start at serverRespond) and pass the client windows. *)
(* Reference spec for the locksvc contract (a test fixture, not a leaderboard entry).
   A lock server keeps a FIFO queue of requesters and grants the lock to its head; each client
   locks once. Processes talk through FIFO mailboxes. Follows the contract's names. *)
EXTENDS Naturals, Sequences, TLC

CONSTANTS ServerID, Clients

VARIABLES pc, network, msg, q, hasLock

vars == <<pc, network, msg, q, hasLock>>

LockMsg == 1
UnlockMsg == 2
GrantMsg == 3
Grant == [type |-> GrantMsg]
NoMsg == [from |-> "None", type |-> 0]
Nodes == {ServerID} \cup Clients

TypeOK ==
  /\ pc \in [Nodes -> {"serverLoop", "serverReceive", "serverRespond",
                       "acquireLock", "criticalSection", "unlock", "Done"}]
  /\ network \in [Nodes -> Seq([from: Clients, type: {LockMsg, UnlockMsg}] \cup {Grant})]
  /\ msg \in [{ServerID} -> [from: Clients \cup {"None"}, type: {0, LockMsg, UnlockMsg}]]
  /\ q \in [{ServerID} -> Seq(Clients)]
  /\ hasLock \in [Clients -> BOOLEAN]

Init ==
  /\ pc = [n \in Nodes |-> IF n = ServerID THEN "serverLoop" ELSE "acquireLock"]
  /\ network = [n \in Nodes |-> <<>>]
  /\ msg = [n \in {ServerID} |-> NoMsg]
  /\ q = [n \in {ServerID} |-> <<>>]
  /\ hasLock = [c \in Clients |-> FALSE]

ServerLoop(s) ==
  /\ pc[s] = "serverLoop"
  /\ pc' = [pc EXCEPT ![s] = "serverReceive"]
  /\ UNCHANGED <<network, msg, q, hasLock>>

ServerReceive(s) ==
  /\ pc[s] = "serverReceive"
  /\ network[s] # <<>>
  /\ msg' = [msg EXCEPT ![s] = Head(network[s])]
  /\ network' = [network EXCEPT ![s] = Tail(@)]
  /\ pc' = [pc EXCEPT ![s] = "serverRespond"]
  /\ UNCHANGED <<q, hasLock>>

\* Does acting on msg send a grant? A lock request finds nobody holding the lock, or an unlock
\* leaves someone waiting.
GrantsNow(s) ==
  \/ msg[s].type = LockMsg /\ q[s] = <<>>
  \/ msg[s].type = UnlockMsg /\ Len(q[s]) > 1

SendGrant(to) == network' = [network EXCEPT ![to] = Append(@, Grant)]

\* serverReceive and serverRespond as one step: take m and answer it at once
ServerGrantLock(s) ==
  /\ pc[s] = "serverReceive"
  /\ network[s] # <<>>
  /\ LET m == Head(network[s])
         rest == [network EXCEPT ![s] = Tail(@)]
     IN /\ msg' = [msg EXCEPT ![s] = m]
        /\ \/ m.type = LockMsg /\ q[s] = <<>>
           \/ m.type = UnlockMsg /\ Len(q[s]) > 1
        /\ IF m.type = LockMsg
             THEN /\ network' = [rest EXCEPT ![m.from] = Append(@, Grant)]
                  /\ q' = [q EXCEPT ![s] = Append(@, m.from)]
             ELSE /\ network' = [rest EXCEPT ![Head(Tail(q[s]))] = Append(@, Grant)]
                  /\ q' = [q EXCEPT ![s] = Tail(@)]
  /\ pc' = [pc EXCEPT ![s] = "serverLoop"]
  /\ UNCHANGED hasLock

ServerQueue(s) ==
  /\ pc[s] = "serverRespond"
  /\ ~GrantsNow(s)
  /\ q' = [q EXCEPT ![s] = CASE msg[s].type = LockMsg -> Append(@, msg[s].from)
                              [] msg[s].type = UnlockMsg -> Tail(@)
                              [] OTHER -> @]
  /\ pc' = [pc EXCEPT ![s] = "serverLoop"]
  /\ UNCHANGED <<network, msg, hasLock>>

ClientLockRequest(c) ==
  /\ pc[c] = "acquireLock"
  /\ network' = [network EXCEPT ![ServerID] = Append(@, [from |-> c, type |-> LockMsg])]
  /\ pc' = [pc EXCEPT ![c] = "criticalSection"]
  /\ UNCHANGED <<msg, q, hasLock>>

ClientCriticalSection(c, m) ==
  /\ pc[c] = "criticalSection"
  /\ network[c] # <<>>
  /\ m = Head(network[c])
  /\ m.type = GrantMsg
  /\ network' = [network EXCEPT ![c] = Tail(@)]
  /\ hasLock' = [hasLock EXCEPT ![c] = TRUE]
  /\ pc' = [pc EXCEPT ![c] = "unlock"]
  /\ UNCHANGED <<msg, q>>

ClientUnlockRequest(c) ==
  /\ pc[c] = "unlock"
  /\ hasLock' = [hasLock EXCEPT ![c] = FALSE]
  /\ network' = [network EXCEPT ![ServerID] = Append(@, [from |-> c, type |-> UnlockMsg])]
  /\ pc' = [pc EXCEPT ![c] = "Done"]
  /\ UNCHANGED <<msg, q>>

Server(s) == ServerLoop(s) \/ ServerReceive(s) \/ ServerGrantLock(s) \/ ServerQueue(s)

Client(c) ==
  \/ ClientLockRequest(c)
  \/ network[c] # <<>> /\ ClientCriticalSection(c, Head(network[c]))
  \/ ClientUnlockRequest(c)

Next == Server(ServerID) \/ \E c \in Clients : Client(c)

Spec ==
  /\ Init /\ [][Next]_vars
  /\ WF_vars(Server(ServerID))
  /\ \A c \in Clients : WF_vars(Client(c))
=============================================================================
