"""Joining matched pairs into groups, every join checked.

Links are taken strongest first (ties broken by the records' canonical
numbers, which come from their content), and two groups are joined only when
no member of one is known to be a different work from a member of the other
(a preprint without a year must not tie a paper to its namesake three years
on). The result does not depend on the order of the input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar
from collections.abc import Callable, Sequence

L = TypeVar("L")
#: Above this many cross pairs, a join is checked on a sample of them only.
MAX_CHECKS = 400


@dataclass
class Cluster(Generic[L]):
    members: list[int]
    links: list[tuple[int, int, L]] = field(default_factory=list)
    #: (i, j, x, y, why): link i ~ j was left out because x and y are different works.
    apart: list[tuple[int, int, int, int, object]] = field(default_factory=list)


class UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        parent = self.parent
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:
            parent[i], i = root, parent[i]
        return root

    def union(self, i: int, j: int) -> int:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            if ri < rj:
                self.parent[rj] = ri
            else:
                self.parent[ri] = rj
        return min(ri, rj)


def cluster(n: int, links: Sequence[tuple[int, int, L]], strength: Callable[[L], float],
            separated: Callable[[int, int], object | None]) -> list[Cluster[L]]:
    """Groups of two or more records from ``links`` (i, j, payload), strongest first
    by ``strength``; ``separated(x, y)`` returns why x and y must stay apart, or None."""
    order = sorted(links, key=lambda t: (-strength(t[2]), min(t[0], t[1]), max(t[0], t[1])))
    uf = UnionFind(n)
    groups: dict[int, Cluster[L]] = {}
    for i, j, payload in order:
        ri, rj = uf.find(i), uf.find(j)
        if ri == rj:
            groups[ri].links.append((i, j, payload))
            continue
        gi = groups.get(ri) or Cluster([i])
        gj = groups.get(rj) or Cluster([j])
        why = None
        if len(gi.members) > 1 or len(gj.members) > 1:
            checks = [(x, y) for x in sorted(gi.members) for y in sorted(gj.members)
                      if {x, y} != {i, j}]
            for x, y in checks[:MAX_CHECKS]:
                why = separated(x, y)
                if why is not None:
                    break
        if why is not None:
            note = (i, j, x, y, why)
            gi.apart.append(note)
            if gj is not gi:
                gj.apart.append(note)
            groups.setdefault(ri, gi)
            groups.setdefault(rj, gj)
            continue
        r = uf.union(i, j)
        merged = Cluster(gi.members + gj.members, gi.links + gj.links + [(i, j, payload)],
                         gi.apart + [a for a in gj.apart if a not in gi.apart])
        groups.pop(ri, None)
        groups.pop(rj, None)
        groups[r] = merged
    out = [g for g in groups.values() if len(g.members) > 1]
    for g in out:
        g.members.sort()
    out.sort(key=lambda g: g.members[0])
    return out
