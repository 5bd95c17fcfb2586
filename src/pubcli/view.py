"""What a reader sees of a record: Unicode text, dates, links (pure functions).

Shared by the terminal tables (:mod:`pubcli.render`) and the exporters, so a
title, an author list or a date reads the same everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .latex import to_text
from .model import MONTH_NAMES, Record
from .names import Name, name_matches, parse_name, split_authors

_DOI_RE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)


@dataclass
class View:
    key: str
    type: str
    type_group: str
    year: int | None
    month: int | None
    title: str
    authors: list[str]
    venue: str
    areas: list[str]
    featured: bool = False
    details: list[tuple[str, str]] = field(default_factory=list)  # ("Published by", "Microsoft")
    links: list[tuple[str, str]] = field(default_factory=list)    # ("DOI", "https://doi.org/..")
    abstract: str = ""

    @property
    def date(self) -> str:
        """"May 2024", "2024" or ""."""
        if self.year and self.month:
            return f"{MONTH_NAMES[self.month - 1]} {self.year}"
        return str(self.year) if self.year else ""


def doi_url(doi: str) -> str:
    return "https://doi.org/" + _DOI_RE.sub("", doi.strip())


def is_http_url(url: str) -> bool:
    return bool(re.match(r"^https?://[^\s\"'<>]+$", url.strip(), re.I))


def view(rec: Record) -> View:
    f = rec.fields
    details = []
    if rec.type in {"techreport", "report"} and f.get("number") and rec.venue != f.get("number"):
        details.append(("Report", to_text(f["number"])))
    for label, name in (("Published by", "publisher"), ("ISBN", "isbn")):
        if f.get(name) and to_text(f[name]) != to_text(rec.venue):
            details.append((label, to_text(f[name])))
    links = []
    if f.get("doi"):
        links.append(("DOI", doi_url(f["doi"])))
    if f.get("url") and is_http_url(f["url"]):
        links.append(("URL", f["url"].strip()))
    eprint = f.get("eprint", "").strip()
    if eprint and (f.get("archiveprefix", f.get("eprinttype", "")).lower() == "arxiv"
                   or re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", eprint)):
        links.append(("arXiv", "https://arxiv.org/abs/" + eprint))
    return View(rec.key, rec.type, rec.type_group, rec.year, rec.month, to_text(rec.title),
                [parse_name(a).display if a.lower() != "others" else "et al."
                 for a in split_authors(f.get("author") or f.get("editor"))],
                to_text(rec.venue), rec.areas, rec.featured, details, links,
                to_text(f.get("abstract", "")))


def owner_flags(authors_raw: str | None, owner: str | None) -> list[bool]:
    names = split_authors(authors_raw)
    if not owner:
        return [False] * len(names)
    return [name_matches(parse_name(a), owner) for a in names]


def short_authors(names: list[str], owner_idx: set[int], limit: int = 3) -> list[tuple[str, bool]]:
    """Shorten a long author list for a table cell, keeping the owner visible.

    Returns (text, is_owner) segments: "A, B, C, … Owner … (84 authors)".
    """
    n = len(names)
    if n <= limit + 1:
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


__all__ = ["View", "view", "owner_flags", "short_authors", "doi_url", "is_http_url", "Name"]
