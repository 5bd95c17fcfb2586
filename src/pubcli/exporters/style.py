"""The style step: what a publications page says about each record.

Built on :mod:`pubcli.text.view`, this turns records into format-neutral data that
the templates lay out and the backends (:mod:`.markdown`, :mod:`.html`) escape:

* titles and abstracts as :class:`Span` runs, so ``\\emph{..}``/``\\textit{..}``
  become emphasis, ``\\textbf{..}`` strong text and ``$...$`` math stays verbatim;
* authors with the owner flagged; "ICLR 2024 | May 2024" venue lines; details
  such as "Published by Microsoft" or "ISBN: ..."; links that are only ever
  ``http(s)`` URLs (DOIs become ``https://doi.org/...``).

Nothing here escapes anything: escaping belongs to the backends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple
from collections.abc import Callable, Sequence
from urllib.parse import quote

from pubcli.usecases.grouping import Filters, group, select
from pubcli.text.latex import to_text
from pubcli.text.fold import fold
from pubcli.schema.model import GroupBy, Record
from pubcli.schema.types import type_group_order

if TYPE_CHECKING:
    from .cite import Cite
from pubcli.schema.resources import AWARD_FIELD, resources
from pubcli.schema import values
from pubcli.text.view import owner_flags, view

from .pagebibtex import PRIVATE_FIELDS, public_bibtex
from .sections import PAGE_GROUPINGS, parse_grouping, section_titles
from .spans import Span, plain, rich

MAX_AUTHORS = 10  # authors shown before "... and N more" (config: max_authors)


class Link(NamedTuple):
    label: str
    url: str


@dataclass
class Entry:
    """One publication as a page shows it (shared by every group it appears in)."""

    key: str
    type: str
    type_group: str
    year: int | None
    title: tuple[Span, ...]
    title_text: str
    title_url: str | None
    authors: list[tuple[str, bool]]   # (name, is the page owner)
    venue: str
    date: str
    details: list[str]
    links: list[Link]
    abstract: tuple[Span, ...]
    bibtex: str
    areas: list[str]
    featured: bool
    anchor: str = ""   # the page-wide id of the entry's one full rendering
    home: str = ""     # slug of the group that holds that rendering
    resources: list[Link] = field(default_factory=list)  # PDF, slides, code...
    award: str = ""
    # a long author list: the first ones and the owner, the rest behind "and N more"
    authors_shown: list[tuple[str, bool]] = field(default_factory=list)
    authors_more: list[tuple[str, bool]] = field(default_factory=list)
    cite: Cite | None = None  # when the page is in a citation style
    cite_alone: Cite | None = None  # the same without "———" for the author before it
    locator: str = ""   # "vol. 41, no. 7, pp. 73–99"
    abbr: str = ""      # al-folio's venue badge ("ICLR")
    preview: str = ""   # a thumbnail: a relative path or a data: URL

    @cached_property
    def venue_line(self) -> str:
        """"ICLR 2024, vol. 3, pp. 1–9 | May 2024", or the parts there are."""
        where = ", ".join(p for p in (self.venue, self.locator) if p)
        return " | ".join(p for p in (where, self.date) if p)


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


# ---------------------------------------------------------------- links
def doi_link(doi: str) -> str | None:
    """``https://doi.org/...`` for a DOI in any form (:func:`pubcli.schema.values.doi_url`)."""
    url = values.doi_url(doi)
    return values.web_link(url) if url else None


def _detail(label: str, value: str) -> str:
    return f"{label} {value}" if label.endswith(" by") else f"{label}: {value}"


Author = tuple[str, bool]


def split_authors_shown(authors: list[Author], most: int) -> tuple[list[Author], list[Author]]:
    """(shown, hidden): the first ``most`` authors and the owner, and the rest, behind
    "... and N more" (nothing hides when at most one name would)."""
    if len(authors) <= most + 1:
        return authors, []
    shown = [a for i, a in enumerate(authors) if i < most or a[1]]
    return shown, [a for i, a in enumerate(authors) if i >= most and not a[1]]


def locator(rec: Record) -> str:
    """Volume, issue and pages as a listing prints them: "vol. 41, no. 7, pp. 73–99"."""
    f = rec.fields
    parts = []
    vol = to_text(f.get("volume", ""))
    num = to_text(f.get("number", "") or f.get("issue", ""))
    if vol:
        parts.append(f"vol. {vol}")
    # a report's number is its venue line already ("MSR-TR-2024-12"); an issue is not
    if num and (vol or rec.type in ("article", "periodical", "inproceedings", "incollection")):
        parts.append(f"no. {num}")
    pages = to_text(f.get("pages", ""))
    if pages:
        pages = re.sub(r"\s*(?:-+|\u2013|\u2014)\s*", "\u2013", pages)
        parts.append(("pp. " if re.search(r"\d\s*\u2013\s*\d|,", pages) else "p. ") + pages)
    return ", ".join(parts)


