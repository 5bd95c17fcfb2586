"""The arXiv API (``/api/query?id_list=...``), which answers an Atom feed.

Each ``<entry>`` has ``<id>`` (``http://arxiv.org/abs/2101.06840v1``), ``<title>``,
``<published>`` (the first version's date), ``<author><name>``, and in the arXiv
namespace ``<arxiv:doi>`` and ``<arxiv:journal_ref>`` once the paper is published.
An unknown id comes back as an empty feed or as an entry titled "Error".
An entry is ``@misc`` with ``eprint`` and ``archiveprefix = {arXiv}``, the way the
library records preprints.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..entries import EntryOptions
from . import BadResponse, NotFoundOnline, mapping
from .http import Client

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"


@dataclass
class Preprint:
    found: mapping.Found
    doi: str | None          # the published version's DOI, when arXiv knows it
    journal_ref: str | None


def fetch(client: Client, arxiv_id: str) -> Preprint:
    resp = client.get("arxiv", "/api/query", {"id_list": arxiv_id, "max_results": 1},
                      accept="application/atom+xml")
    if resp.status == 404:
        raise NotFoundOnline(f"arXiv does not know {arxiv_id}")
    return parse(resp.body, arxiv_id, resp.url)


def lookup(client: Client, arxiv_id: str) -> mapping.Found:
    return fetch(client, arxiv_id).found


def parse(body: bytes, arxiv_id: str, url: str = "arXiv") -> Preprint:
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise BadResponse(f"{url}: the answer is not valid XML ({exc})") from None
    if root.tag != f"{ATOM}feed":
        raise BadResponse(f"{url}: not an Atom feed")
    for entry in root.findall(f"{ATOM}entry"):
        eid = (entry.findtext(f"{ATOM}id") or "").strip()
        title = entry.findtext(f"{ATOM}title") or ""
        if "/api/errors" in eid or (title.strip() == "Error" and "abs/" not in eid):
            continue
        return _preprint(entry, arxiv_id)
    raise NotFoundOnline(f"arXiv does not know {arxiv_id}")


def _preprint(entry, arxiv_id: str) -> Preprint:
    names = [mapping.person_from_full(a.findtext(f"{ATOM}name"))
             for a in entry.findall(f"{ATOM}author")]
    published = (entry.findtext(f"{ATOM}published") or "").strip()
    doi = (entry.findtext(f"{ARXIV}doi") or "").strip() or None
    journal_ref = mapping.clean_text(entry.findtext(f"{ARXIV}journal_ref")) or None
    opts = EntryOptions(
        type="misc",
        title=mapping.title(entry.findtext(f"{ATOM}title"), tex_math=True) or None,
        authors=mapping.authors(names),
        year=mapping.year(published),
        month=mapping.month(published[5:7]) if len(published) >= 7 else None,
        fields=mapping.extra(eprint=arxiv_id, archiveprefix="arXiv"),
    )
    return Preprint(mapping.Found(opts, "arxiv", preprint=True), doi, journal_ref)
