"""Identifiers and numbers: DOI, arXiv id, ISBN, PMID; volumes, issues, pages, editions."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

from pubcli.schema import values
from pubcli.schema.identifiers import arxiv_of
from .normalise import _NUMBER_WORDS, normalise

PREPRINT_DOI = ("10.48550/", "10.1101/", "10.21203/", "10.2139/", "10.20944/", "10.31234/",
                 "10.31219/", "10.31235/", "10.36227/", "10.22541/", "10.26434/", "10.5281/")
BOOKLIKE = frozenset({"book", "mvbook", "collection", "mvcollection", "proceedings",
                       "mvproceedings", "manual", "booklet", "reference"})


def normalise_doi(value: str | None) -> str:
    """``https://doi.org/10.1000/ABC.`` -> ``10.1000/abc``: the DOI a field holds, in the
    form two DOIs compare in (:mod:`pubcli.schema.values` reads it); "" when there is none."""
    if not value:
        return ""
    doi = values.find_doi(html.unescape(value) if "&" in value else value)
    return values.doi_match_key(doi) if doi else ""


def arxiv_id(fields: Mapping[str, str]) -> str:
    """The arXiv id an entry names, in the form two ids compare in (lower case, no
    version): :func:`pubcli.schema.identifiers.arxiv_of` finds it."""
    return arxiv_of(fields).lower()


def normalise_isbn(value: str | None) -> str:
    """ISBN-10 or -13 (any hyphens) as ISBN-13 digits; "" when not an ISBN."""
    if not value:
        return ""
    for raw in re.split(r"[,;/]|\s{2,}", value):
        s = re.sub(r"[^0-9Xx]", "", raw).upper()
        if len(s) == 13 and s.isdigit():
            return s
        if len(s) == 10 and s[:9].isdigit():
            core = "978" + s[:9]
            total = sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(core))
            return core + str((10 - total % 10) % 10)
    return ""


def _first_number(value: str | None) -> str:
    """"12", "12(3)", "Drug Discovery. 9" -> the first number; "" without digits."""
    if not value:
        return ""
    m = re.search(r"\d+", value)
    return (m.group(0).lstrip("0") or "0") if m else ""






_PAGES_RE = re.compile(r"^\s*(?:pp?\.?\s*)?([A-Za-z]{0,2})\s*0*(\d{1,6})"
                       r"(?:\s*(?:-+|\u2013|\u2014)\s*([A-Za-z]{0,2})\s*0*(\d{1,6}))?\s*\.?\s*$")


_COVER_RE = re.compile(r"^\s*\{?cover\}?\s*([1-4])\s*$", re.I)


def page_range(value: str | None) -> tuple[str, str] | None:
    """(first page, last page) of a value that is a page range or one page
    ("879-885", "1445-9", "e8-e9", "S7-S11", "pp. 12--19", "c1804"; a cover, "Cover 3",
    as its page "c3"); None for
    anything else ("215 p", a page count; "Suppl-11"; "n/a"), which says nothing.

    >>> page_range("1445-9")
    ('1445', '1449')
    """
    if not value:
        return None
    m = _PAGES_RE.match(value)
    if not m:
        cover = _COVER_RE.match(value)
        return ("c" + cover.group(1),) * 2 if cover else None
    pre, first, pre2, last = m.groups()
    pre = pre.lower()
    start = pre + first
    if last is None:
        return (start, start)
    if len(last) < len(first) and not pre2:  # "1445-9": the last digits only
        last = first[:len(first) - len(last)] + last
    return (start, (pre2 or pre).lower() + last)


def issue_value(value: str | None) -> str:
    """An issue number as its number ("3", "3-B", "No. 3" -> "3"); other values
    ("Suppl 1", "MSR-TR-2022-21") normalised whole; "" when empty."""
    if not value:
        return ""
    v = normalise(value)
    m = re.fullmatch(r"(?:no |issue |nr )?0*(\d+)(?: [a-z])?", v)
    if m:
        return m.group(1) or "0"
    return v


def issue_numbers(issue: str) -> frozenset[str]:
    """The issues an :func:`issue_value` names when it is plain numbers ("3" -> {3},
    "3 4" from "3/4" or "3-4" -> {3, 4}, "1 3" -> {1, 2, 3}: two numbers may be a range);
    empty for anything else ("suppl 1", a report number), which says nothing about
    which issue."""
    if not issue or not _ISSUES_RE.fullmatch(issue):
        return frozenset()
    nums = [int(n) for n in issue.split()]
    if len(nums) == 2 and nums[0] < nums[1] <= nums[0] + 12:
        nums = list(range(nums[0], nums[1] + 1))
    return frozenset(str(n) for n in nums)


_ISSUES_RE = re.compile(r"\d{1,4}(?: \d{1,4}){0,3}")


def volume_value(value: str | None) -> str:
    """A volume's first number ("35", "35 Suppl 1" -> "35"); "" without digits
    ("Ph.D.", a misplaced field, says nothing)."""
    return _first_number(value)


def pmid(fields: Mapping[str, str]) -> str:
    """The PubMed id of an entry ("pmid" field), digits only; "" when none."""
    v = fields.get("pmid", "")
    m = re.search(r"\d{4,9}", v) if v else None
    return m.group(0) if m else ""


_EDITION_WORDS = {**_NUMBER_WORDS, "eleventh": "11", "twelfth": "12"}


_VERSION_RE = re.compile(r"\d+(?:\.\d+)+")


def edition_value(value: str | None) -> str:
    """An edition as its number ("Second", "2nd ed." -> "2"), a release as its whole
    version ("Version 2.7.1" -> "2.7.1", "Release 3.0" -> "3": two releases of one
    program differ after the first dot); other words normalised whole ("revised")."""
    if not value:
        return ""
    m = _VERSION_RE.search(value)
    if m:
        parts = m.group(0).split(".")
        while len(parts) > 1 and parts[-1].strip("0") == "":
            parts.pop()
        return ".".join(p.lstrip("0") or "0" for p in parts)
    v = normalise(value)
    m = re.search(r"\d+", v)
    if m:
        return m.group(0)
    for word in v.split():
        if word in _EDITION_WORDS:
            return _EDITION_WORDS[word]
    return v


