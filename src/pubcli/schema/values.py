"""Field values: parse and validate a year, a date, a month, a DOI, a URL, an ISBN, once.

Every command asks this module: ``add`` and ``import`` validate with it, ``check``
lints with it, the page makes links with it and the matcher compares with it, so a
value one of them accepts the others accept too.

Parsers return a normalised value or None; they never raise. ``*_problem`` functions
return the sentence a user should read when a value is not acceptable (None when it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Mapping
from urllib.parse import quote, unquote

# ------------------------------------------------------------------ years and dates
#: BibTeX sort hacks: macros defined in a @preamble to print nothing and only steer
#: sorting (``year = "{\noopsort{1973c}}1981"`` prints 1981). Their argument is not text.
SORT_MACROS = ("noopsort", "noop", "nosort", "sortnoop", "SortNoop", "NOOPSORT", "sortkey",
               "printfirst", "nop")
_SORT_HACK_RE = re.compile(r"\\(?:{})\s*\{{[^{{}}]*\}}".format("|".join(SORT_MACROS)))
_YEAR_RE = re.compile(r"(?<![\d-])(-?\d{4})(?!\d)")
_PLAIN_YEAR_RE = re.compile(r"\d{4}")
_NEGATIVE_YEAR_RE = re.compile(r"-\d{1,4}")

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July",
               "August", "September", "October", "November", "December")
MONTH_MACROS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                "dec")
_MONTH_FAST = {**{name: i + 1 for i, name in enumerate(MONTH_NAMES)},
               **{m: i + 1 for i, m in enumerate(MONTH_MACROS)},
               **{str(i): i for i in range(1, 13)}}
_MONTH_PREFIX = {m: i + 1 for i, m in enumerate(MONTH_MACROS)}
#: the words a month is written as in running text (lower case): "may", "sep", "sept",
#: "september" (a pasted listing's date line is read by these)
MONTH_WORDS = {**{m.lower(): i + 1 for i, m in enumerate(MONTH_NAMES)}, **_MONTH_PREFIX,
               "sept": 9}


def is_blank(value: str | None) -> bool:
    """Whether a field is empty (``{}``, ``""``, spaces): BibTeX and biber read an empty
    field as an absent one, so its value is never malformed (a required field that is
    empty is missing, which the required-field rule says)."""
    return not value or not value.strip().strip("{}").strip()


def strip_sort_hacks(value: str) -> str:
    """``{\\noopsort{1973c}}1981`` -> ``1981``: what BibTeX prints."""
    if "\\" not in value:
        return value
    return _SORT_HACK_RE.sub("", value).replace("{}", "")


def parse_year(value: str | None) -> int | None:
    """The year a ``year`` field (or a date) gives, or None.

    Reads ``2024``, ``{2024}``, ``{\\noopsort{1973c}}1981`` (1981), ``2024-05-01`` and a
    negative (BCE) year as biblatex writes it (``-0044``) or as a ``year`` field holds
    it (``-44``, which :func:`year_problem` accepts too)."""
    if not value:
        return None
    if len(value) == 4 and value.isdigit():
        return int(value)
    v = strip_sort_hacks(value)
    if _NEGATIVE_YEAR_RE.fullmatch(v.strip().strip("{}").strip()):
        return int(v.strip().strip("{}"))
    m = _YEAR_RE.search(v)
    return int(m.group(1)) if m else None


def year_problem(value: str) -> str | None:
    """Why a ``year`` field is not a year (None when it is one, or empty)."""
    if is_blank(value):
        return None
    v = strip_sort_hacks(value).strip().strip("{}").strip()
    if _PLAIN_YEAR_RE.fullmatch(v) or _NEGATIVE_YEAR_RE.fullmatch(v):
        return None
    if "\\" in v and parse_year(v) is not None:
        return None  # other macros around a year (xampl's \switchargs{--90}{1968})
    return f"year {value!r} is not a four-digit year"


def parse_month(value: str | None) -> int | None:
    """Month number from ``may``, ``May``, ``5``, ``05`` or ``{May}``; None if unknown."""
    if not value:
        return None
    n = _MONTH_FAST.get(value)
    if n is not None:
        return n
    v = value.strip().strip("{}").strip().lower()
    if v.isdigit():
        n = int(v)
        return n if 1 <= n <= 12 else None
    return _MONTH_PREFIX.get(v[:3])


@dataclass(frozen=True)
class Date:
    """A biblatex date or range. ``end_year`` is None for a single date; an open range
    (``1988/``, ``1988/..``) has ``open_end``."""

    year: int
    month: int | None = None
    day: int | None = None
    end_year: int | None = None
    end_month: int | None = None
    end_day: int | None = None
    open_end: bool = False
    open_start: bool = False


# YYYY, YYYY-MM, YYYY-MM-DD (with EDTF's ?, ~, % markers and unspecified digits: 19XX),
# seasons 21-24 in the month place; a time after T is allowed and ignored.
_DATE_PART = r"(-?\d{4}|\d{2}XX|\d{3}X)(?:-(\d{2}|XX)(?:-(\d{2}|XX))?)?(?:T[\d:]+(?:Z|[+-]\d{2}:?\d{2})?)?[?~%]?"
_DATE_PART_RE = re.compile(_DATE_PART)


def _date_part(text: str) -> tuple[int, int | None, int | None] | None:
    m = _DATE_PART_RE.fullmatch(text.strip())
    if not m:
        return None
    y, mo, d = m.groups()
    year = int(y.replace("X", "0"))
    month = None if mo in (None, "XX") else int(mo)
    day = None if d in (None, "XX") else int(d)
    if month is not None and not (1 <= month <= 12 or 21 <= month <= 24):
        return None
    if day is not None and (month is None or month > 12 or
                            not 1 <= day <= _days_in_month(year, month)):
        return None  # biber refuses a day the calendar lacks (2023-02-29, 2024-04-31)
    return year, month, day


def _days_in_month(year: int, month: int) -> int:
    """Days in a month of the proleptic Gregorian calendar with astronomical year
    numbers (year 0 is 1 BCE, a leap year), as ISO 8601 and biber count them."""
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def parse_date(value: str | None) -> Date | None:
    """A biblatex ``date`` (ISO 8601-2 / EDTF as biblatex reads it), or None."""
    if not value:
        return None
    v = value.strip().strip("{}").strip()
    if "/" not in v:
        p = _date_part(v)
        return Date(*p) if p else None
    start, _, end = v.partition("/")
    start, end = start.strip(), end.strip()
    if start in ("", ".."):
        e = _date_part(end)
        return Date(*e, open_start=True) if e else None
    s = _date_part(start)
    if s is None:
        return None
    if end in ("", ".."):
        return Date(*s, open_end=True)
    e = _date_part(end)
    if e is None:
        return None
    return Date(*s, end_year=e[0], end_month=e[1], end_day=e[2])


def date_problem(value: str, field: str = "date") -> str | None:
    if is_blank(value):
        return None
    if parse_date(value) is None:
        return (f"{field} {value!r} is not YYYY, YYYY-MM, YYYY-MM-DD or a range of those "
                "(biblatex's ISO 8601 dates)")
    return None


#: biblatex's date fields (its data model's ``datepart`` fields): biber reads each as an
#: ISO 8601 date and warns about one it cannot.
DATE_FIELDS = ("date", "urldate", "origdate", "eventdate")


# ------------------------------------------------------------------ DOIs
# The prefixes DOIs are written with: resolvers old and new, publisher resolvers,
# "doi:" / "DOI " labels and the info URI.
_DOI_PREFIX_RE = re.compile(
    r"^(?:(?:https?://)?(?:(?:dx\.|www\.)?doi\.org|doi\.acm\.org|dx\.crossref\.org|"
    r"hdl\.handle\.net)/+|doi\s*[:=]?\s*|info:doi/)", re.I)
DOI_RE = re.compile(r"10\.\d{4,9}(?:\.\d+)*/\S+")
# a "." or ".." path segment ("10.1/../x") is a path trick, never a registered suffix
_DOT_SEGMENT_RE = re.compile(r"/\.{1,2}(?:/|$)")
_DOI_SEARCH_RE = re.compile(r"10\.\d{4,9}(?:\.\d+)*/[^\s\"<>{}]+", re.I)


def parse_doi(value: str | None) -> str | None:
    """The DOI ``10.NNNN/suffix`` in ``value``, written in any of its usual forms
    (``https://doi.org/``, ``http://dx.doi.org/``, ``http://doi.acm.org/``, ``doi:``, a
    percent-encoded URL), or None when it is not one. Case is kept (DOIs compare
    case-insensitively: :func:`doi_match_key`)."""
    if not value:
        return None
    v = value.strip().replace("\\_", "_").replace("\\%", "%")
    if v.startswith("{") and v.endswith("}"):
        v = v[1:-1].strip()
    if v.startswith("\\url{") and v.endswith("}"):  # doi = {\url{https://doi.org/...}}
        v = v[5:-1].strip()
    for _ in range(2):  # "doi: https://doi.org/10..." has two prefixes
        v = _DOI_PREFIX_RE.sub("", v, count=1).strip()
    if "%" in v:
        v = unquote(v)
    v = _trim_doi(v)
    if not DOI_RE.fullmatch(v) or _DOT_SEGMENT_RE.search(v):
        return None
    return v


def find_doi(text: str | None) -> str | None:
    """The first DOI inside a longer text (a URL, a note), or None."""
    if not text or "10." not in text:
        return None
    direct = parse_doi(text)
    if direct:
        return direct
    clean = text.replace("\\_", "_").replace("{", "").replace("}", "")
    m = _DOI_SEARCH_RE.search(unquote(clean) if "%" in clean else clean)
    return _trim_doi(m.group(0)) if m else None


def _trim_doi(doi: str) -> str:
    """Drop the punctuation a sentence puts after a DOI (an unbalanced ")" too), keeping
    the brackets that belong to it: ``10.1002/(SICI)1097-4636(199606)``."""
    doi = doi.rstrip(".,;")
    while doi and doi[-1] in ")]":
        opening = "(" if doi[-1] == ")" else "["
        if doi.count(doi[-1]) <= doi.count(opening):
            break
        doi = doi[:-1].rstrip(".,;")
    return doi


def doi_problem(value: str) -> str | None:
    if is_blank(value):
        return None
    if parse_doi(value) is None:
        return f"DOI {value!r} does not look like 10.NNNN/suffix"
    return None


def doi_match_key(doi: str) -> str:
    """The form two DOIs are compared in (DOIs are case-insensitive)."""
    return doi.casefold()


def doi_url(value: str) -> str | None:
    """``https://doi.org/<doi>`` for a DOI in any form, or None."""
    doi = parse_doi(value)
    return "https://doi.org/" + doi if doi else None


