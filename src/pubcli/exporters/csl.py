"""CSL-JSON: records as the items pandoc, Quarto and Zotero read.

:func:`item` builds the CSL-JSON of one record from pubcli's own reading of it
(``@string`` concatenation, crossref/xdata parents and arXiv ids already
resolved; LaTeX decoded by :mod:`pubcli.latex` into rich text by :mod:`.cslmarkup`,
names split by :mod:`pubcli.names`; the BibTeX -> CSL tables in :mod:`.csltables`).
Titles follow the CSL convention that pandoc's BibTeX reader follows too: English
titles are stored in sentence case, and a braced word (``{Python}``, ``{van der
Waals}``) is kept as written, marked ``<span class="nocase">``. References are
formatted in a citation style by :mod:`.cslstyle`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from pubcli.schema import values
from pubcli.schema.identifiers import arxiv_of
from pubcli.text.latex import closing_brace
from pubcli.schema.model import Record
from pubcli.schema.names import parse_name, split_authors
from .cslmarkup import MARKS, field_text, markup
from .csltables import (ARTICLE_LIKE, BIBSTRINGS, BRITISH_VARIANTS, CHAPTER_LIKE,
                        COUNTRY_STRINGS, CSL_TYPES, LANGUAGES, SERIES_NUMBER, SERIES_STRINGS)

# Bumped whenever item() maps a record differently or the cache's layout changes.
MAPPING_VERSION = 4

EPRINT_URLS = {"arxiv": "https://arxiv.org/abs/", "jstor": "https://www.jstor.org/stable/",
                "pubmed": "https://www.ncbi.nlm.nih.gov/pubmed/",
                "googlebooks": "https://books.google.com?id="}


def _list(value: str | None) -> str:
    """A biblatex literal list ("Berlin and New York") as CSL text ("Berlin; New York");
    a country key (``countryfr``) as the country's name."""
    return "; ".join(t for t in (field_text(p) for p in split_authors(value)) if t)


def _places(value: str) -> str:
    """A location list, biblatex's country keys named."""
    return "; ".join(COUNTRY_STRINGS.get(p.strip().lower(), p) for p in _list(value).split("; "))


_FULL_NAMES = re.compile(r"\s*(\([^()]+\))\s*$")


def names(value: str | None, *, useprefix: bool = False) -> list[dict]:
    """A BibTeX name list as CSL names (family, given, particle, suffix; a braced
    name such as ``{Microsoft Research}`` as a literal; "and others" as the literal
    "others", which citeproc prints as "et al."). ``useprefix`` (biblatex's option):
    the von part belongs to the family name ("van Gennep, A."), a non-dropping
    particle, instead of standing after the given names ("Gennep, A. van")."""
    out: list[dict] = []
    for raw in split_authors(value):
        if raw.lower() == "others":  # "and others": styles print "et al."
            out.append({"literal": "others"})
            continue
        if raw.startswith("{") and raw.endswith("}") and closing_brace(raw, 0) == len(raw) - 1:
            out.append({"literal": field_text(raw)})
            continue
        n = parse_name(raw)
        name: dict[str, str] = {}
        family = MARKS.sub("", n.last)
        if family:
            name["family"] = family
        given = MARKS.sub("", n.first)
        full = _FULL_NAMES.search(given) if not n.von else None
        if full and full.start():
            # "Frederic W. (Frederic William) Goudy": the names the initials stand for
            # are no given names to abbreviate; they print after the given names, where
            # CSL puts a dropping particle ("Goudy, F. W. (Frederic William)")
            given, name["dropping-particle"] = given[:full.start()], full.group(1)
        if given:
            # "J.G. Smith" and "J. G. Smith" are one person
            name["given"] = re.sub(r"(?<=\b[A-Z]\.)(?=[A-Z]\b)", " ", given)
        if n.von:
            name["non-dropping-particle" if useprefix else "dropping-particle"] = \
                MARKS.sub("", n.von)
        if n.jr:
            name["suffix"] = MARKS.sub("", n.jr)
        if name:
            out.append(name)
    return out


