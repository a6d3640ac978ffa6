----------------------------- MODULE Functions -----------------------------
(* Written for the SysMoBench leaderboard from the documented meaning of the   *)
(* CommunityModules operators; plain TLA+, no Java override.                   *)
LOCAL INSTANCE Folds

Restrict(f, S) == [x \in S |-> f[x]]

RestrictDomain(f, Test(_)) == [x \in {y \in DOMAIN f : Test(y)} |-> f[x]]

RestrictValues(f, Test(_)) == [x \in {y \in DOMAIN f : Test(f[y])} |-> f[x]]

Range(f) == {f[x] : x \in DOMAIN f}

Inverse(f, S, T) == [t \in T |-> CHOOSE s \in S : t \in Range(f) => f[s] = t]

AntiFunction(f) == Inverse(f, DOMAIN f, Range(f))

IsInjective(f) == \A a, b \in DOMAIN f : f[a] = f[b] => a = b

IsSurjective(f, S, T) == \A t \in T : \E s \in S : f[s] = t

IsBijection(f, S, T) == IsInjective(f) /\ IsSurjective(f, S, T)

Injection(S, T) == {M \in [S -> T] : IsInjective(M)}

Surjection(S, T) == {M \in [S -> T] : IsSurjective(M, S, T)}

Bijection(S, T) == Injection(S, T) \cap Surjection(S, T)

ExistsInjection(S, T) == Injection(S, T) # {}

ExistsSurjection(S, T) == Surjection(S, T) # {}

ExistsBijection(S, T) == Bijection(S, T) # {}

FoldFunction(op(_, _), base, fun) ==
    MapThenFoldSet(op, base, LAMBDA i : fun[i], LAMBDA s : CHOOSE x \in s : TRUE, DOMAIN fun)

FoldFunctionOnSet(op(_, _), base, fun, indices) ==
    MapThenFoldSet(op, base, LAMBDA i : fun[i], LAMBDA s : CHOOSE x \in s : TRUE, indices)
=============================================================================