# ------------------------------------------------------------------ URLs
_URL_RE = re.compile(r"(?:https?|ftp)://[^\s\"<>{}]+", re.I)
_WEB_RE = re.compile(r"https?://[^\s\"'<>{}]+", re.I)
# what a reference may print as its address besides: the other schemes real url fields
# use (TeX Live's bibliographies: ftp, file, mailto), none of which runs anything
_PRINTED_RE = re.compile(r"(?:ftps?://|file:/|mailto:)[^\s\"'<>{}]+", re.I)
#: characters a link may carry as they are; anything else is percent-encoded
_LINK_SAFE = "/:?#[]@!$&'()*+,;=%-._~"


def parse_url(value: str | None) -> str | None:
    """An ``http(s)://`` or ``ftp://`` address without spaces, or None."""
    if not value:
        return None
    v = value.strip()
    if v.startswith("\\url{") and v.endswith("}"):
        v = v[5:-1].strip()
    return v if _URL_RE.fullmatch(v) else None


def web_link(value: str | None, *, printed: bool = False) -> str | None:
    """A URL safe to put in a link on a page, or None: only ``http(s)://``, with no
    space, quote, ``<``, ``>`` or brace (such a value is no URL: markup or an attack;
    ``\\url{...}`` is unwrapped), any other character a link may not carry as it is
    (non-ASCII, ``|``, a backslash...) percent-encoded. The one URL rule of the page,
    CSL-JSON, ``show`` and the resource fields. ``printed``: the address a reference
    prints (CSL-JSON's URL), which BibTeX prints in any scheme: ``ftp://``, ``file:/``
    and ``mailto:`` too (browsers open none of them from a page, so no link gets them)."""
    if not value:
        return None
    v = value.strip()
    if v.startswith("\\url{") and v.endswith("}"):
        v = v[5:-1].strip()
    if not (_WEB_RE.fullmatch(v) or printed and _PRINTED_RE.fullmatch(v)):
        return None
    return quote(v, safe=_LINK_SAFE)