def _date(text: str) -> dict | None:
    parts = []
    for piece in text.split("/")[:2]:
        m = re.fullmatch(r"(-?\d{1,4})(?:-(\d{2})(?:-(\d{2}))?)?", piece.strip())
        if m:
            parts.append([int(x) for x in m.groups() if x is not None])
        elif piece.strip() not in ("", ".."):
            return None
    return {"date-parts": parts} if parts else None


def issued(rec: Record) -> dict | None:
    """``{"date-parts": [[2024, 5]]}`` from ``date`` (ISO, ranges) or year/month/day."""
    date = rec.fields.get("date", "").strip()
    if date:
        d = _date(date)
        if d:
            return d
    if rec.year is None:
        year = field_text(rec.fields.get("year"))
        return {"literal": year} if year else None
    written = _year_written(rec)
    if written is not None:
        return written
    parts = [rec.year]
    if rec.month:
        months = _month_written(rec.fields.get("month", ""))
        if months and not rec.fields.get("day", "").strip():
            return {"date-parts": [[rec.year, *p] for p in months]}
        parts.append(rec.month)
        day = rec.fields.get("day", "").strip()
        if day.isdigit():
            parts.append(int(day))
    return {"date-parts": [parts]}


_MONTH_TEXT = re.compile(r"\s*([^\W\d_]+)\.?\s*(?:(\d{1,2})\s*(?:[-\u2013/]+\s*(\d{1,2}))?)?"
                         r"\s*(?:(?:[-\u2013/,&]+|and)\s*([^\W\d_]+)\.?)?\s*[,.]?\s*")


def _month_written(raw: str) -> list[list[int]] | None:
    """A month field that says more than one month, as BibTeX prints it (``nov # ", "
    # dec``, ``sep # "/" # oct``, ``{March/June}``: two months; ``dec # " 5--9,"``: days
    of a month): its (month, day) parts, the first and the last; None otherwise."""
    text = field_text(raw).replace("\u2014", "-")
    m = _MONTH_TEXT.fullmatch(text) if text else None
    if not m or not (m.group(2) or m.group(4)):
        return None
    first = values.MONTH_WORDS.get(m.group(1).lower())
    if first is None:
        return None
    if m.group(4):
        last = values.MONTH_WORDS.get(m.group(4).lower())
        if last is None or last <= first or m.group(2):
            return None
        return [[first], [last]]
    days = [int(d) for d in (m.group(2), m.group(3)) if d]
    if not all(1 <= d <= 31 for d in days) or len(days) == 2 and days[0] >= days[1]:
        return None
    return [[first, d] for d in days]


_YEAR_RANGE = re.compile(r"(-?\d{1,4})\s*[-\u2013/]+\s*(\d{1,4})")


def _year_written(rec: Record) -> dict | None:
    """A ``year`` that says more than its number, as BibTeX prints it: a range
    (``1924--50``: 1924 to 1950) as a date range, any other text (``c. 1934``,
    ``1855?``, ``1979, 1980``) as a literal date; None for the number alone (sort
    hacks such as ``{\\noopsort{1973c}}1981`` print nothing) and for a year holding
    any other command (what it prints is not known)."""
    raw = values.strip_sort_hacks(rec.fields.get("year", ""))
    if "\\" in raw:  # a macro of the file's @preamble (\\switchargs): only its number is known
        return None
    text = field_text(raw).strip()
    if not text or text == str(rec.year) or text.lstrip("0") == str(rec.year).lstrip("0") \
            or text.strip("{}.") == str(rec.year):
        return None
    m = _YEAR_RANGE.fullmatch(text)
    if m and int(m.group(1)) == rec.year:
        first, last = m.group(1), m.group(2)
        end = int(first[:len(first) - len(last)] + last) if len(last) < len(first) else int(last)
        if end > rec.year:
            return {"date-parts": [[rec.year], [end]]}
    return {"literal": text}


def arxiv_id(rec: Record) -> str | None:
    """The arXiv id the entry cites, version included (:func:`pubcli.schema.identifiers.arxiv_of`)."""
    return arxiv_of(rec.fields, version=True) or None


