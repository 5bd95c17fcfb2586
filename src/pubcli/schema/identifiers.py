"""An entry's identifiers that are not a field of their own: its arXiv id, found once here.

A DOI, a URL and an ISBN are values (:mod:`pubcli.schema.values`); an arXiv id hides in
many places (``eprint`` with ``archiveprefix``/``eprinttype``, an ``arxiv`` field, an arXiv
DOI or URL, a journal or note saying "arXiv preprint arXiv:2101.06840"). The page's link,
CSL-JSON, the matcher and the online commands all ask :func:`arxiv_of`.
"""

from __future__ import annotations

import re
from typing import Mapping

#: new-style (2007-) and old-style (``hep-th/9901001``, ``math.AG/0601001``) arXiv ids
_NEW = r"\d{4}\.\d{4,5}"
_OLD = r"[a-z][a-z-]*(?:\.[A-Za-z]{2})?/\d{7}"
_VERSION = r"(?:v\d+)?"
_EXACT = re.compile(rf"(?:arxiv:\s*)?({_NEW}|{_OLD})({_VERSION})", re.I)
_SEARCH_NEW = re.compile(rf"(?<![\d.])({_NEW})({_VERSION})(?!\d)")
_SEARCH_OLD = re.compile(rf"(?<![\w.-])({_OLD})({_VERSION})\b", re.I)
_URL_OR_DOI = re.compile(r"^(?:https?://)?(?:(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/"
                         r"|(?:dx\.)?doi\.org/)?(?:10\.48550/arxiv\.)?(.+?)(?:\.pdf)?/?$", re.I)

#: fields that may mention an arXiv id in passing, read only when they say "arXiv"
_MENTIONS = ("doi", "url", "journal", "journaltitle", "howpublished", "note", "booktitle",
             "number", "volume", "publisher")


def parse_arxiv(value: str, *, version: bool = False) -> str | None:
    """``arXiv:2101.06840v2``, ``https://arxiv.org/abs/2101.06840``,
    ``10.48550/arXiv.2101.06840`` -> ``2101.06840`` (with ``v2`` when ``version``);
    None when the value is not an arXiv id."""
    m = _URL_OR_DOI.match(value.strip())
    m = _EXACT.fullmatch(m.group(1)) if m else None
    if not m:
        return None
    return m.group(1) + (m.group(2) if version else "")


def _mentions_arxiv(value: str) -> bool:
    return "rxiv" in value.lower()


def _search(value: str, version: bool) -> str | None:
    m = _SEARCH_NEW.search(value) or _SEARCH_OLD.search(value)
    return m.group(1) + (m.group(2) if version else "") if m else None


def arxiv_of(fields: Mapping[str, str], *, version: bool = False) -> str:
    """The arXiv id an entry names, or "": ``eprint`` (unless ``archiveprefix`` or
    ``eprinttype`` names another archive), an ``arxiv`` field, then an arXiv DOI, URL,
    journal or note. The version (``v2``) only when ``version`` (a link to what the entry
    cites); matching and lookups name the work."""
    eprint = (fields.get("eprint") or "").strip()
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip()
    if eprint and (not prefix or _mentions_arxiv(prefix)):
        found = parse_arxiv(eprint, version=version) or _search(eprint, version)
        if found:
            return found
    own = (fields.get("arxiv") or "").strip()
    if own:
        found = parse_arxiv(own, version=version) or _search(own, version)
        if found:
            return found
    for name in _MENTIONS:
        v = fields.get(name)
        if v and _mentions_arxiv(v):
            found = parse_arxiv(v, version=version) or _search(v, version)
            if found:
                return found
    return ""


def arxiv_url(arxiv_id: str) -> str:
    """The abstract page of an arXiv id."""
    return "https://arxiv.org/abs/" + arxiv_id
