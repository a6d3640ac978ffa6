--------------------------- MODULE FiniteSetsExt ---------------------------
(* Written for the SysMoBench leaderboard from the documented meaning of the   *)
(* CommunityModules operators; plain TLA+, no Java override.                   *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE FiniteSets
LOCAL INSTANCE Folds

FoldSet(op(_, _), base, set) ==
    MapThenFoldSet(op, base, LAMBDA x : x, LAMBDA s : CHOOSE x \in s : TRUE, set)

ReduceSet(op(_, _), set, acc) == FoldSet(op, acc, set)

Sum(set) == FoldSet(LAMBDA x, y : x + y, 0, set)

Product(set) == FoldSet(LAMBDA x, y : x * y, 1, set)

FlattenSet(S) == UNION S

SymDiff(A, B) == (A \ B) \cup (B \ A)

Quantify(S, P(_)) == Cardinality({s \in S : P(s)})

kSubset(k, S) == {s \in SUBSET S : Cardinality(s) = k}

Max(S) == CHOOSE x \in S : \A y \in S : x >= y

Min(S) == CHOOSE x \in S : \A y \in S : x <= y

Choices(Sets) == {f \in [Sets -> UNION Sets] : \A S \in Sets : f[S] \in S}

ChooseUnique(S, P(_)) == CHOOSE x \in S : P(x) /\ \A y \in S : P(y) => y = x
=============================================================================
