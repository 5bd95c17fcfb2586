"""Identifiers the online commands accept, each recognised and checked here once.

A DOI is checked by :func:`pubcli.usecases.newentry.normalize_doi` (the one DOI rule); the
others live here: arXiv ids (``2101.06840``, ``2101.06840v2``, ``hep-th/9901001``),
ISBN-10/13 (checked by :mod:`pubcli.schema.values`), ORCID iDs with theirs, DBLP person ids
(``251/3272``, ``h/JaneDoe``) and OpenAlex author ids (``A5023888391``), bare or as
the services' URLs.
"""

from __future__ import annotations

import re

from ..errors import ValidationError
from pubcli.schema import identifiers

_DOI_URL = re.compile(r"^(?:https?://)?(?:dx\.)?doi\.org/", re.I)
_ISBN_PREFIX = re.compile(r"^isbn(?:-1[03])?:?\s*", re.I)
_ORCID = re.compile(r"^(?:https?://)?(?:www\.)?(?:sandbox\.)?(?:orcid\.org/)?"
                    r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])/?$", re.I)
_DBLP = re.compile(r"^(?:https?://dblp\.(?:org|uni-trier\.de)/pid/)?"
                   r"([a-z0-9]+/[A-Za-z0-9-]+)(?:\.html|\.bib|\.xml)?/?$", re.I)
_OPENALEX = re.compile(r"^(?:https?://(?:api\.)?openalex\.org/(?:authors/)?)?(A\d{4,12})/?$",
                       re.I)


def parse_arxiv(value: str) -> str:
    """"arXiv:2101.06840v2", "https://arxiv.org/abs/2101.06840" -> "2101.06840"
    (the version is dropped: the entry names the work); refused when it is none."""
    found = identifiers.parse_arxiv(value)
    if found is None:
        raise ValidationError(f"{value!r} is not an arXiv id (expected e.g. 2101.06840)",
                              field="arxiv")
    return found


def parse_isbn(value: str) -> str:
    """An ISBN-10 or -13 (hyphens and spaces allowed), checked, as ISBN-13 digits
    (:func:`pubcli.schema.values.parse_isbn` decides)."""
    from pubcli.schema.values import isbn_problem, parse_isbn as parse

    isbn = parse(_ISBN_PREFIX.sub("", value.strip()))
    if isbn is None:
        raise ValidationError(isbn_problem(value) or f"{value!r} is not an ISBN", field="isbn")
    return isbn


def parse_orcid(value: str) -> str:
    """"https://orcid.org/0000-0002-1825-0097" -> "0000-0002-1825-0097" (checked)."""
    m = _ORCID.match(value.strip())
    if m:
        oid = m.group(1).upper()
        digits = oid.replace("-", "")
        total = 0
        for c in digits[:-1]:
            total = (total + int(c)) * 2
        check = (12 - total % 11) % 11
        if digits[-1] == ("X" if check == 10 else str(check)):
            return oid
    raise ValidationError(f"{value!r} is not an ORCID iD (0000-0000-0000-000X, with a valid "
                          "check digit)", field="orcid")


def parse_dblp(value: str) -> str:
    """"https://dblp.org/pid/251/3272.html" -> "251/3272"."""
    m = _DBLP.match(value.strip())
    if not m:
        raise ValidationError(f"{value!r} is not a DBLP person id (e.g. 251/3272)",
                              field="dblp")
    return m.group(1)


def parse_openalex(value: str) -> str:
    """"https://openalex.org/A5023888391" -> "A5023888391"."""
    m = _OPENALEX.match(value.strip())
    if not m:
        raise ValidationError(f"{value!r} is not an OpenAlex author id (e.g. A5023888391)",
                              field="openalex")
    return m.group(1).upper()


def classify(value: str) -> tuple[str, str]:
    """What a bare identifier or URL names: ("doi" | "arxiv" | "isbn", the id)."""
    from pubcli.usecases.newentry import normalize_doi

    v = value.strip()
    arxiv = identifiers.parse_arxiv(v)
    if arxiv:
        return "arxiv", arxiv
    if _DOI_URL.match(v) or v.lower().startswith(("10.", "doi:")):
        return "doi", normalize_doi(v)
    if _ISBN_PREFIX.match(v) or re.fullmatch(r"[\d\s-]{9,17}[\dXx]", v):
        return "isbn", parse_isbn(v)
    raise ValidationError(f"{value!r} is not a DOI, an arXiv id or an ISBN (nor a doi.org "
                          "or arxiv.org URL)")


def to_fetch(positional: str | None = None, *, doi: str | None = None,
             arxiv: str | None = None, isbn: str | None = None,
             manual: bool = False) -> tuple[str, str] | None:
    """What ``pubcli add`` fetches: (kind, id) from ID_OR_URL, --arxiv, --isbn or a --doi
    given alone; None for an entry made from the options (``manual``: --title or
    --author was given, so a --doi is just the entry's DOI)."""
    from pubcli.usecases.newentry import normalize_doi

    given = [v for v in (positional, arxiv, isbn) if v] + ([doi] if doi and not manual else [])
    if len(given) > 1:
        raise ValidationError("give one identifier to fetch (ID_OR_URL, --doi, --arxiv or "
                              "--isbn)")
    if positional:
        return classify(positional)
    if arxiv:
        return "arxiv", parse_arxiv(arxiv)
    if isbn:
        return "isbn", parse_isbn(isbn)
    if doi and not manual:
        return "doi", normalize_doi(doi)
    return None


