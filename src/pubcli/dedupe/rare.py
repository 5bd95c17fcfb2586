"""The rare-word pass of blocking: titles sharing two of their three rarest words.

Debris before or after a title ("k shim fast similarity search ...", "... ( panel
abstract )") moves it far in every sort order of :mod:`.blocking`'s sorted
neighbourhood; two of its rarest words stay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .normalise import _STOP


#: Titles sharing two of their three rarest words meet when their word sets are this alike
#: (rapidfuzz ``token_set_ratio``): debris before or after a title ("k shim fast
#: similarity search ...", "... ( panel abstract )") moves it far in every sort order.
RARE_CUT = 80.0
#: Titles sharing a pair of rare words are compared pairwise only up to this many.
RARE_GROUP = 20


def rare_word_pairs(by_title: Mapping[str, Sequence[int]], pairs: set[tuple[int, int]],
                    big_block: int) -> None:
    """Add to ``pairs`` the records of titles (``by_title``: normalised title -> record
    indices) sharing two of their three rarest words whose word sets are
    :data:`RARE_CUT` alike, leaving out two titles of more than ``big_block``
    records each."""
    from collections import Counter
    from itertools import combinations

    from rapidfuzz import fuzz

    stop = _STOP
    titles = [t for t in by_title]
    word_sets = [set(t.split()) - stop for t in titles]
    df: Counter[str] = Counter()
    for ws in word_sets:
        if len(ws) >= 2:
            df.update(ws)
    # words numbered rarest first (ties by the word: the same way every run)
    order = sorted(df, key=lambda w: (df[w], w))
    rank = {w: n for n, w in enumerate(order)}
    counts = [df[w] for w in order]
    groups: dict[tuple[int, int], list[int]] = {}
    add = groups.setdefault
    for t, ws in enumerate(word_sets):
        if len(ws) < 2:
            continue
        rare = sorted([rank[w] for w in ws])[:3]
        if counts[rare[1]] < 2:
            continue  # at most one word another title has
        for key in combinations(rare, 2):
            add(key, []).append(t)
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
            if ratio(tx, ty, score_cutoff=RARE_CUT) < RARE_CUT:
                continue
            gi, gj = by_title[tx], by_title[ty]
            if len(gi) * len(gj) > big_block * big_block:
                continue
            for i in gi:
                for j in gj:
                    pairs.add((i, j) if i < j else (j, i))
