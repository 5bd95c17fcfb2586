"""Sorted-neighbourhood passes patched across versions of a file: a window's hits
found again only where its keys changed.

A pass of :mod:`.blocking` sorts its keys (titles, titles in sorted word order,
reversed titles, a title's heads) and looks at each key's next few (its window);
what it finds at a position is a function of the keys in that window alone. Given
the sorted keys and hits of the version before (:mod:`.blockcache`) and the keys
that may have come or gone (those of the records added or removed), the sorted order
is patched, every window whose keys are the same as before keeps its hits, and only
the windows an added or removed key falls in are searched again: the hits a search
of every window finds, exactly.
"""

from __future__ import annotations

import bisect
import operator
from array import array
from collections.abc import Callable, Collection, Iterable
from itertools import islice
from typing import Any

#: Above this share of keys added or removed, the pass is run afresh.
FRESH_SHARE = 0.2

#: One pass as kept: (the sorted keys, each hit's position, each hit's offset to the
#: key it found)
Kept = tuple[list, bytes, bytes]
#: ``search(keys, p)``: the positions q, p < q <= p + window, that key p finds (reading
#: ``keys[p:p + window + 1]`` only)
Search = Callable[[list, int], Iterable[int]]
#: (the keys gone, the keys added), each sorted
Change = tuple[list, list]


def run(every: Callable[[], Collection[Any]], present: Callable[[Any], bool],
        maybe: Iterable[Any] | None, window: int, search: Search, old: Kept | None
        ) -> tuple[list, list[tuple[int, int]], Kept, Change | None]:
    """One pass: its sorted keys, its hits (p, q) in order, what to keep, and the keys
    gone and added since ``old`` (None when run afresh). ``every()``: all the keys
    (distinct); ``present(key)``: is it one of them; ``maybe``: every key that may have
    come or gone since ``old`` (what this kept for the version before), None when not
    known (the pass is then run afresh)."""
    if old is not None and maybe is not None:
        got = _patched(present, set(maybe), window, search, old)
        if got is not None:
            return got
    keys = sorted(every())
    found = [(p, q) for p in range(len(keys) - 1) for q in search(keys, p)]
    return keys, found, _kept(keys, found), None


def _arrays(kept: Kept) -> tuple[array, array]:
    ps, offs = array("I"), array("I")
    ps.frombytes(kept[1])
    offs.frombytes(kept[2])
    return ps, offs


def _kept(keys: list, found: list[tuple[int, int]]) -> Kept:
    return (keys, array("I", [p for p, _ in found]).tobytes(),
            array("I", [q - p for p, q in found]).tobytes())


def _had(keys: list, k: Any) -> int:
    """The position of ``k`` in the sorted ``keys``, -1 when it is not there."""
    i = bisect.bisect_left(keys, k)
    return i if i < len(keys) and keys[i] == k else -1


def _patched(present: Callable[[Any], bool], maybe: set, window: int, search: Search,
             old: Kept) -> tuple[list, list[tuple[int, int]], Kept, Change] | None:
    before = old[0]
    gone = sorted(j for j in (_had(before, k) for k in maybe if not present(k)) if j >= 0)
    added = sorted(k for k in maybe if present(k) and _had(before, k) < 0)
    if not gone and not added:
        ps, offs = _arrays(old)
        return before, [(p, p + o) for p, o in zip(ps, offs, strict=True)], old, ([], [])
    if len(gone) + len(added) > FRESH_SHARE * max(len(before), 1):
        return None
    bisect_left = bisect.bisect_left
    keys = list(before)
    for j in reversed(gone):
        del keys[j]
    for k in added:
        bisect.insort(keys, k)
    n = len(keys)
    dirty = set(range(max(0, n - 1 - window), n))  # the last windows are shorter
    for k in added:
        i = bisect_left(keys, k)
        dirty.update(range(max(0, i - window), i + 1))
    for j in gone:  # the windows that held a key that left
        x = bisect_left(keys, before[j])
        dirty.update(range(max(0, x - window), x))
    gone_set = set(gone)
    found = []
    ps, offs = _arrays(old)
    for a, o in zip(ps, offs, strict=True):
        if a in gone_set:
            continue
        p = a - bisect_left(gone, a) + bisect_left(added, before[a])
        if p not in dirty:
            found.append((p, p + o))
    for p in dirty:
        if p < n - 1:
            found.extend((p, q) for q in search(keys, p))
    found.sort()
    return keys, found, _kept(keys, found), ([before[j] for j in gone], added)


def patch(keys: list, gone: Iterable[Any], added: Iterable[Any]) -> list:
    """The sorted ``keys`` without ``gone`` and with ``added`` (few of either)."""
    out = list(keys)
    for j in sorted((_had(out, k) for k in gone), reverse=True):
        if j >= 0:
            del out[j]
    for k in added:
        if _had(out, k) < 0:
            bisect.insort(out, k)
    return out


def valid(data: Any, kinds: tuple[type, ...], window: int) -> Kept | None:
    """``data`` as a kept pass of ``window``, or None when it is not one (keys of the
    types ``kinds``, sorted and distinct; hits inside them and their windows)."""
    try:
        keys, first, offsets = data
        if not isinstance(keys, list) or not isinstance(first, bytes) \
                or not isinstance(offsets, bytes) or len(first) != len(offsets) \
                or len(first) % array("I").itemsize:
            return None
        if not set(map(type, keys)) <= set(kinds) \
                or not all(map(operator.lt, keys, islice(keys, 1, None))):
            return None  # (sorted and distinct)
        ps, offs = _arrays((keys, first, offsets))
        if ps and (max(ps) >= len(keys) or min(offs) < 1 or max(offs) > window
                   or max(p + o for p, o in zip(ps, offs, strict=True)) >= len(keys)):
            return None
    except (TypeError, ValueError):
        return None
    return keys, first, offsets
