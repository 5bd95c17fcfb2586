"""Extra block keys: a title written whole at the start or end of a longer one.

A citation index runs debris into a title before and after it ("the mv3r tree : ...
queries - group of 4 &raquo;", "conference tutorial notes : data mining
techniques", a title followed by its abstract's first line). The debris can be the
rarest words of the longer title and moves it in every sort order, so neither the
sorted neighbourhood nor the rare-word pass of :mod:`.blocking` offers the pair;
here a title meets every longer title that starts (after a stop word: "the", "on")
or ends with it, at a word boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from .features import Features
from .normalise import _STOP
from .people import _close_name
from . import windows

if TYPE_CHECKING:
    from .blockcache import Before, Pass
    from .blocking import Index

#: A title is looked for at the start and end of longer ones when it has this many
#: content words (shorter ones start many titles: "data mining").
MIN_CONTENT = 3
#: At most this many longer titles are taken per title and end (the head "a study of"
#: is no key).
GROUP = 20


def contained_pairs(index: Index, pairs: set[tuple[int, int]], big_block: int,
                    changed: Sequence[tuple[str, str, str]] | None = None,
                    before: Before | None = None,
                    new: dict[str, Pass] | None = None) -> None:
    """Add to ``pairs`` the records of every title of :data:`MIN_CONTENT` content words
    or more and of a longer title starting (after a stop word) or ending with it whole,
    when they share a family name (or one names nobody), leaving out two titles of more
    than ``big_block`` records each. (Without a person in common, a title inside
    another is mostly a shorter paper's title inside a longer one's: many pairs, few
    duplicates.) Two sorted lists, each title's longer forms just after it: no search.
    With ``before`` (what blocking kept for the version before) and ``changed`` (the
    titles of the records added or removed since, :func:`.blocking.block`) the lists
    are patched (:mod:`.windows`); ``new``: where this version's are put."""
    by_title = index.by_title
    feats = index.feats
    stop = _STOP
    # the sorted keys of blocking's title and reversed-title passes, when given: every
    # title, and every title's end, in sort order already (a sort of 100,000 tuples
    # is then a merge of two runs)
    in_order = None if new is None or "titles" not in new or "reversed" not in new \
        else (new["titles"][0][0], new["reversed"][0][0])

    def heads() -> Collection[tuple[str, str, bool]]:
        if in_order is not None:
            out = []  # (key, title, the title itself?)
            rest_of = []
            for t in in_order[0]:
                if t in by_title:
                    out.append((t, t, True))
                    first, _, rest = t.partition(" ")
                    if rest and first in stop:
                        rest_of.append((rest, t, False))
            rest_of.sort()
            return out + rest_of
        got: set[tuple[str, str, bool]] = set()
        for t in by_title:
            got.update(_heads(t, stop))
        return got

    def ends() -> list[tuple[str, str, bool]]:
        if in_order is not None:
            return [(r, r[::-1], True) for r in in_order[1]]
        return [(t[::-1], t, True) for t in by_title]

    def is_head(k: tuple[str, str, bool]) -> bool:
        return k[1] in by_title and k in _heads(k[1], stop)

    def is_end(k: tuple[str, str, bool]) -> bool:
        return k[1] in by_title and k[2] is True and k[0] == k[1][::-1]

    lists: list[tuple[str, Callable[[], Collection[tuple[str, str, bool]]],
                      Callable[[tuple[str, str, bool]], bool],
                      Callable[[str], list[tuple[str, str, bool]]]]] = [
        ("heads", heads, is_head, lambda t: _heads(t, stop)),
        ("ends", ends, is_end,
         lambda t: [(t[::-1], t, True)])]
    for name, every, present, keys_of in lists:
        # a title's longer forms follow it in sort order (a space sorts before letters)
        rows, found, kept, change = windows.run(
            every, present,
            None if changed is None else (k for r in changed if r[0] for k in keys_of(r[0])),
            GROUP, _longer, None if before is None else before.kept(name, (tuple,), GROUP))
        if new is not None:
            new[name] = (kept, change)
        for k, j in found:
            long_, short = rows[j][1], rows[k][1]
            gi, gj = by_title[long_], by_title[short]
            if len(gi) * len(gj) > big_block * big_block:
                continue
            for i in gi:
                for j2 in gj:
                    if i != j2 and _a_person_in_common(feats[i], feats[j2]):
                        pairs.add((i, j2) if i < j2 else (j2, i))


def _heads(t: str, stop: frozenset[str] | set[str]) -> list[tuple[str, str, bool]]:
    """The keys a title is looked for by at the start of longer ones: itself, and
    without a first stop word ("the x", "on x": x)."""
    first, _, rest = t.partition(" ")
    if rest and first in stop:
        return [(t, t, True), (rest, t, False)]
    return [(t, t, True)]


def _longer(rows: list[tuple[str, str, bool]], k: int) -> list[int]:
    """The positions after ``k`` (at most :data:`GROUP`) of the sorted ``rows`` whose key
    starts with row k's key and a space, or is it, for a title long enough (another
    title's)."""
    key, short, itself = rows[k]
    needle = key + " "
    n = len(rows)
    nxt = rows[k + 1][0]
    if not itself or not (nxt.startswith(needle) or nxt == key) or not _long_enough(short):
        return []
    out = []
    for j in range(k + 1, min(n, k + 1 + GROUP)):
        other, long_, _ = rows[j]
        if not (other.startswith(needle) or other == key):
            break
        if long_ != short:
            out.append(j)
    return out


def _long_enough(title: str) -> bool:
    return sum(1 for w in title.split() if w not in _STOP) >= MIN_CONTENT


def _a_person_in_common(a: Features, b: Features) -> bool:
    if not a.authors or not b.authors:
        return True
    if not a.author_index.keys().isdisjoint(b.author_index.keys()):
        return True
    names = [p.last[-1] for p in b.authors]  # or nearly: "rosenblatt" / "rosneblatt"
    return any(_close_name(p.last[-1], y) for p in a.authors for y in names)
