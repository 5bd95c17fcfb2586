"""ORCID's public API v3.0: a person's works (``/v3.0/<orcid>/works``, JSON).

The answer groups the same work from several sources: ``group[].work-summary[]``
with ``put-code``, ``title.title.value``, ``type`` (journal-article,
conference-paper...), ``publication-date.year/month.value``, ``journal-title.value``
and ``external-ids.external-id[]`` (``external-id-type`` doi, arxiv...). Summaries
carry no authors: for the works no other source describes, :func:`details_many`
reads them in bulk, ``/v3.0/<orcid>/works/<put-code>,<put-code>`` (each work's
``contributors.contributor[].credit-name``).
The first summary's put-code is recorded as ``orcid-put-code = {...}``.
"""

from __future__ import annotations

from pubcli.usecases.newentry import EntryOptions, normalize_doi
from ..errors import ValidationError
from pubcli.schema import identifiers
from . import BadResponse, NotFoundOnline, ids, mapping
from .http import Client
from .services import segment

ACCEPT = "application/vnd.orcid+json"
TYPES = {"journal-article": "article", "conference-paper": "inproceedings",
         "book-chapter": "incollection", "book": "book", "edited-book": "book",
         "report": "techreport", "dissertation-thesis": "phdthesis",
         "dissertation": "phdthesis", "preprint": "misc", "working-paper": "techreport"}
ID_FIELD = "orcid-put-code"


def _value(obj, *path):
    for p in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(p)
    return obj


def works(client: Client, orcid: str) -> list[mapping.Found]:
    resp = client.get("orcid", f"/v3.0/{segment(orcid)}/works", accept=ACCEPT)
    if resp.status == 404:
        raise NotFoundOnline(f"ORCID does not know {orcid}")
    data = resp.json()
    groups = data.get("group") if isinstance(data, dict) else None
    if not isinstance(groups, list):
        raise BadResponse(f"{resp.url}: an ORCID answer without 'group'")
    out = []
    for g in groups:
        summaries = g.get("work-summary") if isinstance(g, dict) else None
        if isinstance(summaries, list) and summaries and isinstance(summaries[0], dict):
            out.append(to_found(summaries[0]))
    return out


def details(client: Client, orcid: str, found: mapping.Found) -> mapping.Found:
    """``found`` with its authors, from the full work record."""
    resp = client.get("orcid", f"/v3.0/{segment(orcid)}/work/{segment(found.ids[ID_FIELD])}",
                      accept=ACCEPT)
    if resp.status == 404:
        return found
    _take_authors(found, resp.json())
    return found


BULK = 50   # put-codes per /works/{a,b,c} request (ORCID's bulk read)


def details_many(client: Client, orcid: str, founds: list[mapping.Found]) -> None:
    """The authors of many works at once: ``/v3.0/<orcid>/works/<put-code>,<put-code>``
    answers ``{"bulk": [{"work": {...}} | {"error": {...}}]}``, in the order asked."""
    todo = [f for f in founds if str(f.ids.get(ID_FIELD, "")).isdigit()]
    for i in range(0, len(todo), BULK):
        chunk = todo[i:i + BULK]
        codes = ",".join(str(f.ids[ID_FIELD]) for f in chunk)
        resp = client.get("orcid", f"/v3.0/{segment(orcid)}/works/{codes}", accept=ACCEPT)
        if resp.status == 404:
            continue
        bulk = _value(resp.json(), "bulk")
        if not isinstance(bulk, list):
            raise BadResponse(f"{resp.url}: an ORCID bulk answer without 'bulk'")
        by_code = {str(_value(item, "work", "put-code")): _value(item, "work") for item in bulk}
        for f in chunk:
            work = by_code.get(str(f.ids[ID_FIELD]))
            if isinstance(work, dict):
                _take_authors(f, work)


def _take_authors(found: mapping.Found, work: object) -> None:
    people = _value(work, "contributors", "contributor")
    names = []
    for c in people if isinstance(people, list) else []:
        names.append(mapping.person_from_full(_value(c, "credit-name", "value")))
    found.opts.authors = mapping.authors(names)


def to_found(s: dict) -> mapping.Found:
    kind = str(s.get("type") or "")
    entry_type = TYPES.get(kind, "misc")
    doi = arxiv = None
    for e in _value(s, "external-ids", "external-id") or []:
        t = str(_value(e, "external-id-type") or "").lower()
        v = str(_value(e, "external-id-value") or "").strip()
        try:
            if t == "doi" and doi is None:
                doi = mapping.doi(normalize_doi(v))
            elif t == "arxiv" and arxiv is None:
                arxiv = ids.parse_arxiv(v)
        except ValidationError:
            continue
    if doi and doi.startswith("10.48550/"):
        arxiv = arxiv or identifiers.arxiv_of({"doi": doi})
        doi = None
    if arxiv and entry_type == "misc":
        doi = None
    journal = _value(s, "journal-title", "value")
    extra = {"eprint": arxiv, "archiveprefix": "arXiv" if arxiv else None}
    opts = EntryOptions(
        type=entry_type,
        # researchers type their titles into ORCID, math as TeX ($\ell_1$)
        title=mapping.title(_value(s, "title", "title", "value"),
                            _value(s, "title", "subtitle", "value"), tex_math=True) or None,
        year=mapping.year(_value(s, "publication-date", "year", "value")),
        month=mapping.month(_value(s, "publication-date", "month", "value")),
        venue=mapping.venue(journal) if entry_type != "misc" else None,
        doi=doi,
        fields=mapping.extra(**extra),
    )
    put = s.get("put-code")
    return mapping.Found(opts, "orcid", ids={ID_FIELD: str(put)} if put is not None else {},
                         preprint=entry_type == "misc" and bool(arxiv))