_TRUE = {"true", "yes", "1", "y"}
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/=\s]+\Z")
_LOCAL_PATH = re.compile(r"(?![a-zA-Z][a-zA-Z0-9+.-]*:)(?!//)[\w./ -]+\.(?:png|jpe?g|gif|webp|avif|svg)\Z",
                         re.I)


def preview_src(value: str) -> str:
    """al-folio's ``preview``: a local image path (relative, no scheme: al-folio's are
    under ``assets/img/publication_preview/``) or a ``data:image/...`` URL; anything
    else is no preview (the page's CSP allows images from the page's site and data:)."""
    value = value.strip()
    if _DATA_IMAGE.match(value):
        return re.sub(r"\s+", "", value)
    if _LOCAL_PATH.match(value) and ".." not in value.split("/"):
        return quote(value.strip(), safe="/._-")
    return ""


def entry(rec: Record, owner: str | None, bibtex: str, *,
          private: Sequence[str] = PRIVATE_FIELDS, max_authors: int = MAX_AUTHORS) -> Entry:
    v = view(rec)
    links: list[Link] = []
    for label, url in v.links:
        good = doi_link(rec.fields.get("doi", "")) if label == "DOI" else values.web_link(url)
        if good:
            links.append(Link(label, good))
    title_url = next((lk.url for lk in links if lk.label in ("DOI", "URL")), None)
    title = rich(rec.title)
    flags = owner_flags(v.raw_names, owner)
    authors = list(zip(v.authors, flags, strict=True))
    shown, more = split_authors_shown(authors, max_authors)
    return Entry(
        key=rec.key, type=rec.type, type_group=v.type_group, year=v.year,
        title=title, title_text=(plain(title) if len(title) > 1 else v.title) or rec.key,
        title_url=title_url,
        authors=authors, venue=v.venue, date=v.date,
        details=[_detail(label, value) for label, value in v.details if value],
        links=links, abstract=rich(rec.fields.get("abstract")),
        bibtex=public_bibtex(bibtex, rec, private),
        areas=list(v.areas),
        featured=v.featured or rec.fields.get("selected", "").strip().lower() in _TRUE,
        resources=[Link(r.label, r.url) for r in resources(rec.fields)],
        award=to_text(rec.fields.get(AWARD_FIELD, "")),
        authors_shown=shown, authors_more=more, locator=locator(rec),
        abbr=to_text(rec.fields.get("abbr", "")), preview=preview_src(rec.fields.get("preview", "")))


def slugify(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", fold(text).encode("ascii", "ignore").decode()).strip("-")
    return s or "group"


def build_page(records: Sequence[Record], *, source_text: Callable[[Record], str],
               filters: Filters | None = None, by: Sequence[str] = PAGE_GROUPINGS,
               owner: str | None = None, role: str | None = None,
               area_order: Sequence[str] = (), stamp: str | None = None,
               private_fields: Sequence[str] = PRIVATE_FIELDS,
               max_authors: int = MAX_AUTHORS, styler=None) -> Page:
    """The page for ``records`` (in file order): featured entries and the groupings.

    ``by`` lists the groupings, each a name or two joined by a comma ("type,year",
    nested); ``private_fields`` are left out of the BibTeX shown; ``styler`` (a
    :class:`~.cslstyle.Styler`) adds each entry's reference in a citation style."""
    # newest first; records of the same month keep their order in the file
    chosen = sorted(select(records, filters), key=lambda r: (-(r.year or 0), -(r.month or 0)))
    private = tuple(dict.fromkeys((*PRIVATE_FIELDS, *private_fields)))
    cache: dict[int, Entry] = {}
    for rec in chosen:
        cache[id(rec)] = entry(rec, owner, source_text(rec), private=private,
                               max_authors=max_authors)
    if styler is not None:
        chosen = _styled(chosen, styler, owner, private, cache)
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
            cache: dict[int, Entry]) -> list[Record]:
    """Each year of the page formatted as one bibliography (so year suffixes and the
    style's sort happen); the records newest year first, in the style's order within
    a year."""
    rank: dict[int, int] = {}
    units = year_units(chosen)
    for unit in styler.bibliographies(units, owner, private):
        for pos, (rec, cite) in enumerate(unit):
            cache[id(rec)].cite = cite
            rank[id(rec)] = pos
    alone = styler.alone()  # MLA: listings other than the year's show the author again
    if alone is not None:
        for unit in alone.bibliographies(units, owner, private):
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
