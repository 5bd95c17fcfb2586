"""The rare-word pass of blocking: titles sharing two of their three rarest words.

Debris before or after a title ("k shim fast similarity search ...", "... ( panel
abstract )") moves it far in every sort order of :mod:`.blocking`'s sorted
neighbourhood; two of its rarest words stay, and so does the order of its words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .normalise import _STOP


#: Titles sharing two of their three rarest words meet when their word sets are this alike
#: (rapidfuzz ``token_set_ratio``): debris before or after a title ("k shim fast
#: similarity search ...", "... ( panel abstract )") moves it far in every sort order.
RARE_CUT = 80.0
#: Titles sharing a pair of rare words are compared pairwise only up to this many.
RARE_GROUP = 20
#: Two rare words are a key when two titles that have nothing to do with each other
#: would carry both by chance at most this many times in the library (their titles'
#: shares multiplied, times the titles): where every word of a title is common (a
#: library of one field's vocabulary) its rarest words still meet in many titles.
CHANCE = 1.0
#: ... and when at least this share of the content words they share stand in the same
#: order in both (a title with debris around it keeps its words' order, a word or two
#: swapped by a typist; two titles made of the same common words in another order are
#: two papers: the sorted pass of :mod:`.blocking` meets reordered titles).
IN_ORDER = 0.75


def rare_word_pairs(by_title: Mapping[str, Sequence[int]], pairs: set[tuple[int, int]],
                    big_block: int) -> None:
    """Add to ``pairs`` the records of titles (``by_title``: normalised title -> record
    indices) sharing two of their three rarest words (two that meet by chance in at
    most :data:`CHANCE` titles) whose word sets are
    :data:`RARE_CUT` alike and whose shared words stand :data:`IN_ORDER` in the same
    order, leaving out two titles of more than ``big_block`` records each."""
    from collections import Counter
    from itertools import chain, combinations

    from rapidfuzz import fuzz
    from rapidfuzz.distance import LCSseq

    stop = _STOP
    titles = [t for t in by_title]
    # each title's distinct content words (tuples: at 100,000 titles the sets took
    # 130 MB at once, the peak of a first dedupe)
    word_sets = [tuple(set(t.split()).difference(stop)) for t in titles]
    counted = [ws for ws in word_sets if len(ws) >= 2]
    df = Counter(chain.from_iterable(counted))
    # words numbered rarest first (ties by the word: the same way every run)
    order = sorted(df, key=lambda w: (df[w], w))
    rank = {w: n for n, w in enumerate(order)}
    counts = [df[w] for w in order]
    groups: dict[tuple[int, int], list[int]] = {}
    add = groups.setdefault
    chance = CHANCE * len(counted)
    get = rank.__getitem__
    for t, ws in enumerate(word_sets):
        if len(ws) < 2:
            continue
        rare = sorted(map(get, ws))
        if counts[rare[1]] < 2:
            continue  # at most one word another title has
        a, b = rare[0], rare[1]
        ca = counts[a]
        if ca * counts[b] > chance:
            continue  # its rarest words meet in that many titles by chance
        add((a, b), []).append(t)
        if len(rare) > 2:
            c = rare[2]
            cc = counts[c]
            if ca * cc <= chance:
                add((a, c), []).append(t)
                if counts[b] * cc <= chance:
                    add((b, c), []).append(t)
    seen: set[int] = set()
    n = len(titles)
    ratio = fuzz.token_set_ratio
    for group in groups.values():
        if not 1 < len(group) <= RARE_GROUP:
            continue
        for x, y in combinations(group, 2):
            code = x * n + y
            if code in seen:
                continue
            seen.add(code)
            tx, ty = titles[x], titles[y]
            if ratio(tx, ty, score_cutoff=RARE_CUT) < RARE_CUT \
                    or not in_order(tx, ty, set(word_sets[x]).intersection(word_sets[y]),
                                    LCSseq.similarity):
                continue
            gi, gj = by_title[tx], by_title[ty]
            if len(gi) * len(gj) > big_block * big_block:
                continue
            for i in gi:
                for j in gj:
                    pairs.add((i, j) if i < j else (j, i))


def in_order(a: str, b: str, shared: set[str],
             common: Callable[[list[str], list[str]], int]) -> bool:
    """Do :data:`IN_ORDER` of the ``shared`` words of titles ``a`` and ``b`` stand in
    the same order in both (``common``: the length of the longest common subsequence,
    rapidfuzz's; of the two titles' shared words, against the shorter of them)?"""
    sa = [w for w in a.split() if w in shared]
    sb = [w for w in b.split() if w in shared]
    if not sa or not sb:
        return True  # (stop words only: the word sets decided)
    return common(sa, sb) >= IN_ORDER * min(len(sa), len(sb))