def language(rec: Record) -> str | None:
    """The IETF tag of ``langid`` (with ``langidopts`` variant), ``hyphenation``, or a
    ``language`` field naming one language."""
    f = rec.fields
    lang = (f.get("langid") or f.get("hyphenation") or "").strip().lower()
    if not lang:
        single = field_text(f.get("language")).strip().lower()
        lang = single if single in LANGUAGES else ""
    if not lang:
        return None
    if lang == "english":
        m = re.search(r"variant\s*=\s*(\w+)", f.get("langidopts", ""))
        if m and m.group(1).lower() in BRITISH_VARIANTS:
            return BRITISH_VARIANTS[m.group(1).lower()]
    return LANGUAGES.get(lang, lang)


_USEPREFIX = re.compile(r"(?:^|,)\s*useprefix\s*(?:=\s*(\w+)\s*)?(?=,|$)", re.I)


def useprefix(options: str) -> bool:
    """Whether biblatex's entry ``options`` turn ``useprefix`` on (``useprefix`` or
    ``useprefix=true``; the last setting counts)."""
    found = _USEPREFIX.findall(options)
    return bool(found) and found[-1].lower() in ("", "true")


def _join(first: str, second: str, sep: str) -> str:
    """pandoc's joining of title and subtitle: "T: S", or "T? S" after punctuation."""
    if not second:
        return first
    if not first:
        return second
    return f"{first} {second}" if first[-1] in "!?.,:;" else f"{first}{sep} {second}"


def item(rec: Record, *, id: str | None = None, private: Iterable[str] = (),
         mark: bool = False, math: list[str] | None = None) -> dict:
    """The CSL-JSON item for one record. ``mark``: formulas as placeholders (their TeX
    appended to ``math``), for formatting; otherwise as TeX in a nocase span."""
    drop = set(private)
    f = {k: v for k, v in rec.fields.items() if k not in drop} if drop else rec.fields
    et = rec.type
    math = [] if math is None else math
    lang = language(rec)
    english = lang is None or lang.startswith("en")

    def rich(name: str, title: bool = True) -> str:
        return markup(f.get(name), title=title, english=english, mark=mark, math=math)

    ctype = CSL_TYPES.get(et, "document")
    if et == "unpublished" and any(f.get(k) for k in ("eventdate", "eventtitle", "venue")):
        ctype = "speech"
    if et == "article" and f.get("entrysubtype", "").strip().lower() in ("magazine", "newspaper"):
        ctype = "article-" + f["entrysubtype"].strip().lower()
    arxiv = arxiv_id(rec)
    if ctype == "document" and arxiv and not _says_arxiv(f, arxiv):
        ctype = "article"  # a preprint (an entry that names its id itself is left as it is)
    out: dict = {"id": id or rec.key, "type": ctype}
    if lang:
        out["language"] = lang
    _titles(out, et, rich)
    prefix = useprefix(f.get("options", ""))
    for role, var in (("author", "author"), ("editor", "editor"),
                      ("translator", "translator"), ("bookauthor", "container-author")):
        people = names(f.get(role), useprefix=prefix)
        if people:
            out[var] = people
    when = issued(rec)
    if when:
        out["issued"] = when
    for bib, var in (("origdate", "original-date"), ("eventdate", "event-date"),
                     ("urldate", "accessed")):
        d = _date(f.get(bib, "")) if f.get(bib) else None
        old = bib[:-4] + "year"  # biblatex's older origyear/origmonth, eventyear...
        if d is None and f.get(old, "").strip().lstrip("-").isdigit():
            parts = [int(f[old])]
            month = values.parse_month(f.get(bib[:-4] + "month", ""))
            if month:
                parts.append(month)
            d = {"date-parts": [parts]}
        if d:
            out[var] = d
    _publisher(out, f, ctype)
    place = f.get("address") or f.get("location")
    if place:
        out["publisher-place"] = _places(place)
    if f.get("venue"):
        out["event-place"] = field_text(f["venue"])
    if f.get("pages"):
        out["page"] = field_text(f["pages"]).replace("\u2013", "-")
    _numbers(out, f, et)
    for bib, var in (("edition", "edition"), ("chapter", "chapter-number"),
                     ("volumes", "number-of-volumes"), ("pagetotal", "number-of-pages"),
                     ("version", "version"), ("isbn", "ISBN"), ("issn", "ISSN"),
                     ("pmid", "PMID"), ("pmcid", "PMCID"), ("library", "call-number"),
                     ("origpublisher", "original-publisher"),
                     ("origlocation", "original-publisher-place")):
        if f.get(bib):
            out[var] = field_text(f[bib])
    note = "; ".join(field_text(f[k]) for k in ("note", "addendum") if f.get(k)) \
        if et != "periodical" else ""
    if note:
        out["note"] = note
    for bib, var in (("abstract", "abstract"), ("annote", "annote"),
                     ("annotation", "annote"), ("pubstate", "status")):
        if f.get(bib) and var not in out:
            out[var] = field_text(f[bib])
    genre = field_text(f.get("type")) if f.get("type") else ""
    genre = BIBSTRINGS.get(genre.lower(), genre) or {
        "phdthesis": "PhD thesis", "mastersthesis": "Master\u2019s thesis"}.get(et, "")
    if genre:
        out["genre"] = genre
    _links(out, f, ctype, arxiv)
    return out


