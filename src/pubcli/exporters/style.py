"""The style step: records -> the :class:`Page` a publications page shows.

The page model (a :class:`Page`: sections of groups of :class:`~.entries.Entry`
records) and :func:`build_page`: the records chosen and sorted,
each made into one entry (:mod:`.entries`), grouped as ``--by`` asks
(:mod:`.sections`), optionally in a citation style, and every entry given one home
on the page and page-wide unique ids. The templates lay it out and the backends
(:mod:`.markdown`, :mod:`.html`) escape it; nothing here escapes anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from collections.abc import Callable, Sequence

from pubcli.usecases.grouping import Filters, group, select
from pubcli.usecases.progress import Progress
from pubcli.text.fold import fold
from pubcli.schema.model import GroupBy, Record
from pubcli.schema.types import type_group_order

from .entries import MAX_AUTHORS, Entry, entry
from .pagebibtex import PRIVATE_FIELDS
from .sections import PAGE_GROUPINGS, parse_grouping, section_titles


@dataclass
class Group:
    name: str
    slug: str
    entries: list[Entry]
    children: list[Group] = field(default_factory=list)  # nested grouping (type,year)

    @property
    def count(self) -> int:
        return len(self.entries)


@dataclass
class Section:
    by: str          # "year", or "type,year" for a nested grouping
    title: str
    tab_label: str
    slug: str
    groups: list[Group]

    @property
    def count(self) -> int:
        return len({e.key for g in self.groups for e in g.entries})


@dataclass
class Page:
    owner: str | None
    role: str | None
    featured: list[Entry]
    sections: list[Section]
    total: int
    stamp: str | None = None
    generator: str = "pubcli"
    entries: list[Entry] = field(default_factory=list)
    facet_areas: list[str] = field(default_factory=list)  # filter chips, in display order
    facet_types: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.owner} \u2014 Publications" if self.owner else "Publications"

    @cached_property
    def facet_index(self) -> tuple[dict[str, int], dict[str, int]]:
        """({type group: index}, {area as written in entries: index}) for the chips."""
        canon = {fold(a): i for i, a in enumerate(self.facet_areas)}
        areas = {a: canon[fold(a)] for e in self.entries for a in e.areas if fold(a) in canon}
        return {t: i for i, t in enumerate(self.facet_types)}, areas


def slugify(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", fold(text).encode("ascii", "ignore").decode()).strip("-")
    return s or "group"


def build_page(records: Sequence[Record], *, source_text: Callable[[Record], str],
               filters: Filters | None = None, by: Sequence[str] = PAGE_GROUPINGS,
               owner: str | None = None, role: str | None = None,
               area_order: Sequence[str] = (), stamp: str | None = None,
               private_fields: Sequence[str] = PRIVATE_FIELDS,
               max_authors: int = MAX_AUTHORS, styler=None,
               progress: Progress | None = None) -> Page:
    """The page for ``records`` (in file order): featured entries and the groupings.

    ``by`` lists the groupings, each a name or two joined by a comma ("type,year",
    nested); ``private_fields`` are left out of the BibTeX shown; ``styler`` (a
    :class:`~.cslstyle.Styler`) adds each entry's reference in a citation style
    (``progress`` hears how far pandoc is through the references not cached)."""
    # newest first; records of the same month keep their order in the file
    chosen = sorted(select(records, filters), key=lambda r: (-(r.year or 0), -(r.month or 0)))
    private = tuple(dict.fromkeys((*PRIVATE_FIELDS, *private_fields)))
    cache: dict[int, Entry] = {}
    for rec in chosen:
        cache[id(rec)] = entry(rec, owner, source_text, private=private,
                               max_authors=max_authors)
    if styler is not None:
        chosen = _styled(chosen, styler, owner, private, cache, progress)
    entries = [cache[id(r)] for r in chosen]
    used: set[str] = {"featured", "main", "contents", "q", "status", "toc-h", "featured-h",
                      "facets"}
    sections = []
    for spec in dict.fromkeys(by):  # repeated --by values count once
        levels = parse_grouping(spec)
        title, tab = section_titles(levels)
        name = ",".join(levels)
        slug = _unique(f"by-{'-'.join(levels)}", used)
        groups = _groups(chosen, levels, slug, area_order, cache, used)
        sections.append(Section(name, title, tab, slug, groups))
    _place(entries, sections, used)
    areas, types = _facets(entries, area_order)
    return Page(owner=owner, role=role, featured=[e for e in entries if e.featured],
                sections=sections, total=len(entries), stamp=stamp, entries=entries,
                facet_areas=areas, facet_types=types)


def year_units(records: Sequence[Record]) -> list[list[Record]]:
    """Records by year (in first-seen order): the bibliographies a styled page is
    formatted in (a year suffix only ever ties references of one year)."""
    units: dict[int | None, list[Record]] = {}
    for rec in records:
        units.setdefault(rec.year, []).append(rec)
    return list(units.values())


def _styled(chosen: list[Record], styler, owner: str | None, private: Sequence[str],
            cache: dict[int, Entry], progress: Progress | None = None) -> list[Record]:
    """Each year of the page formatted as one bibliography (so year suffixes and the
    style's sort happen); the records newest year first, in the style's order within
    a year."""
    rank: dict[int, int] = {}
    units = year_units(chosen)
    for unit in styler.bibliographies(units, owner, private, progress):
        for pos, (rec, cite) in enumerate(unit):
            cache[id(rec)].cite = cite
            rank[id(rec)] = pos
    alone = styler.alone()  # MLA: listings other than the year's show the author again
    if alone is not None:
        for unit in alone.bibliographies(units, owner, private, progress):
            for rec, cite in unit:
                cache[id(rec)].cite_alone = cite
    return sorted(chosen, key=lambda r: (-(r.year or 0), rank.get(id(r), 0)))


def _facets(entries: Sequence[Entry], area_order: Sequence[str]) -> tuple[list[str], list[str]]:
    """The areas and type groups the entries have, in the order listings show them
    (configured areas first, then the others by name; type groups in their order)."""
    canon = {fold(a): a for a in area_order}
    areas: dict[str, str] = {}
    types: set[str] = set()
    for e in entries:
        types.add(e.type_group)
        for a in e.areas:
            areas.setdefault(fold(a), canon.get(fold(a), a))
    rank = {fold(a): i for i, a in enumerate(area_order)}
    ordered = sorted(areas, key=lambda f: (rank.get(f, len(rank)), f))
    return [areas[f] for f in ordered], sorted(types, key=type_group_order)


def _groups(recs: Sequence[Record], levels: Sequence[str], prefix: str,
            area_order: Sequence[str], cache: dict[int, Entry], used: set[str]) -> list[Group]:
    out = []
    for gname, members in group(recs, GroupBy(levels[0]), area_order):
        slug = _unique(f"{prefix}-{slugify(gname)}", used)
        children = _groups(members, levels[1:], slug, area_order, cache, used) \
            if len(levels) > 1 else []
        out.append(Group(gname, slug, [cache[id(r)] for r in members], children))
    return out


def _place(entries: list[Entry], sections: list[Section], used: set[str]) -> None:
    """Give every entry one home: the first group (in page order) that lists it holds
    its full rendering (details, abstract, BibTeX); every other listing, the featured
    one included, refers to it by ``anchor``. Entries in no group live in Featured."""
    for e in entries:
        e.anchor = _unique(f"p-{slugify(e.key)}", used)
        e.home = ""
    def visit(groups: list[Group]) -> None:
        for g in groups:
            if g.children:
                visit(g.children)
                continue
            for e in g.entries:
                if not e.home:
                    e.home = g.slug
    for s in sections:
        visit(s.groups)
    for e in entries:
        if not e.home:
            e.home = "featured"


def _unique(slug: str, used: set[str]) -> str:
    """A fresh id; its heading's id (``<id>-h``) is reserved along with it."""
    out, n = slug, 2
    while out in used or f"{out}-h" in used:
        out = f"{slug}-{n}"
        n += 1
    used.update((out, f"{out}-h"))
    return out
