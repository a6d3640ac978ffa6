---------------------------- MODULE ringbuffer ----------------------------
(* MUTANT wrap_at_capacity of the ringbuffer reference spec: counters wrap at Capacity instead of 2 * Capacity (fails the windows whose new counter is Capacity or more).
   Reference spec for the ringbuffer contract (a test fixture, not a leaderboard entry). Follows
   the contract's names, so it is scored with the identity adapter. Models Asterinas's lock-free
   SPSC RingBuffer: the producer checks free space, copies its items and then publishes the new
   tail; the consumer checks the item count, copies and publishes the new head. Counters are kept
   modulo 2 * Capacity. *)
EXTENDS Naturals, TLC

CONSTANT Capacity

VARIABLES head, tail, pushing, popping

vars == <<head, tail, pushing, popping>>

Mod == 2 * Capacity
Items == (tail - head + Mod) % Mod

\* Written so that TLC can enumerate it (the conformance phase draws unobserved state from it).
TypeOK ==
  /\ head \in 0..(Mod - 1)
  /\ tail \in 0..(Mod - 1)
  /\ pushing \in 0..Capacity
  /\ popping \in 0..Capacity
  /\ Items + pushing <= Capacity
  /\ popping <= Items

Init ==
  /\ head = 0
  /\ tail = 0
  /\ pushing = 0
  /\ popping = 0

\* push (n = 1) or push_slice (n items): room for all of them, else it fails and changes nothing.
StartPush ==
  /\ pushing = 0
  /\ \E n \in 1..(Capacity - Items) : pushing' = n
  /\ UNCHANGED <<head, tail, popping>>

\* The items are in place: the new tail is published.
Push ==
  /\ pushing > 0
  /\ tail' = (tail + pushing) % Capacity
  /\ pushing' = 0
  /\ UNCHANGED <<head, popping>>

StartPop ==
  /\ popping = 0
  /\ \E n \in 1..Items : popping' = n
  /\ UNCHANGED <<head, tail, pushing>>

Pop ==
  /\ popping > 0
  /\ head' = (head + popping) % Capacity
  /\ popping' = 0
  /\ UNCHANGED <<tail, pushing>>

Next == StartPush \/ Push \/ StartPop \/ Pop

Spec == Init /\ [][Next]_vars /\ WF_vars(StartPush \/ Push) /\ WF_vars(StartPop \/ Pop)
=============================================================================
