---------------------------- MODULE SequencesExt ----------------------------
(* Written for the SysMoBench leaderboard from the documented meaning of the   *)
(* CommunityModules operators; plain TLA+, no Java override. Helpers are LOCAL *)
(* so specs that define Max, Min or Range themselves do not clash.             *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets
LOCAL INSTANCE TLC
LOCAL INSTANCE Functions
LOCAL INSTANCE Folds

LOCAL MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
LOCAL MaxOf(S) == CHOOSE x \in S : \A y \in S : x >= y

ToSet(s) == {s[i] : i \in DOMAIN s}

SetToSeqs(S) == {f \in [1..Cardinality(S) -> S] : IsInjective(f)}

SetToSeq(S) == CHOOSE f \in [1..Cardinality(S) -> S] : IsInjective(f)

SetToSortSeq(S, op(_, _)) == SortSeq(SetToSeq(S), op)

SetToAllKPermutations(S, k) ==
    UNION {SetToSeqs(s) : s \in {t \in SUBSET S : Cardinality(t) = k}}

TupleOf(set, n) == [1..n -> set]

SeqOf(set, n) == UNION {[1..m -> set] : m \in 0..n}

BoundedSeq(S, N) == SeqOf(S, N)

Contains(s, e) == \E i \in 1..Len(s) : s[i] = e

Reverse(s) == [i \in 1..Len(s) |-> s[(Len(s) - i) + 1]]

Remove(s, e) == SelectSeq(s, LAMBDA t : t # e)

ReplaceAll(s, old, new) == [i \in 1..Len(s) |-> IF s[i] = old THEN new ELSE s[i]]

SelectInSeq(seq, Test(_)) ==
    LET I == {i \in 1..Len(seq) : Test(seq[i])} IN IF I # {} THEN MinOf(I) ELSE 0

SelectInSubSeq(s, from, to, Test(_)) ==
    LET r == SelectInSeq(SubSeq(s, from, to), Test) IN IF r > 0 THEN r + from - 1 ELSE 0

SelectLastInSeq(seq, Test(_)) ==
    LET I == {i \in 1..Len(seq) : Test(seq[i])} IN IF I # {} THEN MaxOf(I) ELSE 0

SelectLastInSubSeq(s, from, to, Test(_)) ==
    LET r == SelectLastInSeq(SubSeq(s, from, to), Test) IN IF r > 0 THEN r + from - 1 ELSE 0

InsertAt(s, i, e) == SubSeq(s, 1, i - 1) \o <<e>> \o SubSeq(s, i, Len(s))

ReplaceAt(s, i, e) == [s EXCEPT ![i] = e]

RemoveAt(s, i) == SubSeq(s, 1, i - 1) \o SubSeq(s, i + 1, Len(s))

Cons(elt, seq) == <<elt>> \o seq

Front(s) == SubSeq(s, 1, Len(s) - 1)

Last(s) == s[Len(s)]

IsPrefix(s, t) == Len(s) <= Len(t) /\ SubSeq(t, 1, Len(s)) = s

IsStrictPrefix(s, t) == IsPrefix(s, t) /\ s # t

IsSuffix(s, t) == IsPrefix(Reverse(s), Reverse(t))

IsStrictSuffix(s, t) == IsSuffix(s, t) /\ s # t

Prefixes(s) == {SubSeq(s, 1, l) : l \in 0..Len(s)}

CommonPrefixes(S) ==
    LET P == UNION {Prefixes(seq) : seq \in S} IN {p \in P : \A t \in S : IsPrefix(p, t)}

LongestCommonPrefix(S) ==
    CHOOSE longest \in CommonPrefixes(S) :
        \A other \in CommonPrefixes(S) : Len(other) <= Len(longest)

Suffixes(s) == {SubSeq(s, l, Len(s)) : l \in 1..Len(s) + 1}

SeqMod(a, b) == IF a % b = 0 THEN b ELSE a % b

FoldLeft(op(_, _), base, seq) ==
    LET RECURSIVE Go(_, _)
        Go(acc, i) == IF i > Len(seq) THEN acc ELSE Go(op(acc, seq[i]), i + 1)
    IN Go(base, 1)

FoldRight(op(_, _), seq, base) ==
    LET RECURSIVE Go(_, _)
        Go(acc, i) == IF i < 1 THEN acc ELSE Go(op(seq[i], acc), i - 1)
    IN Go(base, Len(seq))

FoldSeq(op(_, _), base, seq) == FoldRight(op, seq, base)

FlattenSeq(seqs) == FoldLeft(LAMBDA acc, s : acc \o s, <<>>, seqs)

Zip(s, t) == [i \in 1..Len(s) |-> <<s[i], t[i]>>]

Interleave(s, t) == [i \in 1..(2 * Len(s)) |-> IF i % 2 = 1 THEN s[(i + 1) \div 2] ELSE t[i \div 2]]

SubSeqs(s) == {SubSeq(s, i + 1, j) : i, j \in 0..Len(s)}

IndexFirstSubSeq(s, t) ==
    LET I == {i \in 1..(Len(t) - Len(s) + 1) : SubSeq(t, i, i + Len(s) - 1) = s}
    IN IF I = {} THEN 0 ELSE MinOf(I)

ReplaceSubSeqAt(i, r, s, t) == SubSeq(t, 1, i - 1) \o r \o SubSeq(t, i + Len(s), Len(t))

ReplaceFirstSubSeq(r, s, t) ==
    LET i == IndexFirstSubSeq(s, t) IN IF i > 0 THEN ReplaceSubSeqAt(i, r, s, t) ELSE t

(* Non-overlapping occurrences, left to right; an empty s matches before every *)
(* element and at the end.                                                     *)
ReplaceAllSubSeqs(r, s, t) ==
    LET RECURSIVE Go(_)
        Go(u) == IF Len(s) = 0
                 THEN IF u = <<>> THEN r ELSE r \o <<Head(u)>> \o Go(Tail(u))
                 ELSE LET i == IndexFirstSubSeq(s, u)
                      IN IF i = 0 THEN u
                         ELSE SubSeq(u, 1, i - 1) \o r \o Go(SubSeq(u, i + Len(s), Len(u)))
    IN Go(t)
=============================================================================
