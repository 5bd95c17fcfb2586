"""Venues: journal and conference names, abbreviated or written out."""

from __future__ import annotations

import re
from functools import lru_cache

_PREPRINT_VENUE_RE = re.compile(r"rxiv|preprint|\bcorr\b|\bssrn\b|research square|submitted|"
                                r"in press|unpublished|working paper")


#: The marker Features.venue appends to a venue written cut short ("...", "&hellip;").
CUT = "\u2026cut"

_VENUE_STOP = frozenset("of the and in for on at de la le les des du der die das und et".split())


# words that say what kind of meeting or issue, not which: "Proc. of the 28th Intl. Conf. ..."
_VENUE_NOISE = frozenset("proc proceedings conference conf international intl annual "
                         "hellip symposium workshop meeting".split())
_ORDINAL_RE = re.compile(r"^\d+(?:st|nd|rd|th)?$")
# an ordinal written out or split ("twenty first", "21 st"): which meeting, not which venue
_ORDINAL_WORDS = frozenset(
    "st nd rd th first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
    "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
    "twentieth thirtieth fortieth fiftieth twenty thirty forty fifty sixty".split())


def _venue_words(venue: str) -> list[str]:
    """Venue words without stop words, years, ordinals (also written out: "twenty
    first") and "proceedings of the
    international conference" words (which say what kind of venue, not which)."""
    words = [t for t in venue.split() if t not in _VENUE_STOP and t not in _ORDINAL_WORDS
             and not _ORDINAL_RE.match(t)]
    core = [t for t in words if t not in _VENUE_NOISE]
    return core or words


def _unbrit(word: str) -> str:
    """haematology -> hematology, oesophagus -> esophagus (for comparing only)."""
    return word.replace("ae", "e").replace("oe", "e") if "e" in word else word


def _abbreviates(short: str, word: str) -> bool:
    """"natl" for "national", "j" for "journal": same first letter, letters in order."""
    if short == word or _unbrit(short) == _unbrit(word):
        return True
    if len(short) >= len(word) or short[0] != word[0]:
        return False
    for sh, w in ((short, word), (_unbrit(short), _unbrit(word))):
        it = iter(w)
        if all(c in it for c in sh):
            return True
    return False


def _aligned(short: list[str], long_: list[str], i: int = 0, j: int = 0,
             skips: int = 1) -> bool:
    """Is ``short`` an abbreviation of ``long_`` word by word, acronyms allowed
    ("n engl j med", "ieee tpami", "bmj"), with one word to spare on either side
    ("Med Clin (Barc)")?"""
    while i < len(short):
        s = short[i]
        if j < len(long_) and _abbreviates(s, long_[j]):
            i, j = i + 1, j + 1
            continue
        ends = [e for e in _acronym_ends(s, long_, j) if e - j >= 2] \
            if 2 <= len(s) <= 8 and s.isalpha() else []
        if any(_aligned(short, long_, i + 1, e, skips) for e in ends):
            return True
        if skips and len(short) > 1 and len(long_) > 1:
            return (_aligned(short, long_, i + 1, j, skips - 1)
                    or (j < len(long_) and _aligned(short, long_, i, j + 1, skips - 1)))
        return False
    return j == len(long_) or (skips > 0 and j == len(long_) - 1 and len(long_) > 2)


def _acronym_ends(s: str, words: list[str], j: int) -> list[int]:
    """Where an acronym ``s`` made of the starts of ``words[j:]`` can end ("tacl":
    Transactions of the ACL; "nejm")."""
    if not s:
        return [j]
    if j >= len(words):
        return []
    w = words[j]
    out: list[int] = []
    for p in range(min(len(w), len(s)), 0, -1):
        if s.startswith(w[:p]):
            out += _acronym_ends(s[p:], words, j + 1)
    return out


@lru_cache(maxsize=65536)
def venue_relation(a: str, b: str) -> str:
    """How two normalised venues relate: "same" (also abbreviated: "J Am Coll
    Cardiol", "NEJM"), "unclear" (one missing, a preprint server, or one a prefix
    of the other: "Lancet" / "Lancet Oncology"), or "different"."""
    from rapidfuzz import fuzz

    if not a or not b:
        return "unclear"
    if a == b:
        return "same"
    if _PREPRINT_VENUE_RE.search(a) or _PREPRINT_VENUE_RE.search(b):
        return "unclear"
    cut = False
    if CUT in a or CUT in b:
        a, b = a.replace(" " + CUT, ""), b.replace(" " + CUT, "")
        cut = True
    ta, tb = _venue_words(a), _venue_words(b)
    if not ta or not tb:
        return "unclear"
    if ta == tb or [_unbrit(t) for t in ta] == [_unbrit(t) for t in tb]:
        return "same"
    short, long_ = (ta, tb) if len(" ".join(ta)) <= len(" ".join(tb)) else (tb, ta)
    if _aligned(short, long_):
        return "same"
    if fuzz.ratio(" ".join(ta), " ".join(tb)) >= 90:
        return "same"
    if long_[:len(short)] == short or long_[-len(short):] == short:
        return "unclear"
    if len(short) < len(long_) and all(_abbreviates(x, y) for x, y in zip(short, long_, strict=False)):
        return "unclear"  # "VLDB J." / "The VLDB Journal: the international journal on ..."
    if len(short) <= 2 and set(short) <= set(long_) and any(len(w) >= 4 for w in short):
        return "unclear"  # "SIGMOD Conference" / "Proc. ACM SIGMOD Conf. on Management of Data"
    if cut:
        return "unclear"  # a venue cut short ("... on Very &hellip;") can't be told apart
    return "different"



