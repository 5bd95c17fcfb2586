"""A publication list copied from a web page, read into items to import.

A *listing* is what you get when you copy a publications page from a web
browser (see ``tests/data/publications-page.txt``)::

    ZeRO++: Extremely Efficient Collective Communication for Giant Model Training
    Guanhua Wang, Heyang Qin, Sam Ade Jacobs, ..., Yuxiong He
    ICLR 2024 | May 2024
    Published by Microsoft
    ISBN: 978-1-4673-8815-3

Each publication is found by its date line, ``Venue | Month YYYY``,
``Venue | YYYY`` or ``Month YYYY`` (or, below an author list, Google Scholar's
``Venue 30, 2017`` / ``Journal 521 (7553), 436-444, 2015``): the line above it is
the author list (comma-separated "First Last" names, a trailing "..." dropped) and
the one above that the title. When the line above the date does not look like an
author list, it is the title of a publication without authors. ``Published by X``,
``ISBN: ...`` and ``DOI: ...`` lines after the date line add details. Every block
is accounted for: a title above an author list with no date line is held for
review; any other leftover line of :data:`TITLE_WORDS` words or more is reported
as not understood, with its line. Short lines (headings), ``-`` separators and
blank lines are passed over.

Types are inferred: a report number as venue (``MSR-TR-2024-12``) makes a
``@techreport`` with ``number`` and ``institution``; a journal-like venue
("Journal of...", "Transactions on...") an ``@article``; any other venue an
``@inproceedings``; no venue a ``@misc``.

Names become BibTeX's "Last, First" (:func:`pubcli.schema.names.bibtex_name`): the last
word is the last name, with the particles before it (de, van, Del...), and
"Jr."-style suffixes kept apart. Names the library already spells in "Last, First"
form (say "Yazdani Aminabadi, Reza") are written the library's way. Titles get
BibTeX's case-protecting braces around words with inner capitals (``{ZeRO}++``,
``{CNNs}``), and LaTeX's special characters are escaped (:mod:`pubcli.text.latex`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from collections.abc import Mapping, Sequence

from pubcli.schema import values
from pubcli.text.encode import escape, protect_case
from pubcli.schema.model import Record
from pubcli.schema.values import MONTH_NAMES, MONTH_WORDS
from pubcli.schema.names import PARTICLES, SUFFIXES, bibtex_name

if TYPE_CHECKING:
    pass

_MONTH_ALT = "|".join(sorted(MONTH_WORDS, key=len, reverse=True))
_DATE_RE = re.compile(
    r"^(?:(?P<venue>.*?\S)\s*\|\s*)?"
    r"(?:(?P<month>" + _MONTH_ALT + r")\.?,?\s+)?(?P<year>(?:1[89]|20)\d{2})$", re.I)
# Google Scholar's venue line: "Venue[ VOLUME[ (NUMBER)]][, PAGES], YYYY", as in
# "Advances in neural information processing systems 30, 2017" or
# "Nature 521 (7553), 436-444, 2015"; taken as a date line only below an author list.
_SCHOLAR_RE = re.compile(
    r"^(?P<venue>.*?\S)(?:\s+(?P<volume>\d+)(?:\s*\((?P<number>[\w-]+)\))?)?"
    r"(?:,\s*(?P<pages>[A-Za-z]?\d+(?:\s*[-\u2013]+\s*[A-Za-z]?\d+)?))?"
    r",\s*(?P<year>(?:1[89]|20)\d{2})$")
_ELLIPSIS_RE = re.compile(r"^(?:\.{3}|\u2026)$")
#: A line of this many words or more, left over, reads as a title: its block is reported.
TITLE_WORDS = 5
_SEPARATOR_RE = re.compile(r"^[-\u2010-\u2015*_=~\u2022\u00b7.]+$")
_DETAIL_RES: list[tuple[str, re.Pattern[str]]] = [
    ("publisher", re.compile(r"^published\s+by\s*:?\s*(?P<v>.+)$", re.I)),
    ("isbn", re.compile(r"^isbn(?:-1[03])?\s*:?\s*(?P<v>[0-9Xx][0-9Xx -]{8,})$", re.I)),
    # "DOI: 10.1/x", "doi https://doi.org/10.1/x", a bare resolver link: values.parse_doi
    ("doi", re.compile(r"^(?P<v>(?:doi\s*:?\s*)?(?:https?://\S*?doi\S*?/)?10\.\d+\S*/\S+)$",
                       re.I)),
]
# A report number: letters, then "TR" (or a "Technical Report" wording), digits.
_REPORT_RE = re.compile(r"^(?P<prefix>[A-Z][A-Za-z]*)(?:[-/][A-Z]+)*[-/]TR[-/ ]?\d[\d-]*$")
_REPORT_WORDS_RE = re.compile(r"\btech(?:nical)?\.?\s+rep(?:ort)?\b", re.I)
_JOURNAL_RE = re.compile(r"\b(?:journal|transactions|letters|magazine|communications of)\b",
                         re.I)
KNOWN_INSTITUTIONS = {
    "MSR": "Microsoft Research",
    "CMU": "Carnegie Mellon University",
    "MIT": "Massachusetts Institute of Technology",
    "UCB": "University of California, Berkeley",
}

_NAME_WORD_RE = re.compile(r"^(?:\(?[^\W\d_][\w.'\u2019-]*\)?|[A-Z]\.?)$")


@dataclass
class Item:
    """One incoming publication and where it came from (1-based line). ``held``: why
    it is held for review instead of added (a listing's block without a date line)."""

    record: Record
    line: int
    held: str = ""


@dataclass
class Listing:
    """What a listing holds: publications (some held for review), warnings, and the
    blocks not understood, each (line, reason)."""

    items: list[Item] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    unread: list[tuple[int, str]] = field(default_factory=list)    # (line, reason)


# ------------------------------------------------------------------ names and titles
def split_names(line: str) -> list[str]:
    """An author line: "A B, C D and E F" -> ["A B", "C D", "E F"]."""
    line = re.sub(r"\s*,?\s+(?:and|&)\s+", ", ", line.strip())
    names = [" ".join(p.split()) for p in line.split(",") if p.strip()]
    if names and _ELLIPSIS_RE.match(names[-1]):  # Google Scholar's "A Vaswani, ..., ..."
        names.pop()
    return names


def looks_like_authors(line: str) -> bool:
    """Comma-separated names of one to six words, each a capitalised word, an
    initial or a particle."""
    names = split_names(line)
    if not names:
        return False
    for n in names:
        words = n.split(" ")
        if not 1 <= len(words) <= 6:
            return False
        if len(names) == 1 and len(words) < 2:
            return False
        for w in words:
            if w.lower() in PARTICLES or w.lower() in SUFFIXES:
                continue
            if not _NAME_WORD_RE.match(w):
                return False
            core = w.lstrip("(")
            if not core[:1].isupper():
                return False
    return True


# ------------------------------------------------------------------ listings
def _classify_venue(venue: str) -> tuple[str, dict[str, str]]:
    m = _REPORT_RE.match(venue)
    if m:
        fields = {"number": venue}
        inst = KNOWN_INSTITUTIONS.get(m.group("prefix").upper())
        if inst:
            fields["institution"] = inst
        return "techreport", fields
    if _REPORT_WORDS_RE.search(venue):
        return "techreport", {"institution": venue}
    if _JOURNAL_RE.search(venue):
        return "article", {"journal": venue}
    if re.match(r"^arxiv\b", venue, re.I):
        return "misc", {"howpublished": venue}
    return "inproceedings", {"booktitle": venue}


def _is_free(line: str) -> bool:
    return bool(line.strip()) and not _SEPARATOR_RE.match(line.strip())


@dataclass(frozen=True)
class DateLine:
    """What a date line says: ``Venue | Month YYYY`` or Google Scholar's ``Venue 30,
    2017`` (with ``volume``, ``number``, ``pages`` when given)."""

    year: str
    venue: str | None = None
    month: str | None = None
    extra: tuple[tuple[str, str], ...] = ()


def _date_lines(lines: Sequence[str]) -> list[DateLine | None]:
    """The date line each line is, or None. A Scholar-style line counts only below an
    author list (a title may end in ", 2017"; a venue line always has authors above)."""
    out: list[DateLine | None] = []
    for i, ln in enumerate(lines):
        m = _DATE_RE.match(ln)
        if m is not None:
            if m.group("venue") is None and m.group("month") is None:
                out.append(None)  # a bare year is not a date line
            else:
                out.append(DateLine(m.group("year"), m.group("venue"), m.group("month")))
            continue
        s = _SCHOLAR_RE.match(ln)
        if s is not None and i > 0 and out[i - 1] is None and looks_like_authors(lines[i - 1]):
            extra = tuple((k, s.group(k)) for k in ("volume", "number", "pages") if s.group(k))
            out.append(DateLine(s.group("year"), s.group("venue"), None, extra))
        else:
            out.append(None)
    return out


def parse_listing(text: str, *, known: Mapping[str, str] | None = None) -> Listing:
    """The publications in a plain-text listing (see the module docstring). Lines no
    publication takes are looked at again (:func:`_leftovers`): a title above an author
    list without a date line is held for review; another title-like line is reported
    as not understood. Short lines (headings) and separators are passed over."""
    lines = [" ".join(ln.replace("\u00a0", " ").split()) for ln in text.splitlines()]
    out = Listing()
    used = [False] * len(lines)
    dates = _date_lines(lines)
    bare_years = [_DATE_RE.match(ln) is not None for ln in lines]  # date lines, or years

    def free(j: int) -> bool:
        return j >= 0 and not used[j] and dates[j] is None and not bare_years[j] \
            and _is_free(lines[j]) and _detail(lines[j]) is None

    for i, date in enumerate(dates):
        if date is None:
            continue
        # title and authors above the date line
        if free(i - 1) and looks_like_authors(lines[i - 1]) and free(i - 2):
            title_at, authors = i - 2, split_names(lines[i - 1])
        elif free(i - 1) and not looks_like_authors(lines[i - 1]):
            title_at, authors = i - 1, []
            out.warnings.append((i + 1, f"no author line above the date line {lines[i]!r}; "
                                        f"read {lines[i - 1]!r} as a title without authors"))
        else:
            out.warnings.append((i + 1, f"date line {lines[i]!r} without a title above it; "
                                        "skipped"))
            used[i] = True
            continue
        for j in range(title_at, i + 1):
            used[j] = True
        details: dict[str, str] = {}
        j = i + 1
        while j < len(lines):
            d = _detail(lines[j])
            if d is None:
                break
            details.setdefault(*d)
            used[j] = True
            j += 1
        out.items.append(Item(_record(lines[title_at], authors, date, details, known),
                              title_at + 1))
    _leftovers(lines, [free(j) for j in range(len(lines))], out, known)
    out.items.sort(key=lambda it: it.line)
    return out


def _leftovers(lines: Sequence[str], free: Sequence[bool], out: Listing,
               known: Mapping[str, str] | None) -> None:
    """Account for the lines no publication took: a title-like line with an author
    list below it is a publication without a date line, held for review; any other
    line of :data:`TITLE_WORDS` words or more is not understood (with its line)."""
    j = 0
    while j < len(lines):
        if not free[j]:
            j += 1
            continue
        words = len(lines[j].split())
        below = j + 1 < len(lines) and free[j + 1] and looks_like_authors(lines[j + 1])
        if below and not looks_like_authors(lines[j]) and words >= 2:
            names = split_names(lines[j + 1])
            rec = _record(lines[j], names, None, {}, known)
            out.items.append(Item(rec, j + 1, held="no date line below the author list: "
                                                  "check it, then add it with 'pubcli add'"))
            j += 2
            continue
        if words >= TITLE_WORDS and not looks_like_authors(lines[j]):
            out.unread.append((j + 1, f"{lines[j]!r}: no author list and no date line "
                                      "(Venue | Month YYYY) next to it"))
        j += 1


def _detail(line: str) -> tuple[str, str] | None:
    for name, rx in _DETAIL_RES:
        m = rx.match(line)
        if m:
            return name, m.group("v").strip()
    return None


def _record(title: str, authors: Sequence[str], date: DateLine | None,
            details: Mapping[str, str], known: Mapping[str, str] | None) -> Record:
    fields: dict[str, str] = {}
    if authors:
        fields["author"] = " and ".join(bibtex_name(a, known) for a in authors)
    fields["title"] = protect_case(escape(title))
    venue = date.venue if date is not None else None
    extra = dict(date.extra) if date is not None else {}
    if venue:
        entry_type, venue_fields = _classify_venue(venue)
        if entry_type == "inproceedings" and "number" in extra:  # "Nature 521 (7553)"
            entry_type, venue_fields = "article", {"journal": venue}
        if entry_type == "techreport" and "institution" not in venue_fields:
            venue_fields["institution"] = details.get("publisher") or venue.split("-")[0]
        fields.update({k: escape(v) for k, v in venue_fields.items()})
    else:
        entry_type = "misc"
    if "publisher" in details:
        fields["publisher"] = escape(details["publisher"])
    for name, value in extra.items():
        fields[name] = re.sub(r"\s*[-\u2013]+\s*", "--", value) if name == "pages" else value
    if date is not None:
        fields["year"] = date.year
        if date.month:
            fields["month"] = MONTH_NAMES[MONTH_WORDS[date.month.lower()] - 1]
    if "isbn" in details:
        fields["isbn"] = details["isbn"]
    doi = values.parse_doi(details.get("doi"))
    if doi:
        fields["doi"] = doi
    from pubcli.usecases.newentry import order_fields

    return Record("", entry_type, order_fields(fields))
