"""Letters of other scripts that a reader takes for Latin letters or digits, and their Latin
skeleton: the idea of Unicode TR39's "confusable" skeleton, cut down to what a model name needs.

Decision (docs/decisions/0029-abuse-bounds.md): a small table written here rather than a
dependency. The two pure-Python packages on PyPI do not fit: `confusable-homoglyphs` (3.3.1)
tells whether a string mixes scripts dangerously but gives no skeleton to compare two names by,
and `confusables` (1.2.0) ships a 2.7 MB map and returns every possible normal form of a string
(a product that grows with its length). The pairs below are entries of TR39's confusables.txt
whose target is an ASCII letter or digit, for the scripts of the letters an impersonator reaches
for: Cyrillic, Greek, Armenian and a few Latin variants. Fullwidth and mathematical letters need
no entry: NFKC already makes them ASCII. Left out on purpose: pairs TR39 maps to a letter that
is not ASCII (Cyrillic "н" to small capital H, Greek "κ" to "ĸ"), which no ASCII name can match,
and pairs inside ASCII ("l"/"I"/"1", "O"/"0"), whose folding would refuse honest version names
such as "GPT-4o" next to a "GPT-40".

Upper and lower case are both listed because a capital can look like a Latin capital when its
small letter does not (Greek "Η" is "H", its "η" is "n"); the table is read before case folding.
"""

from __future__ import annotations

# Each pair: the look-alike letter, then the ASCII letter or digit it is read as.
_PAIRS = (
    # Cyrillic capitals
    "АA ВB ЕE ЅS ІI ЈJ КK МM НH ОO РP СC ТT ХX ҮY ԚQ ԜW ӀI З3"
    # Cyrillic small letters
    " аa еe оo рp сc уy хx ѕs іi јj һh ԁd ԛq ԝw ӏl үy б6"
    # Greek capitals
    " ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX ϹC"
    # Greek small letters
    " αa γy ηn ιi νv οo ρp σo υu ϲc ϳj"
    # Armenian
    " ՕO ՍU ՏS աw զq հh լl ոn սu ցg օo"
    # Latin letters outside ASCII that NFKD leaves alone
    " ıi ɑa ɡg"
)

LOOKALIKES: dict[str, str] = {pair[0]: pair[1] for pair in _PAIRS.split()}
