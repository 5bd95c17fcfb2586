"""What a reader sees of a record: Unicode text, dates, links (pure functions).

Shared by the terminal tables (:mod:`pubcli.render`) and the exporters, so a
title, an author list or a date reads the same everywhere.
"""

from __future__ import annotations

from typing import Sequence

from pubcli.schema import values
from pubcli.schema.identifiers import arxiv_of, arxiv_url
from pubcli.text.display import row_of
from pubcli.text.latex import to_text
from pubcli.schema.model import Record
from pubcli.schema.values import MONTH_NAMES
from pubcli.schema.names import Name, is_person



class View:
    """A record as a reader sees it. Cheap parts are computed at once, the rest
    (details, links, abstract) on first use: listings of 100k entries need
    only titles, authors and venues."""

    __slots__ = ("rec", "key", "type", "type_group", "year", "month", "title", "authors",
                 "raw_names", "venue", "areas", "featured", "_details", "_links")

    def __init__(self, rec: Record) -> None:
        row = row_of(rec)
        self.rec = rec
        self.key = rec.key
        self.type = rec.type
        self.type_group = rec.type_group
        self.year = row.year
        self.month = row.month
        self.title = row.title
        self.raw_names = row.raw_names  # tuples: shared with the cached row, never changed
        self.authors = row.authors
        self.venue = row.venue
        self.areas = row.areas
        self.featured = row.featured
        self._details: list[tuple[str, str]] | None = None
        self._links: list[tuple[str, str]] | None = None

    @property
    def date(self) -> str:
        """"May 2024", "2024" or ""."""
        if self.year and self.month:
            return f"{MONTH_NAMES[self.month - 1]} {self.year}"
        return str(self.year) if self.year else ""

    @property
    def details(self) -> list[tuple[str, str]]:
        """[("Report", "MSR-TR-..."), ("Published by", "Microsoft"), ("ISBN", ...)]."""
        if self._details is None:
            f, rec = self.rec.fields, self.rec
            details = []
            if rec.type in {"techreport", "report"} and f.get("number") \
                    and " ".join(f["number"].split()) not in rec.venue:
                details.append(("Report", to_text(f["number"])))
            for label, name in (("Published by", "publisher"), ("ISBN", "isbn")):
                if f.get(name) and to_text(f[name]) != self.venue:
                    details.append((label, to_text(f[name])))
            self._details = details
        return self._details

    @property
    def links(self) -> list[tuple[str, str]]:
        """[("DOI", "https://doi.org/..."), ("URL", ...), ("arXiv", ...)]: http(s) only."""
        if self._links is None:
            f = self.rec.fields
            links = []
            doi_link = values.doi_url(f["doi"]) if f.get("doi") else None
            if doi_link:
                links.append(("DOI", doi_link))
            url = values.web_link(f.get("url"))
            if url:
                links.append(("URL", url))
            arxiv = arxiv_of(f, version=True)
            if arxiv:
                links.append(("arXiv", arxiv_url(arxiv)))
            self._links = links
        return self._links

def view(rec: Record) -> View:
    return View(rec)


def owner_flags(raw_names: Sequence[str], owner: str | None) -> list[bool]:
    """Which of the raw BibTeX names denote the owner ("Olatunji Ruwase")."""
    if not owner:
        return [False] * len(raw_names)
    return [is_person(n, owner) for n in raw_names]


def short_authors(names: Sequence[str], owner_idx: set[int], limit: int = 3) -> list[tuple[str, bool]]:
    """Shorten a long author list for a table cell, keeping the owner visible.

    Returns (text, is_owner) segments: "A, B, C, … Owner … (84 authors)".
    """
    n = len(names)
    if n <= limit + 1:
        if not owner_idx:  # the common case, once per row of a listing
            return [(", ".join(names), False)] if names else []
        segs: list[tuple[str, bool]] = []
        for i, a in enumerate(names):
            if i:
                segs.append((", ", False))
            segs.append((a, i in owner_idx))
        return segs
    shown = list(range(limit))
    extra = [i for i in sorted(owner_idx) if i >= limit]
    segs = []
    for i in shown:
        if i:
            segs.append((", ", False))
        segs.append((names[i], i in owner_idx))
    for i in extra[:1]:
        segs.append((", …, " if i > limit else ", ", False))
        segs.append((names[i], True))
    segs.append((f", … ({n} authors)", False))
    return segs


__all__ = ["View", "view", "owner_flags", "short_authors", "Name"]
