"""A formatted reference as a page shows it: the runs before its title, the title
(linked by the page), the runs after it, and the owner's name in bold."""

from __future__ import annotations

import re
from typing import NamedTuple
from collections.abc import Sequence

from pubcli.schema.names import parse_name
from .spans import Span

class Cite(NamedTuple):
    """A formatted reference: runs before the title, the title, and after it."""

    before: tuple[Span, ...]
    title: tuple[Span, ...]
    after: tuple[Span, ...]

    @property
    def text(self) -> str:
        return "".join(s.text for part in self for s in part)


def _fold_quotes(text: str) -> str:
    return re.sub("[\"'\u201c\u201d\u2018\u2019]", "'", text).casefold()


def _split_at(runs: Sequence[Span], a: int, b: int) -> tuple[tuple[Span, ...], ...]:
    """The runs cut at character offsets a and b (math runs count their TeX)."""
    parts: tuple[list[Span], list[Span], list[Span]] = ([], [], [])
    pos = 0
    for r in runs:
        end = pos + len(r.text)
        k = 0 if pos < a else 1 if pos < b else 2  # the part the run starts in
        if r.math or end <= (a, b, end)[k]:  # whole (a formula is never cut)
            parts[k].append(r)
        else:
            text = r.text
            for lo, hi, part in ((0, a, 0), (a, b, 1), (b, end, 2)):
                s, e = max(lo, pos), min(hi, end)
                if s < e:
                    parts[part].append(Span(text[s - pos:e - pos], r.em, r.strong))
        pos = end
    return tuple(parts[0]), tuple(parts[1]), tuple(parts[2])


def owner_pattern(owner: str) -> re.Pattern | None:
    """The owner's name as styles write it: "O. Ruwase", "Olatunji Ruwase",
    "Ruwase, O.", "Ruwase O" (given names full or as initials)."""
    from pubcli.schema.names import bibtex_name

    n = parse_name(bibtex_name(owner) if "," not in owner else owner)
    family = " ".join(p for p in (n.von, n.last) if p)
    if not n.last:
        return None
    fam = re.escape(family).replace(r"\ ", r"[ \u00a0]")
    givens = [g for g in re.split(r"[\s\u00a0]+", n.first) if g]
    if givens:
        first = givens[0]
        full = r"[ \u00a0]".join(re.escape(g) for g in givens)
        initials = re.escape(first[0]) + r"\.?(?:[ \u00a0-]?[^\W\d_]\.?)*(?![\w])"
        given = rf"(?:{full}|{re.escape(first)}(?:[ \u00a0][^\W\d_]\.?)*|{initials})"
        return re.compile(rf"(?<![\w-]){given}[ \u00a0]+{fam}(?![\w-])"
                          rf"|(?<![\w-]){fam},?[ \u00a0]+{given}")
    return re.compile(rf"(?<![\w-]){fam}(?![\w-])")


class Split(NamedTuple):
    """A formatted reference cut at its title, before any owner is known: what the
    style cache keeps. ``names_end``: where the names may end (the title's start,
    or the end of the reference when the title was not found)."""

    before: tuple[Span, ...]
    title: tuple[Span, ...]
    after: tuple[Span, ...]
    names_end: int


def split_cite(runs: Sequence[Span], title: str) -> Split:
    """A formatted reference's runs cut at its title, found by its text (the style may
    have changed its case and quotes)."""
    flat = "".join(r.text for r in runs)
    a = b = -1
    if title:
        hay, needle = _fold_quotes(flat), _fold_quotes(title)
        a = hay.find(needle)
        if a == -1 and needle.endswith(("." , "?", "!")):
            needle = needle[:-1]
            a = hay.find(needle)
        if a != -1:
            b = a + len(needle)
    if a == -1:
        return Split(tuple(_merge(list(runs))), (), (), len(flat))
    before, mid, after = _split_at(runs, a, b)
    return Split(tuple(_merge(list(before))), tuple(_merge(list(mid))),
                 tuple(_merge(list(after))), a)


def owned_cite(split: Split, owner: re.Pattern | None) -> Cite:
    """The :class:`Cite` of a split reference, the owner's name in bold among the
    names (the runs before the title)."""
    if owner is None:
        return Cite(split.before, split.title, split.after)
    flat = "".join(r.text for r in split.before)
    spans = [m.span() for m in owner.finditer(flat, 0, split.names_end)]
    if not spans:
        return Cite(split.before, split.title, split.after)
    return Cite(tuple(_merge(_bold(split.before, spans))), split.title, split.after)


def build_cite(runs: Sequence[Span], title: str, owner: re.Pattern | None) -> Cite:
    """A formatted reference's runs as a :class:`Cite`: the title found by its text
    (the style may have changed its case and quotes), the owner's name in bold."""
    return owned_cite(split_cite(runs, title), owner)


def _bold(runs: Sequence[Span], spans: list[tuple[int, int]]) -> list[Span]:
    if not spans:
        return list(runs)
    out: list[Span] = []
    pos = 0
    for r in runs:
        n = len(r.text)
        if r.math:
            out.append(r)
            pos += n
            continue
        cuts = sorted({0, n, *(min(max(x - pos, 0), n) for s in spans for x in s)})
        for s, e in zip(cuts, cuts[1:], strict=False):
            inside = any(a <= pos + s and pos + e <= b for a, b in spans)
            out.append(r._replace(text=r.text[s:e], strong=r.strong or inside))
        pos += n
    return out


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for sp in spans:
        if out and not sp.math and not out[-1].math and \
                (out[-1].em, out[-1].strong) == (sp.em, sp.strong):
            out[-1] = Span(out[-1].text + sp.text, sp.em, sp.strong)
        elif sp.text:
            out.append(sp)
    return out


__all__ = ["Cite", "Split", "build_cite", "owned_cite", "owner_pattern", "split_cite"]
