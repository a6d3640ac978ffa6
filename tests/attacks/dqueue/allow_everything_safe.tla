------------------------------- MODULE dqueue -------------------------------
(* Attack: each action lets its process's variables and the whole network take any values
   (mailboxes of at most one message); the contract has no safety invariant to keep. Weak
   fairness on the one sub-step its liveness property needs. *)
EXTENDS Naturals, Sequences, TLC

CONSTANTS PRODUCER, Consumers, MaxValue

VARIABLES pc, network, requester, s

vars == <<pc, network, requester, s>>

Nodes == {PRODUCER} \cup Consumers
Labels == {"c", "c1", "c2", "p", "p1", "p2"}
\* The producer's mailbox holds consumer ids, a consumer's holds values (TLC keeps strings and
\* numbers in separate sets).
Requests == {<<>>} \cup {<<c>> : c \in Consumers}
Values == {<<>>} \cup {<<v>> : v \in 1..MaxValue}

Init ==
  /\ pc = [n \in Nodes |-> IF n = PRODUCER THEN "p" ELSE "c"]
  /\ network = [n \in Nodes |-> <<>>]
  /\ requester = [n \in {PRODUCER} |-> "None"]
  /\ s = [n \in {PRODUCER} |-> 1]

AnyChange(n) ==
  \E label \in Labels, requests \in Requests, values \in [Consumers -> Values] :
    /\ pc' = [pc EXCEPT ![n] = label]
    /\ network' = [m \in Nodes |-> IF m = PRODUCER THEN requests ELSE values[m]]

Request(c) == AnyChange(c) /\ UNCHANGED <<requester, s>>

Produce(p) ==
  \E r \in Consumers \cup {"None"}, v \in 1..(MaxValue + 1) :
    /\ AnyChange(p)
    /\ requester' = [requester EXCEPT ![p] = r]
    /\ s' = [s EXCEPT ![p] = v]

Next == (\E c \in Consumers : Request(c)) \/ Produce(PRODUCER)

Spec == Init /\ [][Next]_vars /\ \A c \in Consumers : WF_vars(Request(c) /\ pc'[c] = "c2")
=============================================================================
