"""From candidate pairs to groups: a :class:`~.matcher.Matcher`'s links (the pairs that
match), the clusters they join (:mod:`.clusters`), the notes on what was left apart, and
the links cache, so the next command on an unchanged file reads its links back."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from . import matchcache, paircache
from .clusters import cluster
from .evidence import Comparison
from .explain import Verdict
from .groups import Group, Link, pair_key
from .vetoes import Veto, VetoKind

if TYPE_CHECKING:
    from .matcher import Matcher


#: The match probability (percent) a pair needs, no veto applying: the lowest at
#: which the labelled development sets (two systematic-review exports, the bib-dedupe
#: hard cases) have no false-positive record (at 97 a title-and-year-only pair joins)
#: and the project's hard non-duplicates (tests/data/dedupe/hard_cases.bib) stay apart;
#: DBLP vs Google Scholar has pair F1 0.86-0.87 from 97 to 98. See
#: ``bench/bench_dedupe.py devsets`` and ``sweep``.
DEFAULT_THRESHOLD = 98.0
#: Two groups are not joined when a cross pair's probability is below this (percent),
#: or when the pair does not match and one field speaks this strongly against it (bits).
CHAIN_FLOOR = 50.0
AGAINST = -6.0


def groups(m: Matcher, distinct: Iterable[tuple[str, str]] = (),
           progress: Callable[[int, int], None] | None = None) -> list[Group]:
    """The groups of duplicates among ``m``'s records, none joining a pair marked as
    distinct; ``progress(done, 1000)`` as it goes."""
    skip = {pair_key(a, b) for a, b in distinct}
    feats = m.index.feats

    def report(done: float, start: int, width: int) -> None:
        if progress is not None:
            progress(start + int(width * done), 1000)

    report(1, 0, 100)
    kept = read_links(m, skip)
    if kept is not None:
        link_pairs, comparisons = kept
        for pair, cmp in comparisons.items():
            m._compared.setdefault(pair, cmp)
        links = [(i, j, m.judge(i, j)) for i, j in link_pairs]
    else:
        links = _links(m, skip, lambda d: report(d, 100, 400))
    report(1, 0, 700)
    judged: set[tuple[int, int]] = set()

    def separated(x: int, y: int) -> object | None:
        kx, ky = feats[x].record.key, feats[y].record.key
        if skip and pair_key(kx, ky) in skip:
            return Veto(VetoKind.MARKED, "marked as not duplicates")
        judged.add((x, y) if x < y else (y, x))
        v = m.judge(x, y, min(m.threshold, DEFAULT_THRESHOLD))
        if v.vetoes:
            return v.vetoes[0]
        if v.score < CHAIN_FLOOR or (not v.duplicate and any(
                c.weight <= AGAINST for c in v.contributions)):
            return v
        return None

    out = []
    for c in cluster(len(feats), links, lambda v: v.weight, separated):
        members = sorted(c.members, key=lambda n: m.position[n])
        recs = [feats[n].record for n in members]
        glinks = sorted(c.links, key=lambda t: (min(m.position[t[0]], m.position[t[1]]),
                                                max(m.position[t[0]],
                                                    m.position[t[1]])))
        notes = []
        for i, j, x, y, why in c.apart:
            text = str(why)
            if isinstance(why, Verdict):
                worst = min(why.contributions, key=lambda c: c.weight, default=None)
                text = why.summary + (f"; {worst}" if worst is not None else "")
            notes.append(f"{feats[i].record.key} ~ {feats[j].record.key} left apart: "
                         f"{feats[x].record.key} / {feats[y].record.key}: {text}")
        out.append(Group(recs, [Link(feats[i].record, feats[j].record, v)
                                for i, j, v in glinks],
                         list(dict.fromkeys(notes))))
    out.sort(key=lambda g: _first_position(m, g))
    if kept is None:
        _keep_links(m, skip, [(i, j) for i, j, _ in links], judged)
        m._keep_comparisons()
    report(1, 0, 1000)
    return out


def _links(m: Matcher, skip: set[tuple[str, str]], progress: Callable[[float], None]
           ) -> list[tuple[int, int, Verdict]]:
    """The candidate pairs that match (no veto, the threshold reached), in
    canonical order; pairs the cheap fields rule out are never compared in full."""
    feats = m.index.feats
    pairs = m.pairs(progress)
    model = m.model
    links: list[tuple[int, int, Verdict]] = []
    prior_bits = math.log2(model.prior / (1 - model.prior))
    need, bound = m._need(m.threshold)
    compared = m._compared
    for i, j in sorted(pairs):
        if skip and pair_key(feats[i].record.key, feats[j].record.key) in skip:
            continue
        if (i, j) not in compared:
            row = m._kept_row((i, j))
            kept = None if row is None or row[0] == "q" else paircache.comparison(row)
            if kept is not None:
                compared[(i, j)] = kept  # (no cheap test needed)
            elif (row is not None and m._kept_ruled_out((i, j), row, need, bound)) \
                    or m._ruled_out(i, j, need, bound):
                continue
        cmp = m.comparison(i, j)
        if cmp.vetoes:
            continue
        words = min(len(feats[i].content_tokens), len(feats[j].content_tokens))
        if model.total(cmp, words) - prior_bits < need:
            continue
        v = m.judge(i, j)
        if v.duplicate:
            links.append((i, j, v))
    return links


def _links_maker(m: Matcher, skip: set[tuple[str, str]]) -> str:
    return matchcache.links_maker(m._maker(), m.threshold, skip)


def read_links(m: Matcher, skip: set[tuple[str, str]]
               ) -> tuple[list[tuple[int, int]], dict[tuple[int, int], Comparison]] | None:
    """The links :func:`groups` found for this version of the file (same threshold,
    same marked pairs), and the comparisons it judged them and their groups by."""
    if m._digest is None or len(m.index.feats) != m._size:
        return None
    return matchcache.read_links(m._digest, _links_maker(m, skip), m._size)


def _keep_links(m: Matcher, skip: set[tuple[str, str]], links: list[tuple[int, int]],
                judged: set[tuple[int, int]]) -> None:
    if m._digest is None or len(m.index.feats) != m._size \
            or m._model is None:
        return
    matchcache.write_links(m._digest, _links_maker(m, skip), links,
                           ((pair, m.comparison(*pair))
                            for pair in sorted(set(links) | judged)))


def _first_position(m: Matcher, g: Group) -> int:
    if m._by_id is None:
        m._by_id = {id(r): m.position[n] for n, r in enumerate(m.index.feats.records)}
    return m._by_id.get(id(g.records[0]), 0)
