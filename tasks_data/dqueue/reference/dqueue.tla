------------------------------- MODULE dqueue -------------------------------
(* Reference spec for the dqueue contract (a test fixture, not a leaderboard entry).
   One producer serves requests from consumers with the next value of its stream; processes
   talk through FIFO mailboxes. Follows the contract's names (identity adapter). *)
EXTENDS Naturals, Sequences, TLC

CONSTANTS PRODUCER, Consumers, MaxValue

VARIABLES pc, network, requester, s

vars == <<pc, network, requester, s>>

Nodes == {PRODUCER} \cup Consumers

TypeOK ==
  /\ pc \in [Nodes -> {"c", "c1", "c2", "p", "p1", "p2"}]
  /\ network \in [Nodes -> Seq(Consumers \cup (1..MaxValue))]
  /\ requester \in [{PRODUCER} -> Consumers \cup {"None"}]
  /\ s \in [{PRODUCER} -> 1..(MaxValue + 1)]

Init ==
  /\ pc = [n \in Nodes |-> IF n = PRODUCER THEN "p" ELSE "c"]
  /\ network = [n \in Nodes |-> <<>>]
  /\ requester = [n \in {PRODUCER} |-> "None"]
  /\ s = [n \in {PRODUCER} |-> 1]

ConsumerLoop(c) ==
  /\ pc[c] = "c"
  /\ pc' = [pc EXCEPT ![c] = "c1"]
  /\ UNCHANGED <<network, requester, s>>

\* label c1: ask the producer for a value
Request(c) ==
  /\ pc[c] = "c1"
  /\ network' = [network EXCEPT ![PRODUCER] = Append(@, c)]
  /\ pc' = [pc EXCEPT ![c] = "c2"]
  /\ UNCHANGED <<requester, s>>

\* label c2: take the value out of the mailbox
Consume(c) ==
  /\ pc[c] = "c2"
  /\ network[c] # <<>>
  /\ network' = [network EXCEPT ![c] = Tail(@)]
  /\ pc' = [pc EXCEPT ![c] = "c"]
  /\ UNCHANGED <<requester, s>>

ProducerLoop(p) ==
  /\ pc[p] = "p"
  /\ pc' = [pc EXCEPT ![p] = "p1"]
  /\ UNCHANGED <<network, requester, s>>

\* label p1: take the next request
TakeRequest(p) ==
  /\ pc[p] = "p1"
  /\ network[p] # <<>>
  /\ requester' = [requester EXCEPT ![p] = Head(network[p])]
  /\ network' = [network EXCEPT ![p] = Tail(@)]
  /\ pc' = [pc EXCEPT ![p] = "p2"]
  /\ UNCHANGED s

\* label p2: send the stream's next value to the requester
Produce(p) ==
  /\ pc[p] = "p2"
  /\ s[p] <= MaxValue
  /\ network' = [network EXCEPT ![requester[p]] = Append(@, s[p])]
  /\ s' = [s EXCEPT ![p] = @ + 1]
  /\ pc' = [pc EXCEPT ![p] = "p"]
  /\ UNCHANGED requester

Consumer(c) == ConsumerLoop(c) \/ Request(c) \/ Consume(c)
Producer(p) == ProducerLoop(p) \/ TakeRequest(p) \/ Produce(p)

Next ==
  \/ \E c \in Consumers : Consumer(c)
  \/ Producer(PRODUCER)

Spec ==
  /\ Init /\ [][Next]_vars
  /\ \A c \in Consumers : WF_vars(Consumer(c))
  /\ WF_vars(Producer(PRODUCER))
=============================================================================
