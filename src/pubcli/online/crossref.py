"""Crossref's REST API: ``/works/{doi}`` and bibliographic queries on ``/works``.

The work JSON (``message``) maps to an entry: ``type`` to the entry type,
``title``/``subtitle``, ``author[].given/family`` (or ``name``), ``issued.date-parts``
(else ``published-print``/``published-online``), ``container-title`` to the type's
venue field, ``volume``, ``issue``, ``page``, ``publisher``, ``ISBN``, ``DOI``. The same
mapping reads CSL JSON from doi.org content negotiation (:mod:`.doi`), whose field
names are the same with single strings instead of lists.
"""

from __future__ import annotations

from typing import Any

from ..entries import EntryOptions, normalize_doi
from . import BadResponse, NotFoundOnline, mapping
from .http import Client, segment

# Crossref work types and CSL types -> BibTeX entry types.
TYPES = {
    "journal-article": "article", "article-journal": "article", "article-magazine": "article",
    "article-newspaper": "article",
    "proceedings-article": "inproceedings", "paper-conference": "inproceedings",
    "book-chapter": "incollection", "book-section": "incollection", "book-part": "incollection",
    "chapter": "incollection", "reference-entry": "incollection",
    "book": "book", "monograph": "book", "edited-book": "book", "reference-book": "book",
    "report": "techreport", "report-component": "techreport",
    "dissertation": "phdthesis", "thesis": "phdthesis",
    "proceedings": "proceedings",
    "posted-content": "misc", "article": "misc", "dataset": "misc", "software": "misc",
}
PREPRINT_TYPES = frozenset({"posted-content", "article"})


def work(client: Client, doi: str) -> dict | None:
    """The Crossref ``message`` for a DOI, or None when Crossref does not know it."""
    doi = normalize_doi(doi)  # what is not a DOI is never sent
    resp = client.get("crossref", f"/works/{segment(doi)}")
    if resp.status == 404:
        return None
    data = resp.json()
    msg = data.get("message") if isinstance(data, dict) else None
    if not isinstance(msg, dict):
        raise BadResponse(f"{resp.url}: a Crossref answer without a 'message' object")
    return msg


def search(client: Client, title: str, author: str | None = None,
           rows: int = 5) -> list[dict]:
    """Crossref's best hits for a bibliographic query, best first (each has ``score``)."""
    params = {"query.bibliographic": title, "rows": rows}
    if author:
        params["query.author"] = author
    resp = client.get("crossref", "/works", params)
    if resp.status == 404:
        return []
    data = resp.json()
    msg = data.get("message") if isinstance(data, dict) else None
    items = msg.get("items") if isinstance(msg, dict) else None
    if not isinstance(items, list):
        raise BadResponse(f"{resp.url}: a Crossref answer without 'message.items'")
    items = [i for i in items if isinstance(i, dict)]
    return sorted(items, key=lambda i: -_score(i))


def _score(item: dict) -> float:
    try:
        return float(item.get("score") or 0)
    except (TypeError, ValueError):
        return 0.0


def score(item: dict) -> float:
    return _score(item)


def lookup(client: Client, doi: str) -> mapping.Found:
    msg = work(client, doi)
    if msg is None:
        raise NotFoundOnline(f"Crossref does not know the DOI {doi}")
    return to_found(msg, source="crossref")


def _date_parts(msg: dict) -> list:
    for name in ("issued", "published-print", "published-online", "published", "created"):
        d = msg.get(name)
        parts = d.get("date-parts") if isinstance(d, dict) else None
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0] \
                and parts[0][0] is not None:
            return parts[0]
    return []


def _people(items: Any) -> list[str]:
    if not isinstance(items, list):
        return []
    out = []
    for a in items:
        if isinstance(a, dict):
            out.append(mapping.person(a.get("given"), a.get("family"),
                                      a.get("name") or a.get("literal")))
    return mapping.authors(out)


def to_found(msg: dict, *, source: str) -> mapping.Found:
    """A Crossref work (or CSL JSON item) as the entry options it makes."""
    kind = str(msg.get("type") or "")
    entry_type = TYPES.get(kind, "misc")
    parts = _date_parts(msg)
    doi = msg.get("DOI") or msg.get("doi")
    authors = _people(msg.get("author"))
    editors = _people(msg.get("editor"))
    container = mapping.first(msg.get("container-title"))
    publisher = mapping.venue(msg.get("publisher"))
    venue = mapping.venue(container)
    fields: dict[str, str | None] = {
        "volume": mapping.clean_text(msg.get("volume")) or None,
        "number": mapping.clean_text(msg.get("issue")) or None,
        "pages": mapping.pages(msg.get("page")),
    }
    if entry_type in ("book", "proceedings"):
        venue = publisher
        fields["isbn"] = mapping.clean_text(mapping.first(msg.get("ISBN"))) or None
    elif entry_type == "incollection":
        fields["publisher"] = publisher
    elif entry_type == "techreport":
        venue = publisher or venue
    elif entry_type == "phdthesis":
        inst = mapping.first(msg.get("institution"))
        venue = mapping.venue(inst.get("name") if isinstance(inst, dict) else inst) or publisher
    elif entry_type == "misc":
        venue = None
        fields = {}
    opts = EntryOptions(
        type=entry_type,
        title=mapping.title(mapping.first(msg.get("title")),
                            mapping.first(msg.get("subtitle"))) or None,
        authors=authors,
        year=mapping.year(parts[0]) if parts else None,
        month=mapping.month(parts[1]) if len(parts) > 1 else None,
        venue=venue,
        doi=str(doi).strip() if doi else None,
        fields=mapping.extra(**fields),
    )
    if not authors and editors:
        opts.fields.append(f"editor={' and '.join(editors)}")
    return mapping.Found(opts, source, preprint=kind in PREPRINT_TYPES)
