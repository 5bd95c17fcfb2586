"""The arXiv API (``/api/query?id_list=...``), which answers an Atom feed.

Each ``<entry>`` has ``<id>`` (``http://arxiv.org/abs/2101.06840v1``), ``<title>``,
``<published>`` (the first version's date), ``<author><name>``, and in the arXiv
namespace ``<arxiv:primary_category term="cs.LG">`` (written ``primaryclass``, as
arXiv's own BibTeX does; biblatex reads it as ``eprintclass``), ``<arxiv:comment>``
(a withdrawn paper says so there or in its ``<summary>``: a note warns), and
``<arxiv:doi>`` and ``<arxiv:journal_ref>`` once the paper is published.
:func:`fetch_many` asks for many ids in one ``id_list`` request.
An unknown id comes back as an empty feed or as an entry titled "Error".
An entry is ``@misc`` with ``eprint`` and ``archiveprefix = {arXiv}``, the way the
library records preprints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable, Sequence

from pubcli.usecases.newentry import EntryOptions
from ..errors import ValidationError
from . import BadResponse, NotFoundOnline, ids, mapping
from .http import Client

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"


BATCH = 50          # ids per id_list request (arXiv takes a comma-separated list)
_WITHDRAWN = re.compile(r"\b(?:has been|was|is) withdrawn\b|\bwithdrawn by\b|^withdrawn\b",
                        re.I)
# an abstract replaced by the withdrawal notice starts with it
_WITHDRAWN_SUMMARY = re.compile(r"^(?:this (?:paper|article|submission|manuscript|work) "
                                r"(?:has been|is|was) withdrawn|withdrawn\b)", re.I)


@dataclass
class Preprint:
    found: mapping.Found
    doi: str | None          # the published version's DOI, when arXiv knows it
    journal_ref: str | None
    withdrawn: bool = False


def fetch(client: Client, arxiv_id: str) -> Preprint:
    resp = client.get("arxiv", "/api/query", {"id_list": arxiv_id, "max_results": 1},
                      accept="application/atom+xml")
    if resp.status == 404:
        raise NotFoundOnline(f"arXiv does not know {arxiv_id}")
    return parse(resp.body, arxiv_id, resp.url)


def fetch_many(client: Client, arxiv_ids: Sequence[str],
               progress: Callable[[int], None] | None = None) -> dict[str, Preprint]:
    """The preprints arXiv knows among ``arxiv_ids``, :data:`BATCH` per request
    (one request instead of one per id, each 3 s apart); an unknown id is left out."""
    out: dict[str, Preprint] = {}
    wanted = list(dict.fromkeys(arxiv_ids))
    for i in range(0, len(wanted), BATCH):
        chunk = wanted[i:i + BATCH]
        resp = client.get("arxiv", "/api/query", {"id_list": ",".join(chunk),
                                                  "max_results": len(chunk)},
                          accept="application/atom+xml")
        if resp.status != 404:
            for eid, pre in parse_all(resp.body, resp.url):
                if eid in chunk:
                    out.setdefault(eid, pre)
        if progress is not None:
            progress(len(chunk))
    return out


def lookup(client: Client, arxiv_id: str) -> mapping.Found:
    return fetch(client, arxiv_id).found


def _feed(body: bytes, url: str):
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
        yield entry, eid


def parse(body: bytes, arxiv_id: str, url: str = "arXiv") -> Preprint:
    for entry, _ in _feed(body, url):
        return _preprint(entry, arxiv_id)
    raise NotFoundOnline(f"arXiv does not know {arxiv_id}")


def parse_all(body: bytes, url: str = "arXiv") -> list[tuple[str, Preprint]]:
    """Every entry of a feed, with the id its ``<id>`` names."""
    out = []
    for entry, eid in _feed(body, url):
        try:
            arxiv_id = ids.parse_arxiv(eid)
        except ValidationError:
            continue
        out.append((arxiv_id, _preprint(entry, arxiv_id)))
    return out


def _preprint(entry, arxiv_id: str) -> Preprint:
    names = [mapping.person_from_full(a.findtext(f"{ATOM}name"))
             for a in entry.findall(f"{ATOM}author")]
    published = (entry.findtext(f"{ATOM}published") or "").strip()
    doi = mapping.doi(entry.findtext(f"{ARXIV}doi"))
    journal_ref = mapping.clean_text(entry.findtext(f"{ARXIV}journal_ref")) or None
    primary = entry.find(f"{ARXIV}primary_category")
    primary_class = mapping.clean_text(primary.get("term")) if primary is not None else ""
    if not re.fullmatch(r"[a-z][a-z-]*(?:\.[A-Za-z-]+)?", primary_class):
        primary_class = ""
    comment = mapping.clean_text(entry.findtext(f"{ARXIV}comment"))
    summary = mapping.clean_text(entry.findtext(f"{ATOM}summary"))
    withdrawn = bool(_WITHDRAWN.search(comment) or _WITHDRAWN_SUMMARY.match(summary))
    opts = EntryOptions(
        type="misc",
        title=mapping.title(entry.findtext(f"{ATOM}title"), tex_math=True) or None,
        authors=mapping.authors(names),
        year=mapping.year(published),
        month=mapping.month(published[5:7]) if len(published) >= 7 else None,
        fields=mapping.extra(eprint=arxiv_id, archiveprefix="arXiv",
                             primaryclass=primary_class or None),
    )
    found = mapping.Found(opts, "arxiv", preprint=True)
    if withdrawn:
        found.notes.append(f"arXiv marks {arxiv_id} as withdrawn"
                           + (f" ({comment[:120]})" if comment else "")
                           + "; check before citing it")
    return Preprint(found, doi, journal_ref, withdrawn)
