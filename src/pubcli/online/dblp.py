"""DBLP: a person's publications as BibTeX (``/pid/<pid>.bib``).

DBLP's keys are ``DBLP:conf/iclr/WangQJ24``; the part after ``DBLP:`` is recorded
as ``dblp = {...}``. Names are "First Last" (a homonym number such as "0001" is
dropped) and already LaTeX; CoRR entries (``journal = {CoRR}``, ``eprinttype =
{arXiv}``) become ``@misc`` preprints with ``eprint``/``archiveprefix``; DBLP's
bookkeeping fields (``timestamp``, ``biburl``, ``bibsource``) and a ``url`` that is
the DOI's are left out.
"""

from __future__ import annotations

from pubcli.usecases.newentry import EntryOptions
from pubcli.text.encode import protect_case
from . import BadResponse, NotFoundOnline, mapping
from .http import Client
from .services import segment

DROP = frozenset({"timestamp", "biburl", "bibsource", "eprinttype", "eprintclass",
                  "archiveprefix", "crossref", "ee", "cdrom"})
# the editors DBLP gives a paper are its proceedings' or book's: kept only for volumes
EDITED = frozenset({"book", "proceedings", "collection"})
# fields that hold the venue, per type (the add puts it back there)
VENUE = {"article": "journal", "inproceedings": "booktitle", "incollection": "booktitle",
         "book": "publisher", "proceedings": "publisher", "phdthesis": "school",
         "mastersthesis": "school", "techreport": "institution"}


def works(client: Client, pid: str) -> list[mapping.Found]:
    path = "/".join(segment(part) for part in pid.split("/"))
    resp = client.get("dblp", f"/pid/{path}.bib", accept="application/x-bibtex, text/plain")
    if resp.status == 404:
        raise NotFoundOnline(f"DBLP does not know the person {pid}")
    text = resp.text()
    if "@" not in text:
        if text.strip():
            raise BadResponse(f"{resp.url}: not a BibTeX answer")
        return []
    return parse(text, resp.url)


def parse(text: str, url: str = "DBLP") -> list[mapping.Found]:
    from .. import bibtex

    parsed = bibtex.parse(text)
    if not parsed.records and parsed.failed:
        raise BadResponse(f"{url}: the BibTeX answer cannot be read "
                          f"(line {parsed.failed[0].line}: {parsed.failed[0].reason})")
    return [to_found(rec.key, rec.type, rec.fields) for rec in parsed.records]


def to_found(key: str, entry_type: str, fields: dict[str, str]) -> mapping.Found:
    f = {k: " ".join(v.split()) for k, v in fields.items()}
    dblp_id = key[5:] if key.startswith("DBLP:") else key
    arxiv = f.get("eprint") if (f.get("eprinttype") or f.get("archiveprefix") or "").lower() \
        == "arxiv" else None
    preprint = entry_type == "article" and f.get("journal", "").lower() == "corr"
    if preprint:
        entry_type = "misc"
        for name in ("journal", "volume", "number", "pages"):
            f.pop(name, None)
    authors = [mapping.person_from_full(a, latex=True)
               for a in f.pop("author", "").split(" and ") if a.strip()]
    venue_field = VENUE.get(entry_type)
    venue = f.pop(venue_field, None) if venue_field else None
    doi = mapping.doi(f.pop("doi", None))
    url = f.pop("url", None)
    if url and (doi and doi in url.lower() or "arxiv.org" in url):
        url = None
    if entry_type == "inproceedings":
        f.pop("publisher", None)
        f.pop("series", None)
    if entry_type not in EDITED:
        f.pop("editor", None)
    elif f.get("editor"):
        f["editor"] = " and ".join(mapping.person_from_full(e, latex=True)
                                   for e in f["editor"].split(" and ") if e.strip())
    title = protect_case(f.pop("title", "").rstrip(" ."))
    year, month = f.pop("year", None), f.pop("month", None)
    f.pop("eprint", None)
    rest = {k: v for k, v in f.items() if k not in DROP}
    if arxiv:
        rest.update(eprint=arxiv, archiveprefix="arXiv")
    opts = EntryOptions(type=entry_type, title=title or None, authors=authors, year=year,
                        month=month, venue=venue, doi=doi, url=url,
                        fields=mapping.extra(**rest))
    return mapping.Found(opts, "dblp", ids={"dblp": dblp_id}, preprint=preprint)