def _titles(out: dict, et: str, rich: Callable[..., str]) -> None:
    chapter = et in CHAPTER_LIKE
    main = bool(rich("maintitle"))
    if et == "periodical":  # a journal's issue: the issue title, else the journal's
        title = _join(rich("issuetitle"), rich("issuesubtitle"), ":") or \
            _join(rich("title"), rich("subtitle"), ":")
        container = _join(rich("title", False), rich("subtitle", False), ":")
    elif main and not chapter:
        title = _join(_join(rich("maintitle"), rich("mainsubtitle"), ":"),
                      rich("maintitleaddon"), ".")
        volume = _join(_join(rich("title"), rich("subtitle"), ":"), rich("titleaddon"), ".")
        if volume:
            out["volume-title"] = volume
        container = _join(rich("journaltitle", False) or rich("journal", False),
                          rich("journalsubtitle", False), ":")
    else:
        title = _join(_join(rich("title"), rich("subtitle"), ":"), rich("titleaddon"), ".")
        if chapter and main:
            container = _join(_join(rich("maintitle"), rich("mainsubtitle"), ":"),
                              rich("maintitleaddon"), ".")
            book = _join(_join(rich("booktitle"), rich("booksubtitle"), ":"),
                         rich("booktitleaddon"), ".")
            if book:
                out["volume-title"] = book
        elif chapter:
            container = _join(_join(rich("booktitle"), rich("booksubtitle"), ":"),
                              rich("booktitleaddon"), ".")
        else:
            container = ""
        if not container:
            container = _join(rich("journaltitle", False) or rich("journal", False),
                              rich("journalsubtitle", False), ":")
    if title:
        out["title"] = title
    if container:
        out["container-title"] = container
    if rich("shortjournal", False):
        out["container-title-short"] = rich("shortjournal", False)
    series = rich("series")
    if series.isdigit():  # biblatex prints series = 3 as "3rd series"
        out["collection-title"] = _ordinal(int(series)) + " series"
    elif series.lower() in SERIES_STRINGS:  # series = {newseries}: a localisation key
        out["collection-title"] = SERIES_STRINGS[series.lower()]
    for bib, var in (("series", "collection-title"), ("eventtitle", "event"),
                     ("origtitle", "original-title"), ("shorttitle", "title-short")):
        text = rich(bib)
        if text and var not in out:
            out[var] = text


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _publisher(out: dict, f: dict, ctype: str) -> None:
    """school, institution, organization, howpublished and publisher, in that order
    (a ``\\url`` in howpublished is the entry's URL instead)."""
    parts = []
    for bib in ("school", "institution", "organization", "howpublished", "publisher"):
        if not f.get(bib):
            continue
        if bib == "howpublished":
            how = field_text(f[bib])
            # \url{...} reads as <...>: the URL itself, by the one link rule
            bracketed = how.startswith("<") and how.endswith(">")
            link = values.web_link(how[1:-1], printed=True) if bracketed else None
            parts.append(link or how)
        else:
            parts.append(_list(f[bib]))
    if parts:
        out["publisher"] = "; ".join(p for p in parts if p)


