------------------------- MODULE CommunityModulesCheck -------------------------
(* Every exported operator of our library modules, checked against values     *)
(* worked out by hand from the operators' documented meaning.                 *)
EXTENDS Integers, Sequences, FiniteSets, TLC, SequencesExt, FiniteSetsExt, Functions, Folds

ASSUME ToSet(<<1, 2, 2>>) = {1, 2}
ASSUME ToSet(<<>>) = {}
ASSUME SetToSeq({3}) = <<3>>
ASSUME ToSet(SetToSeq({1, 2, 3})) = {1, 2, 3} /\ Len(SetToSeq({1, 2, 3})) = 3
ASSUME SetToSeqs({1, 2}) = {<<1, 2>>, <<2, 1>>}
ASSUME SetToSortSeq({3, 1, 2}, <) = <<1, 2, 3>>
ASSUME SetToAllKPermutations({1, 2, 3}, 2) =
         {<<1, 2>>, <<2, 1>>, <<1, 3>>, <<3, 1>>, <<2, 3>>, <<3, 2>>}
ASSUME TupleOf({0, 1}, 2) = {<<0, 0>>, <<0, 1>>, <<1, 0>>, <<1, 1>>}
ASSUME SeqOf({"a"}, 2) = {<<>>, <<"a">>, <<"a", "a">>}
ASSUME BoundedSeq({1}, 1) = {<<>>, <<1>>}
ASSUME Contains(<<1, 2>>, 2) /\ ~Contains(<<1, 2>>, 3) /\ ~Contains(<<>>, 1)
ASSUME Reverse(<<1, 2, 3>>) = <<3, 2, 1>> /\ Reverse(<<>>) = <<>>
ASSUME Remove(<<1, 2, 1, 3>>, 1) = <<2, 3>>
ASSUME ReplaceAll(<<1, 2, 1>>, 1, 9) = <<9, 2, 9>>
ASSUME SelectInSeq(<<5, 6, 7, 6>>, LAMBDA x : x = 6) = 2
ASSUME SelectInSeq(<<5>>, LAMBDA x : x = 6) = 0
ASSUME SelectInSubSeq(<<6, 5, 6, 6>>, 2, 4, LAMBDA x : x = 6) = 3
ASSUME SelectLastInSeq(<<5, 6, 7, 6>>, LAMBDA x : x = 6) = 4
ASSUME SelectLastInSubSeq(<<6, 6, 5, 6>>, 1, 3, LAMBDA x : x = 6) = 2
ASSUME SelectLastInSeq(<<>>, LAMBDA x : TRUE) = 0
ASSUME InsertAt(<<1, 3>>, 2, 2) = <<1, 2, 3>> /\ InsertAt(<<1>>, 2, 2) = <<1, 2>>
ASSUME ReplaceAt(<<1, 2, 3>>, 2, 9) = <<1, 9, 3>>
ASSUME RemoveAt(<<1, 2, 3>>, 2) = <<1, 3>> /\ RemoveAt(<<1>>, 1) = <<>>
ASSUME Cons(0, <<1, 2>>) = <<0, 1, 2>>
ASSUME Front(<<1, 2, 3>>) = <<1, 2>> /\ Front(<<1>>) = <<>>
ASSUME Last(<<1, 2, 3>>) = 3
ASSUME IsPrefix(<<1, 2>>, <<1, 2, 3>>) /\ IsPrefix(<<>>, <<1>>) /\ ~IsPrefix(<<2>>, <<1, 2>>)
ASSUME IsPrefix(<<1>>, <<1>>) /\ ~IsStrictPrefix(<<1>>, <<1>>) /\ IsStrictPrefix(<<1>>, <<1, 2>>)
ASSUME ~IsPrefix(<<1, 2, 3>>, <<1, 2>>)
ASSUME IsSuffix(<<2, 3>>, <<1, 2, 3>>) /\ ~IsSuffix(<<1, 2>>, <<1, 2, 3>>)
ASSUME IsStrictSuffix(<<3>>, <<2, 3>>) /\ ~IsStrictSuffix(<<3>>, <<3>>)
ASSUME Prefixes(<<1, 2>>) = {<<>>, <<1>>, <<1, 2>>}
ASSUME Suffixes(<<1, 2>>) = {<<>>, <<2>>, <<1, 2>>}
ASSUME CommonPrefixes({<<1, 2, 3>>, <<1, 2, 4>>}) = {<<>>, <<1>>, <<1, 2>>}
ASSUME LongestCommonPrefix({<<1, 2, 3>>, <<1, 2, 4>>, <<1, 2>>}) = <<1, 2>>
ASSUME LongestCommonPrefix({<<1>>, <<2>>}) = <<>>
ASSUME SeqMod(3, 3) = 3 /\ SeqMod(4, 3) = 1 /\ SeqMod(0, 3) = 3
ASSUME FoldLeft(LAMBDA a, b : a - b, 10, <<1, 2, 3>>) = 4
ASSUME FoldRight(LAMBDA a, b : a - b, <<1, 2, 3>>, 10) + 8 = 0
ASSUME FoldSeq(LAMBDA x, acc : acc + x, 0, <<1, 2, 3>>) = 6
ASSUME FlattenSeq(<<<<1, 2>>, <<>>, <<3>>>>) = <<1, 2, 3>>
ASSUME Zip(<<1, 2>>, <<"a", "b">>) = <<<<1, "a">>, <<2, "b">>>>
ASSUME Interleave(<<1, 2>>, <<"a", "b">>) = <<1, "a", 2, "b">>
ASSUME SubSeqs(<<1, 2>>) = {<<>>, <<1>>, <<2>>, <<1, 2>>}
ASSUME IndexFirstSubSeq(<<2, 3>>, <<1, 2, 3, 2, 3>>) = 2
ASSUME IndexFirstSubSeq(<<4>>, <<1, 2>>) = 0 /\ IndexFirstSubSeq(<<1, 2, 3>>, <<1, 2>>) = 0
ASSUME ReplaceSubSeqAt(2, <<9>>, <<2, 3>>, <<1, 2, 3, 4>>) = <<1, 9, 4>>
ASSUME ReplaceFirstSubSeq(<<9>>, <<2>>, <<1, 2, 2>>) = <<1, 9, 2>>
ASSUME ReplaceFirstSubSeq(<<9>>, <<5>>, <<1, 2>>) = <<1, 2>>
ASSUME ReplaceAllSubSeqs(<<9>>, <<2>>, <<1, 2, 2, 3>>) = <<1, 9, 9, 3>>
ASSUME ReplaceAllSubSeqs(<<9>>, <<2, 2>>, <<2, 2, 2>>) = <<9, 2>>
ASSUME ReplaceAllSubSeqs(<<0>>, <<>>, <<1, 2>>) = <<0, 1, 0, 2, 0>>

ASSUME FoldSet(LAMBDA x, acc : x + acc, 0, {1, 2, 3}) = 6
ASSUME ReduceSet(LAMBDA x, acc : x + acc, {1, 2}, 10) = 13
ASSUME Sum({1, 2, 3}) = 6 /\ Sum({}) = 0
ASSUME Product({2, 3, 4}) = 24 /\ Product({}) = 1
ASSUME FlattenSet({{1}, {2, 3}, {}}) = {1, 2, 3}
ASSUME SymDiff({1, 2}, {2, 3}) = {1, 3}
ASSUME Quantify({1, 2, 3, 4}, LAMBDA x : x % 2 = 0) = 2
ASSUME kSubset(2, {1, 2, 3}) = {{1, 2}, {1, 3}, {2, 3}} /\ kSubset(0, {1}) = {{}}
ASSUME Max({3, 1, 2}) = 3 /\ Min({3, 1, 2}) = 1
ASSUME Choices({{1, 2}, {3}}) = {[s \in {{1, 2}, {3}} |-> IF s = {3} THEN 3 ELSE x] : x \in {1, 2}}
ASSUME ChooseUnique({1, 2, 3}, LAMBDA x : x > 2) = 3

ASSUME Range([x \in {1, 2} |-> x * 10]) = {10, 20}
ASSUME Restrict([x \in 1..3 |-> x], {1, 2}) = [x \in 1..2 |-> x]
ASSUME RestrictDomain([x \in 1..4 |-> x * x], LAMBDA x : x > 2) = [x \in 3..4 |-> x * x]
ASSUME RestrictValues([x \in 1..4 |-> x * x], LAMBDA v : v < 5) = [x \in 1..2 |-> x * x]
ASSUME Inverse([x \in 1..3 |-> x + 1], 1..3, 2..4) = [y \in 2..4 |-> y - 1]
ASSUME AntiFunction(<<"a", "b">>) = [v \in {"a", "b"} |-> IF v = "a" THEN 1 ELSE 2]
ASSUME IsInjective(<<1, 2>>) /\ ~IsInjective(<<1, 1>>)
ASSUME IsSurjective(<<1, 2>>, 1..2, {1, 2}) /\ ~IsSurjective(<<1, 1>>, 1..2, {1, 2})
ASSUME IsBijection(<<2, 1>>, 1..2, {1, 2}) /\ ~IsBijection(<<1, 1>>, 1..2, {1, 2})
ASSUME Injection({1, 2}, {"a"}) = {} /\ Cardinality(Injection({1, 2}, {"a", "b", "c"})) = 6
ASSUME Cardinality(Surjection({1, 2, 3}, {"a", "b"})) = 6 /\ Surjection({1}, {"a", "b"}) = {}
ASSUME Cardinality(Bijection(1..3, {"a", "b", "c"})) = 6
ASSUME ExistsInjection(1..2, 1..3) /\ ~ExistsInjection(1..3, 1..2)
ASSUME ExistsSurjection(1..3, 1..2) /\ ~ExistsSurjection(1..2, 1..3)
ASSUME ExistsBijection(1..2, {"a", "b"}) /\ ~ExistsBijection(1..2, 1..3)
ASSUME FoldFunction(LAMBDA x, acc : x + acc, 0, <<1, 2, 3>>) = 6
ASSUME FoldFunctionOnSet(LAMBDA x, acc : x + acc, 0, <<1, 2, 3>>, {1, 3}) = 4
ASSUME MapThenFoldSet(LAMBDA x, acc : x + acc, 0, LAMBDA x : x * x, LAMBDA s : CHOOSE x \in s : TRUE, {1, 2, 3}) = 14
ASSUME MapThenFoldSet(LAMBDA x, acc : <<x>> \o acc, <<>>, LAMBDA x : x,
                      LAMBDA s : CHOOSE x \in s : \A y \in s : x <= y, {3, 1, 2}) = <<1, 2, 3>>

VARIABLE x
Init == x = 0
Next == UNCHANGED x
================================================================================
