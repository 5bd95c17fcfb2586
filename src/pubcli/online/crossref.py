"""Crossref's REST API: ``/works/{doi}``, many DOIs at once (``/works?filter=doi:a,doi:b``)
and bibliographic queries on ``/works``.

The work JSON (``message``) maps to an entry: ``type`` to the entry type,
``title``/``subtitle``, ``author[].given/family`` (or ``name``), ``issued.date-parts``
(else ``published-print``/``published-online``), ``container-title`` to the type's
venue field, ``volume``, ``issue``, ``page`` (else ``article-number``, as PRL or eLife
print it), ``publisher``, ``ISBN``/``isbn-type``, ``editor``, ``DOI``; a chapter's
second ``container-title`` (or ``collection-title``) is its series (LNCS); a data
set's or software's ``publisher`` (the repository) and ``version`` are kept; an
author's ``suffix`` too. The same
mapping reads CSL JSON from doi.org content negotiation (:mod:`.doi`), whose field
names are the same with single strings instead of lists.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Sequence

from pubcli.usecases.newentry import EntryOptions, normalize_doi
from . import BadResponse, NotFoundOnline, mapping
from .http import Client
from .services import segment

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


BATCH = 50   # DOIs per filter=doi:...,doi:... request (filters of one name are ORed)


def works_many(client: Client, dois: Sequence[str],
               progress: Callable[[int], None] | None = None) -> dict[str, dict | None]:
    """The Crossref ``message`` of each DOI, :data:`BATCH` DOIs per request, keyed by
    :func:`pubcli.schema.values.doi_match_key`; None for a DOI Crossref does not know."""
    from pubcli.schema.values import doi_match_key

    out: dict[str, dict | None] = {}
    wanted = list(dict.fromkeys(normalize_doi(d) for d in dois))
    for i in range(0, len(wanted), BATCH):
        chunk = wanted[i:i + BATCH]
        resp = client.get("crossref", "/works", {
            "filter": ",".join(f"doi:{d}" for d in chunk), "rows": len(chunk)})
        items = _items(resp) if resp.status != 404 else []
        for item in items:
            key = doi_match_key(str(item.get("DOI") or ""))
            out.setdefault(key, item)
        for d in chunk:
            out.setdefault(doi_match_key(d), None)
        if progress is not None:
            progress(len(chunk))
    return out


def _items(resp) -> list[dict]:
    data = resp.json()
    msg = data.get("message") if isinstance(data, dict) else None
    items = msg.get("items") if isinstance(msg, dict) else None
    if not isinstance(items, list):
        raise BadResponse(f"{resp.url}: a Crossref answer without 'message.items'")
    return [i for i in items if isinstance(i, dict)]


def search(client: Client, title: str, author: str | None = None,
           rows: int = 5) -> list[dict]:
    """Crossref's best hits for a bibliographic query, best first (each has ``score``)."""
    params = {"query.bibliographic": title, "rows": rows}
    if author:
        params["query.author"] = author
    resp = client.get("crossref", "/works", params)
    if resp.status == 404:
        return []
    return sorted(_items(resp), key=lambda i: -_score(i))


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
    """``[year]``, ``[year, month]`` or ``[year, month, day]``: as precise as the
    source knows the date (Crossref's date-parts carry only what is known)."""
    for name in ("issued", "published-print", "published-online", "published", "created"):
        d = msg.get(name)
        parts = d.get("date-parts") if isinstance(d, dict) else None
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0] \
                and parts[0][0] is not None:
            return [p for p in parts[0] if p is not None]
    return []


def _people(items: Any) -> list[str]:
    if not isinstance(items, list):
        return []
    out = []
    for a in items:
        if isinstance(a, dict):
            out.append(mapping.person(a.get("given"), a.get("family"),
                                      a.get("name") or a.get("literal"), a.get("suffix")))
    return mapping.authors(out)


def _titles(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [mapping.clean_text(t) for t in items if mapping.clean_text(t)]


def _isbn(msg: dict) -> str | None:
    """The first ISBN (Crossref lists print and electronic ones, ``isbn-type`` says
    which; the print one first when it is named)."""
    typed = msg.get("isbn-type")
    if isinstance(typed, list):
        for want in ("print", "electronic"):
            for t in typed:
                if isinstance(t, dict) and t.get("type") == want and t.get("value"):
                    return mapping.clean_text(t["value"])
    return mapping.clean_text(mapping.first(msg.get("ISBN"))) or None


def to_found(msg: dict, *, source: str) -> mapping.Found:
    """A Crossref work (or CSL JSON item) as the entry options it makes."""
    kind = str(msg.get("type") or "")
    entry_type = TYPES.get(kind, "misc")
    parts = _date_parts(msg)
    authors = _people(msg.get("author"))
    editors = _people(msg.get("editor"))
    containers = _titles(msg.get("container-title"))
    container = containers[0] if containers else None
    # an LNCS chapter's container titles are [its book, the series]
    series = _titles(msg.get("collection-title")) or containers[1:]
    publisher = mapping.venue(msg.get("publisher"))
    venue = mapping.venue(container)
    pages = mapping.pages(msg.get("page")) or \
        mapping.clean_text(msg.get("article-number")) or None
    fields: dict[str, str | None] = {
        "volume": mapping.clean_text(msg.get("volume")) or None,
        "number": mapping.clean_text(msg.get("issue")) or None,
        "pages": pages,
    }
    if entry_type in ("book", "proceedings"):
        venue = publisher
        fields["isbn"] = _isbn(msg)
        fields["series"] = mapping.venue(series[-1]) if series else None
    elif entry_type in ("incollection", "inproceedings"):
        # a paper's publisher only where the book is one: a chapter, a series volume
        fields["publisher"] = publisher if entry_type == "incollection" or series else None
        fields["series"] = mapping.venue(series[-1]) if series else None
        fields["isbn"] = _isbn(msg)
    elif entry_type == "techreport":
        venue = publisher or venue
    elif entry_type == "phdthesis":
        inst = mapping.first(msg.get("institution"))
        venue = mapping.venue(inst.get("name") if isinstance(inst, dict) else inst) or publisher
    elif entry_type == "misc":
        venue = None
        fields = {}
        if kind in ("dataset", "software") or msg.get("version"):
            # a data set's or a software release's repository (Zenodo, Dryad...)
            fields = {"publisher": publisher,
                      "version": mapping.clean_text(msg.get("version")) or None}
    url = mapping.clean_text(msg.get("URL") or msg.get("url")) or None
    if url and (entry_type != "misc" or "doi.org/" in url.lower()):
        url = None      # a DOI's own resolver link says nothing the doi field does not
    if editors and (authors or entry_type not in ("book", "proceedings")) \
            and entry_type != "article":
        fields["editor"] = " and ".join(editors)
    opts = EntryOptions(
        type=entry_type,
        title=mapping.title(mapping.first(msg.get("title")),
                            mapping.first(msg.get("subtitle"))) or None,
        authors=authors,
        year=mapping.year(parts[0]) if parts else None,
        month=mapping.month(parts[1]) if len(parts) > 1 else None,
        venue=venue,
        doi=mapping.doi(msg.get("DOI") or msg.get("doi")),
        url=url,
        fields=mapping.extra(**fields),
    )
    if not authors and editors and "editor" not in fields:
        opts.fields.append(f"editor={' and '.join(editors)}")
    return mapping.Found(opts, source, preprint=kind in PREPRINT_TYPES)
