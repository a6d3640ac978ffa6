------------------------------- MODULE Folds -------------------------------
(* Written for the SysMoBench leaderboard from the documented meaning of the   *)
(* CommunityModules operator; plain TLA+, no Java override.                    *)

(* Fold the set S: pick an element x with choose, map it with f, combine it   *)
(* with op into the fold of the remaining elements; base for the empty set.   *)
MapThenFoldSet(op(_, _), base, f(_), choose(_), S) ==
    LET RECURSIVE Iter(_)
        Iter(s) == IF s = {} THEN base
                   ELSE LET x == choose(s) IN op(f(x), Iter(s \ {x}))
    IN Iter(S)
=============================================================================
