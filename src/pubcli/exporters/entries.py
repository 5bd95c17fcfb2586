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
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple
from collections.abc import Callable, Iterator, Sequence
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


Author = tuple[str, bool]  # (name, is the page owner)


@dataclass(slots=True)
class Entry:
    """One publication as a page shows it (shared by every group it appears in).

    What every listing shows is held; what only the entry's one full rendering shows
    and that is big (its BibTeX, its abstract) is made from the record each time it is
    asked, so that a page of 100k entries holds none of it (a template asks once:
    ``{% set bibtex = e.bibtex %}``). Lists are tuples, shared where they recur."""

    key: str
    type: str
    type_group: str
    year: int | None
    title: tuple[Span, ...]
    title_text: str
    title_url: str | None
    authors: tuple[Author, ...]
    venue: str
    date: str
    details: tuple[str, ...]
    links: tuple[Link, ...]
    areas: tuple[str, ...]
    featured: bool
    rec: Record | None = None  # what the BibTeX and the abstract are made from
    source: Callable[[Record], str] | None = None  # the entry's text in the file
    private: Sequence[str] = PRIVATE_FIELDS  # left out of the BibTeX
    anchor: str = ""   # the page-wide id of the entry's one full rendering
    home: str = ""     # slug of the group that holds that rendering
    resources: tuple[Link, ...] = ()  # PDF, slides, code...
    award: str = ""
    # a long author list: the first ones and the owner, the rest behind "and N more"
    authors_shown: tuple[Author, ...] = ()
    authors_more: tuple[Author, ...] = ()
    cite: Cite | None = None  # when the page is in a citation style
    cite_alone: Cite | None = None  # the same without "———" for the author before it
    locator: str = ""   # "vol. 41, no. 7, pp. 73–99"
    abbr: str = ""      # al-folio's venue badge ("ICLR")
    preview: str = ""   # a thumbnail: a relative path or a data: URL

    @property
    def venue_line(self) -> str:
        """"ICLR 2024, vol. 3, pp. 1–9 | May 2024", or the parts there are."""
        where = ", ".join(p for p in (self.venue, self.locator) if p)
        return " | ".join(p for p in (where, self.date) if p)

    @property
    def bibtex(self) -> str:
        """The BibTeX a visitor copies: the entry as written, less its private fields
        (:func:`~.pagebibtex.public_bibtex`)."""
        if self.rec is None or self.source is None:
            return ""
        return public_bibtex(self.source(self.rec), self.rec, self.private)

    @property
    def abstract(self) -> tuple[Span, ...]:
        return rich(self.rec.fields.get("abstract")) if self.rec is not None else ()

    def formulas(self) -> Iterator[str]:
        """The TeX of the ``$...$`` formulas in the title and the abstract."""
        for sp in self.title:
            if sp.math:
                yield sp.text
        raw = self.rec.fields.get("abstract", "") if self.rec is not None else ""
        if "$" in raw:
            for sp in rich(raw):
                if sp.math:
                    yield sp.text


def doi_link(doi: str) -> str | None:
    """``https://doi.org/...`` for a DOI in any form (:func:`pubcli.schema.values.doi_url`)."""
    url = values.doi_url(doi)
    return values.web_link(url) if url else None


def _detail(label: str, value: str) -> str:
    return f"{label} {value}" if label.endswith(" by") else f"{label}: {value}"


def split_authors_shown(authors: tuple[Author, ...],
                        most: int) -> tuple[tuple[Author, ...], tuple[Author, ...]]:
    """(shown, hidden): the first ``most`` authors and the owner, and the rest, behind
    "... and N more" (nothing hides when at most one name would)."""
    if len(authors) <= most + 1:
        return authors, ()
    shown = tuple(a for i, a in enumerate(authors) if i < most or a[1])
    return shown, tuple(a for i, a in enumerate(authors) if i >= most and not a[1])


@lru_cache(maxsize=65536)
def _author(name: str, owner: bool) -> Author:
    return name, owner  # one tuple for a name however many entries it is on


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


def entry(rec: Record, owner: str | None, source: Callable[[Record], str], *,
          private: Sequence[str] = PRIVATE_FIELDS, max_authors: int = MAX_AUTHORS) -> Entry:
    """``rec`` as a page shows it; ``source`` gives its text in the file (from which
    the BibTeX shown is made, when it is shown)."""
    v = view(rec)
    links: list[Link] = []
    for label, url in v.links:
        good = doi_link(rec.fields.get("doi", "")) if label == "DOI" else values.web_link(url)
        if good:
            links.append(Link(label, good))
    title_url = next((lk.url for lk in links if lk.label in ("DOI", "URL")), None)
    title = rich(rec.title)
    if len(title) == 1 and title[0].text == v.title:
        title = (title[0]._replace(text=v.title),)  # the listing's text, not a copy of it
    flags = owner_flags(v.raw_names, owner)
    authors = tuple(_author(name, flag) for name, flag in zip(v.authors, flags, strict=True))
    shown, more = split_authors_shown(authors, max_authors)
    return Entry(
        key=rec.key, type=rec.type, type_group=v.type_group, year=v.year,
        title=title, title_text=(plain(title) if len(title) > 1 else v.title) or rec.key,
        title_url=title_url,
        authors=authors, venue=v.venue, date=sys.intern(v.date),
        details=tuple(_detail(label, value) for label, value in v.details if value),
        links=tuple(links), areas=tuple(v.areas),
        rec=rec, source=source, private=private,
        featured=v.featured or rec.fields.get("selected", "").strip().lower() in _TRUE,
        resources=tuple(Link(r.label, r.url) for r in resources(rec.fields)),
        award=to_text(rec.fields.get(AWARD_FIELD, "")),
        authors_shown=shown, authors_more=more, locator=locator(rec),
        abbr=to_text(rec.fields.get("abbr", "")), preview=preview_src(rec.fields.get("preview", "")))
