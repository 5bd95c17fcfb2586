"""One publication as a page shows it: an :class:`Entry` made from a record.

Built on :mod:`pubcli.text.view`: the title and abstract as :class:`~.spans.Span`
runs; authors with the owner flagged (a long list behind "... and N more"); the
"ICLR 2024, vol. 3, pp. 1–9 | May 2024" venue line; details such as "Published by
Microsoft" or "ISBN: ..."; links and resources that are only ever ``http(s)`` URLs
(DOIs become ``https://doi.org/...``); the award, venue badge and preview image; the
BibTeX a visitor copies (:mod:`.pagebibtex`).

Nothing here escapes anything: escaping belongs to the backends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple
from collections.abc import Sequence
from urllib.parse import quote

from pubcli.text.latex import to_text
from pubcli.schema.model import Record
from pubcli.schema.resources import AWARD_FIELD, resources
from pubcli.schema import values
from pubcli.text.view import owner_flags, view

from .pagebibtex import PRIVATE_FIELDS, public_bibtex
from .spans import Span, plain, rich

if TYPE_CHECKING:
    from .cite import Cite

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

