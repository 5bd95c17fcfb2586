"""OpenAlex: an author's works (``/works?filter=author.id:A...``, cursor paging).

A work has ``id`` (``https://openalex.org/W...``, recorded as ``openalex = {W...}``),
``doi`` (a doi.org URL), ``title``, ``publication_year``, ``publication_date``,
``type``, ``authorships[].author.display_name``, ``primary_location.source``
(``display_name`` and ``type``: journal, conference, repository...), ``biblio``
(volume, issue, first_page, last_page) and ``locations`` (an arXiv landing page
gives the arXiv id). ``publication_date`` is always a whole date, ``YYYY-01-01``
standing for a year alone: that gives no month (:func:`.mapping.iso_month`).
"""

from __future__ import annotations

import re

from pubcli.usecases.newentry import EntryOptions
from ..errors import ValidationError
from . import BadResponse, NotFoundOnline, ids, mapping
from .http import Client

PER_PAGE = 200
MAX_PAGES = 50


def works(client: Client, author_id: str) -> list[mapping.Found]:
    out: list[mapping.Found] = []
    cursor = "*"
    for _ in range(MAX_PAGES):
        resp = client.get("openalex", "/works", {"filter": f"author.id:{author_id}",
                                                 "per-page": PER_PAGE, "cursor": cursor})
        if resp.status == 404:
            raise NotFoundOnline(f"OpenAlex does not know the author {author_id}")
        data = resp.json()
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise BadResponse(f"{resp.url}: an OpenAlex answer without 'results'")
        out += [to_found(w) for w in results if isinstance(w, dict)]
        meta = data.get("meta") or {}
        cursor = str(_dict(meta).get("next_cursor") or "")
        if not cursor or not results:
            break
    return out


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _arxiv(work: dict) -> str:
    for loc in [work.get("primary_location")] + list(work.get("locations") or []):
        if isinstance(loc, dict):
            for url in (loc.get("landing_page_url"), loc.get("pdf_url")):
                if url and "arxiv.org" in url:
                    try:
                        return ids.parse_arxiv(url)
                    except ValidationError:
                        continue
    doi = str(work.get("doi") or "")
    m = re.search(r"10\.48550/arxiv\.(.+)$", doi, re.I)
    return m.group(1) if m else ""


def to_found(work: dict) -> mapping.Found:
    wid = str(work.get("id") or "").rsplit("/", 1)[-1]
    kind = str(work.get("type") or "")
    loc = _dict(work.get("primary_location"))
    source = _dict(loc.get("source"))
    stype = str(source.get("type") or "")
    arxiv = _arxiv(work)
    if kind == "preprint" or stype == "repository" or (arxiv and not stype):
        entry_type = "misc"
    elif kind in ("book-chapter",):
        entry_type = "incollection"
    elif kind == "book":
        entry_type = "book"
    elif kind == "dissertation":
        entry_type = "phdthesis"
    elif kind == "report":
        entry_type = "techreport"
    elif stype == "conference":
        entry_type = "inproceedings"
    elif kind == "article" and stype == "journal":
        entry_type = "article"
    else:
        entry_type = "misc"
    doi = mapping.doi(work.get("doi")) or ""
    if doi.startswith("10.48550/"):
        doi = ""
    names = []
    for a in work.get("authorships") or []:
        if isinstance(a, dict):
            author = _dict(a.get("author"))
            names.append(mapping.person_from_full(author.get("display_name")
                                                  or a.get("raw_author_name")))
    biblio = _dict(work.get("biblio"))
    date = str(work.get("publication_date") or "")
    extra = {}
    if entry_type not in ("misc",):
        extra = {"volume": mapping.clean_text(biblio.get("volume")) or None,
                 "number": mapping.clean_text(biblio.get("issue")) or None,
                 "pages": mapping.pages(biblio.get("first_page"), biblio.get("last_page"))}
    if arxiv:
        extra.update(eprint=arxiv, archiveprefix="arXiv")
    opts = EntryOptions(
        type=entry_type,
        title=mapping.title(work.get("title") or work.get("display_name")) or None,
        authors=mapping.authors(names),
        year=mapping.year(work.get("publication_year")),
        month=mapping.iso_month(date),   # OpenAlex writes YYYY-01-01 for a year alone
        venue=mapping.venue(source.get("display_name")) if entry_type != "misc" else None,
        doi=doi or None,
        fields=mapping.extra(**extra),
    )
    return mapping.Found(opts, "openalex", ids={"openalex": wid} if wid else {},
                         preprint=entry_type == "misc" and bool(arxiv))