def _numbers(out: dict, f: dict, et: str) -> None:
    vol, part = field_text(f.get("volume")), field_text(f.get("part"))
    if vol or part:
        out["volume"] = f"{vol}.{part}" if vol and part else vol or part
    number = field_text(f.get("number"))
    issue = field_text(f.get("issue"))
    if number and et in SERIES_NUMBER:
        out["collection-number"] = number
    elif et in ARTICLE_LIKE and (number or issue):
        out["issue"] = ", ".join(x for x in (number, issue) if x)
    elif number:
        out["number"] = number
    elif issue:
        out["issue"] = issue


def _links(out: dict, f: dict, ctype: str, arxiv: str | None) -> None:
    doi = values.parse_doi(f.get("doi"))
    if doi:
        out["DOI"] = doi
    url = values.web_link(f.get("url"), printed=True)
    if url:
        out["URL"] = url
    kind = (f.get("eprinttype") or f.get("archiveprefix") or "").strip().lower()
    if f.get("eprint") and kind in EPRINT_URLS and kind != "arxiv":
        out.setdefault("URL", EPRINT_URLS[kind] + f["eprint"].strip())
    if arxiv:
        out.setdefault("URL", EPRINT_URLS["arxiv"] + arxiv)
        if _says_arxiv(f, arxiv):  # the entry already says it (howpublished = {arXiv:...})
            pass
        elif ctype == "article":  # a preprint, as Zotero's arXiv items are
            out.setdefault("publisher", "arXiv")
            out.setdefault("number", f"arXiv:{arxiv}")
        else:  # published elsewhere: the arXiv copy is named apart
            out["archive"] = "arXiv"
            out["archive_location"] = arxiv


def _says_arxiv(f: dict, arxiv: str) -> bool:
    """Whether the entry's own text names its arXiv id (howpublished = {arXiv:...})."""
    bare = arxiv.split("v")[0]
    return any(bare in f.get(k, "") for k in ("howpublished", "note", "journal", "number"))


def items(records: Iterable[Record], *, private: Sequence[str]) -> list[dict]:
    """CSL-JSON items for ``records`` without the owner's ``private`` fields (a
    required argument: every published CSL-JSON decides it, from
    :attr:`pubcli.local.config.Config.private_fields`); a key used twice gets ``-2``,
    ``-3``... so that every ``id`` is unique, as CSL-JSON requires."""
    return list(iter_items(records, private=private))


def iter_items(records: Iterable[Record], *, private: Sequence[str]) -> Iterator[dict]:
    """:func:`items`, made one at a time."""
    for rec, ident in unique_ids(records):
        it = item(rec, id=ident, private=private)
        for var in _NOT_IN_SCHEMA:
            it.pop(var, None)
        yield it


# Variables pandoc's citeproc reads that the CSL-JSON schema (csl-data.json) does not
# list yet: used when formatting, left out of an exported file so that it validates.
_NOT_IN_SCHEMA = ("volume-title",)


def unique_ids(records: Iterable[Record]) -> list[tuple[Record, str]]:
    seen: dict[str, int] = {}
    out = []
    for rec in records:
        base = rec.key or "item"
        n = seen.get(base.casefold(), 0) + 1
        seen[base.casefold()] = n
        out.append((rec, base if n == 1 else f"{base}-{n}"))
    return out


def dumps(records: Iterable[Record], *, private: Sequence[str]) -> str:
    """The CSL-JSON document (an array of items), deterministic, UTF-8 text."""
    return "".join(dump_chunks(records, private=private))


def dump_chunks(records: Iterable[Record], *, private: Sequence[str]) -> Iterator[str]:
    """:func:`dumps` as pieces of text made one item at a time (a 100k library's
    document is never held whole); joined, the same text."""
    first = True
    for it in iter_items(records, private=private):
        # an item as json.dumps(list, indent=2) writes it inside the array
        text = json.dumps([it], ensure_ascii=False, indent=2)[2:-2]
        yield ("[\n" if first else ",\n") + text
        first = False
    yield "[]\n" if first else "\n]\n"


__all__ = ["CSL_TYPES", "MAPPING_VERSION", "item", "items", "iter_items", "dumps", "dump_chunks",
           "names", "issued", "language", "arxiv_id", "useprefix", "unique_ids", "markup"]