def url_problem(value: str) -> str | None:
    if is_blank(value):
        return None
    if parse_url(value) is None:
        return f"URL {value!r} is not an http(s):// or ftp:// address without spaces"
    return None


# ------------------------------------------------------------------ ISBNs
_ISBN_SEARCH_RE = re.compile(r"(?<![\dX])(?:97[89][\s-]?)?\d(?:[\s-]?\d){8}[\s-]?[\dXx](?![\dX])")


def parse_isbn(value: str | None) -> str | None:
    """The ISBN-13 for an ISBN-10 or ISBN-13 with a valid check digit, or None."""
    if not value:
        return None
    m = _ISBN_SEARCH_RE.search(value)  # the first one: "0-201-13448-9 (paperback)"
    if not m:
        return None
    digits = re.sub(r"[\s-]", "", m.group(0)).upper()
    if re.fullmatch(r"\d{9}[\dX]", digits):
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(digits))
        if total % 11:
            return None
        core = "978" + digits[:9]
    elif re.fullmatch(r"97[89]\d{10}", digits):
        core = digits[:12]
        if _isbn13_check(core) != digits[12]:
            return None
    else:
        return None
    return core + _isbn13_check(core)


def _isbn13_check(twelve: str) -> str:
    total = sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(twelve))
    return str((10 - total % 10) % 10)


def isbn_problem(value: str) -> str | None:
    if is_blank(value):
        return None
    if parse_isbn(value) is None:
        return f"ISBN {value!r} is not a valid ISBN-10 or ISBN-13 (check digit)"
    return None


# ------------------------------------------------------------------ every rule at once
def field_problems(fields: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """``(field, kind, why)`` for each value in ``fields`` a rule here refuses, in the
    order year, dates, DOI, URL; ``kind`` is ``year``, ``date``, ``doi`` or ``url``
    (``pubcli check`` reports ``bad-KIND``; ``add`` and ``import`` refuse the entry)."""
    out = []
    year = fields.get("year")
    if year is not None and (why := year_problem(year)):
        out.append(("year", "year", why))
    for name in DATE_FIELDS:
        value = fields.get(name)
        if value is not None and (why := date_problem(value, name)):
            out.append((name, "date", why))
    for name, problem in (("doi", doi_problem), ("url", url_problem)):
        value = fields.get(name)
        if value is not None and (why := problem(value)):
            out.append((name, name, why))
    return out
