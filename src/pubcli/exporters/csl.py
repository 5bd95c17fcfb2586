"""CSL: records as CSL-JSON, and references formatted in a citation style.

:func:`item` builds the CSL-JSON of one record from pubcli's own reading of it
(``@string`` concatenation, crossref/xdata parents and arXiv ids already
resolved; LaTeX decoded by :mod:`pubcli.latex`, names split by
:mod:`pubcli.names`). Titles follow the CSL convention that pandoc's BibTeX
reader follows too: English titles are stored in sentence case, and a braced
word (``{Python}``, ``{van der Waals}``) is kept as written, marked
``<span class="nocase">`` where a style's title-casing would change it; italic
and bold are ``<i>``/``<b>``. CSL-JSON is what pandoc, Quarto and Zotero read.

:class:`Styler` formats references with pandoc's citeproc (:mod:`.citeproc`):
each *unit* (a year of a page, a group of a listing) is one bibliography, so
the style's sort, year suffixes (2010a, 2010b) and "———" for a repeated author
happen. Formatted units are cached by the digest of their CSL-JSON, the style,
the locale and the pandoc binary: a changed entry re-formats its unit only.

Shipped styles (``--style``): :data:`STYLES`, from the CSL project's style
repository (CC BY-SA 3.0; see ``pubcli/styles/README.md``). ``--csl FILE``
takes any CSL 1.0 style file.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

from .. import values
from ..errors import PubcliError, ValidationError
from ..latex import closing_brace, to_text
from ..model import Record
from ..names import parse_name, split_authors
from ..styles import STYLE_DIR, STYLES
from .style import Span


# Bumped whenever item() maps a record differently or the cache's layout changes.
MAPPING_VERSION = 3

# BibTeX / biblatex entry type -> CSL type (pandoc's table; pubcli keeps
# `conference`, the BibTeX alias of `inproceedings`, and CSL 1.0.2's `software`).
CSL_TYPES: dict[str, str] = {
    "article": "article-journal", "inproceedings": "paper-conference",
    "conference": "paper-conference", "book": "book", "mvbook": "book",
    "inbook": "chapter", "incollection": "chapter", "bookinbook": "chapter",
    "suppbook": "chapter", "suppcollection": "chapter", "inreference": "entry-encyclopedia",
    "collection": "book", "mvcollection": "book", "proceedings": "book",
    "mvproceedings": "book", "reference": "book", "mvreference": "book",
    "booklet": "pamphlet", "manual": "book",
    "techreport": "report", "report": "report", "phdthesis": "thesis",
    "mastersthesis": "thesis", "thesis": "thesis", "unpublished": "manuscript",
    "online": "webpage", "electronic": "webpage", "www": "webpage", "software": "book",
    "dataset": "dataset", "data": "dataset", "patent": "patent",
    "periodical": "article-journal", "suppperiodical": "article-journal",
    "misc": "document", "artwork": "graphic", "image": "graphic", "audio": "song",
    "music": "song", "movie": "motion_picture", "video": "motion_picture",
    "letter": "personal_communication", "review": "review", "standard": "legislation",
    "legislation": "legislation", "jurisdiction": "legal_case", "legal": "treaty",
    "performance": "speech", "commentary": "book",
}
_ARTICLE_LIKE = {"article", "periodical", "suppperiodical", "review"}
_CHAPTER_LIKE = {"inbook", "incollection", "inproceedings", "conference", "inreference",
                 "bookinbook"}
_SERIES_NUMBER = {"book", "collection", "proceedings", "reference", "mvbook", "mvcollection",
                  "mvproceedings", "mvreference", "bookinbook", "inbook", "incollection",
                  "inproceedings", "conference", "inreference", "suppbook", "suppcollection"}
# biblatex localisation keys found in `type` fields, in English
BIBSTRINGS = {"mathesis": "Master\u2019s thesis", "phdthesis": "PhD thesis",
              "candthesis": "Candidate thesis", "techreport": "technical report",
              "resreport": "research report", "software": "computer software",
              "datacd": "CD-ROM", "audiocd": "audio CD", "patent": "patent",
              "patentus": "U.S. patent", "manual": "manual", "patentde": "German patent",
              "patenteu": "European patent", "patentfr": "French patent",
              "patentuk": "British patent", "patreq": "patent request",
              "patreqde": "German patent request", "patreqeu": "European patent request",
              "patreqfr": "French patent request", "patrequk": "British patent request",
              "patrequs": "U.S. patent request"}
SERIES_STRINGS = {"newseries": "new series", "oldseries": "old series"}
# biblatex's country keys (a patent's location = {countryfr and countryde}), in English
COUNTRY_STRINGS = {"countryde": "Germany", "countryeu": "European Union",
                   "countryfr": "France", "countryuk": "United Kingdom",
                   "countryus": "United States"}
# babel / polyglossia language names (langid) -> IETF tags
LANGUAGES = {
    "english": "en-US", "american": "en-US", "usenglish": "en-US", "british": "en-GB",
    "ukenglish": "en-GB", "australian": "en-AU", "newzealand": "en-NZ",
    "canadian": "en-CA", "german": "de-DE", "ngerman": "de-DE", "austrian": "de-AT",
    "naustrian": "de-AT", "swissgerman": "de-CH", "nswissgerman": "de-CH",
    "french": "fr-FR", "francais": "fr-FR", "spanish": "es-ES", "italian": "it-IT",
    "dutch": "nl-NL", "portuguese": "pt-PT", "portuges": "pt-PT", "brazil": "pt-BR",
    "brazilian": "pt-BR", "russian": "ru-RU", "ukrainian": "uk-UA", "polish": "pl-PL",
    "czech": "cs-CZ", "slovak": "sk-SK", "swedish": "sv-SE", "danish": "da-DK",
    "norsk": "nb-NO", "norwegian": "nb-NO", "nynorsk": "nn-NO", "finnish": "fi-FI",
    "greek": "el-GR", "latin": "la", "catalan": "ca-AD", "croatian": "hr-HR",
    "hungarian": "hu-HU", "magyar": "hu-HU", "turkish": "tr-TR", "japanese": "ja-JP",
    "chinese": "zh-CN", "korean": "ko-KR", "hebrew": "he-IL", "arabic": "ar",
    "icelandic": "is-IS", "estonian": "et-EE", "latvian": "lv-LV", "lithuanian": "lt-LT",
    "romanian": "ro-RO", "slovene": "sl-SI", "slovenian": "sl-SI", "serbian": "sr-RS",
    "bulgarian": "bg-BG", "vietnamese": "vi-VN", "thai": "th-TH", "persian": "fa-IR",
}
_BRITISH_VARIANTS = {"british": "en-GB", "uk": "en-GB", "american": "en-US", "us": "en-US",
                     "usmax": "en-US", "australian": "en-AU", "newzealand": "en-NZ"}
# Private-use characters: math placeholders while a reference is formatted
# (U+F0000 + n, the n-th formula of the item), stripped from input.
_MATH0 = 0xF0000
_MARKS = re.compile("[\ue000-\ue01f\U000f0000-\U000fffff]")
_ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}(v\d+)?$|[a-z-]+(\.[A-Z]{2})?/\d{7}(v\d+)?$")
_EPRINT_URLS = {"arxiv": "https://arxiv.org/abs/", "jstor": "https://www.jstor.org/stable/",
                "pubmed": "https://www.ncbi.nlm.nih.gov/pubmed/",
                "googlebooks": "https://books.google.com?id="}


# ---------------------------------------------------------------- LaTeX -> CSL markup
_CMD = re.compile(r"[A-Za-z]+|.", re.S)
_CMD_KIND = {"emph": "i", "textit": "i", "textsl": "i", "mkbibemph": "i", "textbf": "b",
             "mkbibbold": "b", "textsc": "sc", "textsuperscript": "sup",
             "mkbibsuperscript": "sup", "textsubscript": "sub", "textup": "", "textrm": "",
             "textnormal": "", "textsf": "", "texttt": "", "mbox": "", "hbox": "",
             "mkbibquote": "q", "enquote": "q", "textquote": "q"}
_DECL = re.compile(r"\s*\\(em|it|itshape|sl|slshape|bf|bfseries|sc|scshape)(?![A-Za-z])\s*")
_DECL_KIND = {"em": "i", "it": "i", "itshape": "i", "sl": "i", "slshape": "i", "bf": "b",
              "bfseries": "b", "sc": "sc", "scshape": "sc"}
_MATH = re.compile(r"(\$\$?)(.+?)(?<!\\)\1", re.S)
_TAGS = {"i": ("<i>", "</i>"), "b": ("<b>", "</b>"), "sup": ("<sup>", "</sup>"),
         "sub": ("<sub>", "</sub>"), "sc": ('<span style="font-variant:small-caps;">', "</span>"),
         "q": ("\u201c", "\u201d"), "": ("", "")}

Node = tuple  # ("t", text) | ("g", [nodes]) | ("m", tex) | (kind, [nodes]) for _TAGS kinds


def _text_piece(s: str) -> str:
    """Decoded text of a LaTeX piece, keeping its outer spaces (to_text trims)."""
    if not s:
        return ""
    text = to_text(s)
    lead = " " if s[0].isspace() or s[0] == "~" else ""
    trail = " " if s[-1].isspace() or (s[-1] == "~" and not s.endswith("\\~")) else ""
    text = _tex_quotes(text)
    return lead + text + trail if text else (" " if lead or trail else "")


def _tex_quotes(text: str) -> str:
    """TeX's quote characters as it typesets them: ` is ‘ and ' is ’."""
    if "'" in text or "`" in text:
        text = text.replace("`", "\u2018").replace("'", "\u2019")
    return text


def parse_latex(s: str, i: int = 0, end: int | None = None) -> list[Node]:
    """A LaTeX field value as nodes: text, braced (case-protected) groups, math, styles."""
    end = len(s) if end is None else end
    out: list[Node] = []
    start = i

    def flush(stop: int) -> None:
        piece = _text_piece(s[start:stop])
        if piece:
            out.append(("t", piece))
    while i < end:
        c = s[i]
        if c == "\\":
            m = _CMD.match(s, i + 1, end)
            if not m:
                i += 1
                continue
            name, j = m.group(0), m.end()
            kind = _CMD_KIND.get(name)
            if kind == "q" and j < end and s[j] == "*":
                j += 1  # \enquote*{}: the inner quotes, chosen by the style anyway
            if kind is not None:
                k = j
                while k < end and s[k].isspace():
                    k += 1
                close = closing_brace(s, k, end) if k < end and s[k] == "{" else -1
                if close != -1:
                    flush(i)
                    out.append((kind, parse_latex(s, k + 1, close)))
                    i = start = close + 1
                    continue
            # any other command: its braced arguments are part of the text (\"{o}, \url{})
            k = j
            while k < end and s[k] == "{":
                close = closing_brace(s, k, end)
                if close == -1:
                    break
                k = close + 1
            i = max(k, i + 2)
            continue
        if c == "{":
            close = closing_brace(s, i, end)
            if close == -1:
                i += 1
                continue
            flush(i)
            m = _DECL.match(s, i + 1, close)
            if m:
                inner: list[Node] = [(_DECL_KIND[m.group(1)], parse_latex(s, m.end(), close))]
            else:
                inner = parse_latex(s, i + 1, close)
            out.append(("g", inner))
            i = start = close + 1
            continue
        if c == "$":
            m = _MATH.match(s, i, end)
            if m:
                flush(i)
                out.append(("m", " ".join(m.group(0).split())))
                i = start = m.end()
                continue
        i += 1
    flush(end)
    return out


# Sentence case, as citeproc and pandoc's BibTeX reader do it: a capitalised word
# (upper case first, lower case after) is lowered unless it starts the title or a
# sentence (after . ? ! or :); other words (NASA, iPhone, 3D) are kept.
_START, _SENTENCE, _WORD, _SPACE, _PUNCT, _END_PUNCT = range(6)
_TOKEN = re.compile(r"[^\W_]+|\s+|.", re.S)


def _sentence_case(nodes: list[Node], state: int, change: bool = True) -> tuple[list[Node], int]:
    out: list[Node] = []
    last = 0  # length of the last word
    for node in nodes:
        kind = node[0]
        if kind == "t":
            parts = []
            for tok in _TOKEN.findall(node[1]):
                if tok[0].isalnum():
                    if change:
                        tok = _case_word(tok, state)
                    state = _WORD
                    last = len(tok)
                elif tok.isspace():
                    state = _SENTENCE if state in (_END_PUNCT, _SENTENCE) else \
                        _START if state == _START else _SPACE
                elif tok in "?!:" or (tok == "." and state == _WORD and last > 1):
                    state = _END_PUNCT
                elif state == _END_PUNCT or (state == _START and tok in "\"“‘'(["):
                    pass  # "Conf., Western": a comma after the end of a sentence
                else:
                    state = _PUNCT
                parts.append(tok)
            out.append(("t", "".join(parts)))
        elif kind in ("g", "q"):  # braced, or a quoted title inside the title: as written
            _, state = _sentence_case(node[1], state, change=False)
            out.append(node)
        elif kind == "m":
            state = _WORD
            out.append(node)
        else:
            inner, state = _sentence_case(node[1], state, change)
            out.append((kind, inner))
    return out, state


def _case_word(w: str, state: int) -> str:
    capitalised = w[0].isupper() and (len(w) == 1 or w[1:].islower() or
                                      all(not ch.isalpha() or ch.islower() for ch in w[1:]))
    if state in (_START, _SENTENCE):
        if capitalised or w.islower():
            return w[0].upper() + w[1:].lower()
        return w
    return w.lower() if capitalised else w


def _plain_text(nodes: list[Node]) -> str:
    return "".join(n[1] if n[0] in ("t", "m") else _plain_text(n[1]) for n in nodes)


def _has_lower_word(nodes: list[Node]) -> bool:
    return any(w[0].islower() for w in re.findall(r"[^\W\d_]\w*", _plain_text(nodes)))


class Markup(NamedTuple):
    """A field as CSL-JSON rich text, and the TeX of the formulas it holds in order."""

    text: str
    math: tuple[str, ...]


def _emit(nodes: list[Node], english: bool, math: list[str], mark: bool) -> str:
    out = []
    for node in nodes:
        kind = node[0]
        if kind == "t":
            out.append(_MARKS.sub("", node[1]))
        elif kind == "m":
            if mark:
                out.append(chr(_MATH0 + len(math)))
            else:
                out.append(f'<span class="nocase">{node[1]}</span>' if english else node[1])
            math.append(node[1])
        elif kind == "g":
            inner = _emit(node[1], english, math, mark)
            out.append(f'<span class="nocase">{inner}</span>'
                       if english and _has_lower_word(node[1]) else inner)
        else:
            left, right = _TAGS[kind]
            out.append(left + _emit(node[1], english, math, mark) + right)
    return "".join(out)


def markup(value: str | None, *, title: bool = False, english: bool = True,
           mark: bool = False, math: list[str] | None = None) -> str:
    """A LaTeX field value as CSL-JSON rich text. ``title``: sentence case for an
    English title (braced words protected). ``mark``: formulas become placeholders
    (their TeX appended to ``math``) so that a style's case rules cannot touch them."""
    if not value:
        return ""
    math = [] if math is None else math
    if "{" not in value and "\\" not in value and "$" not in value and not title:
        return _text_piece(value).strip()
    nodes = parse_latex(_soft_hyphens(value))
    if title and english:
        nodes, _ = _sentence_case(nodes, _START)
    text = _emit(nodes, english, math, mark)
    return " ".join(text.split())


# ---------------------------------------------------------------- CSL-JSON
def _text(value: str | None) -> str:
    if not value:
        return ""
    return _tex_quotes(_MARKS.sub("", to_text(_soft_hyphens(value))))


def _soft_hyphens(value: str) -> str:
    """TeX's ``\\-`` (a place a word may break) as U+00AD, the soft hyphen;
    biblatex's ``\\autocap{n}`` as the capital it prints at the start of a field."""
    if "\\-" in value:
        value = re.sub(r"(?<!\\)\\-", "\u00ad", value)
    if "\\autocap" in value:
        value = re.sub(r"\\autocap\s*\{(\w)\}", lambda m: m.group(1).upper(), value)
    return value


def _list(value: str | None) -> str:
    """A biblatex literal list ("Berlin and New York") as CSL text ("Berlin; New York");
    a country key (``countryfr``) as the country's name."""
    return "; ".join(t for t in (_text(p) for p in split_authors(value)) if t)


def _places(value: str) -> str:
    """A location list, biblatex's country keys named."""
    return "; ".join(COUNTRY_STRINGS.get(p.strip().lower(), p) for p in _list(value).split("; "))


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
            out.append({"literal": _text(raw)})
            continue
        n = parse_name(raw)
        name: dict[str, str] = {}
        family = _MARKS.sub("", n.last)
        if family:
            name["family"] = family
        if n.first:
            # "J.G. Smith" and "J. G. Smith" are one person
            name["given"] = re.sub(r"(?<=\b[A-Z]\.)(?=[A-Z]\b)", " ", _MARKS.sub("", n.first))
        if n.von:
            name["non-dropping-particle" if useprefix else "dropping-particle"] = \
                _MARKS.sub("", n.von)
        if n.jr:
            name["suffix"] = _MARKS.sub("", n.jr)
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
        year = _text(rec.fields.get("year"))
        return {"literal": year} if year else None
    parts = [rec.year]
    if rec.month:
        parts.append(rec.month)
        day = rec.fields.get("day", "").strip()
        if day.isdigit():
            parts.append(int(day))
    return {"date-parts": [parts]}


def arxiv_id(rec: Record) -> str | None:
    f = rec.fields
    eprint = f.get("eprint", "").strip()
    if not eprint:
        return None
    kind = (f.get("archiveprefix") or f.get("eprinttype") or "").strip().lower()
    if kind == "arxiv" or (not kind and _ARXIV_ID.match(eprint)):
        return eprint
    return None


def language(rec: Record) -> str | None:
    """The IETF tag of ``langid`` (with ``langidopts`` variant), ``hyphenation``, or a
    ``language`` field naming one language."""
    f = rec.fields
    lang = (f.get("langid") or f.get("hyphenation") or "").strip().lower()
    if not lang:
        single = _text(f.get("language")).strip().lower()
        lang = single if single in LANGUAGES else ""
    if not lang:
        return None
    if lang == "english":
        m = re.search(r"variant\s*=\s*(\w+)", f.get("langidopts", ""))
        if m and m.group(1).lower() in _BRITISH_VARIANTS:
            return _BRITISH_VARIANTS[m.group(1).lower()]
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
        out["event-place"] = _text(f["venue"])
    if f.get("pages"):
        out["page"] = _text(f["pages"]).replace("\u2013", "-")
    _numbers(out, f, et)
    for bib, var in (("edition", "edition"), ("chapter", "chapter-number"),
                     ("volumes", "number-of-volumes"), ("pagetotal", "number-of-pages"),
                     ("version", "version"), ("isbn", "ISBN"), ("issn", "ISSN"),
                     ("pmid", "PMID"), ("pmcid", "PMCID"), ("library", "call-number"),
                     ("origpublisher", "original-publisher"),
                     ("origlocation", "original-publisher-place")):
        if f.get(bib):
            out[var] = _text(f[bib])
    note = "; ".join(_text(f[k]) for k in ("note", "addendum") if f.get(k)) \
        if et != "periodical" else ""
    if note:
        out["note"] = note
    for bib, var in (("abstract", "abstract"), ("annote", "annote"),
                     ("annotation", "annote"), ("pubstate", "status")):
        if f.get(bib) and var not in out:
            out[var] = _text(f[bib])
    genre = _text(f.get("type")) if f.get("type") else ""
    genre = BIBSTRINGS.get(genre.lower(), genre) or {
        "phdthesis": "PhD thesis", "mastersthesis": "Master\u2019s thesis"}.get(et, "")
    if genre:
        out["genre"] = genre
    _links(out, f, ctype, arxiv)
    return out


def _titles(out: dict, et: str, rich: Callable[..., str]) -> None:
    chapter = et in _CHAPTER_LIKE
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
            how = _text(f[bib])
            link = re.fullmatch(r"<(https?://[^\s<>]+)>", how)  # \url{...} reads as <...>
            parts.append(link.group(1) if link else how)
        else:
            parts.append(_list(f[bib]))
    if parts:
        out["publisher"] = "; ".join(p for p in parts if p)


def _numbers(out: dict, f: dict, et: str) -> None:
    vol, part = _text(f.get("volume")), _text(f.get("part"))
    if vol or part:
        out["volume"] = f"{vol}.{part}" if vol and part else vol or part
    number = _text(f.get("number"))
    issue = _text(f.get("issue"))
    if number and et in _SERIES_NUMBER:
        out["collection-number"] = number
    elif et in _ARTICLE_LIKE and (number or issue):
        out["issue"] = ", ".join(x for x in (number, issue) if x)
    elif number:
        out["number"] = number
    elif issue:
        out["issue"] = issue


def _links(out: dict, f: dict, ctype: str, arxiv: str | None) -> None:
    doi = values.parse_doi(f.get("doi"))
    if doi:
        out["DOI"] = doi
    url = values.web_link(f.get("url"))
    if url:
        out["URL"] = url
    kind = (f.get("eprinttype") or f.get("archiveprefix") or "").strip().lower()
    if f.get("eprint") and kind in _EPRINT_URLS and kind != "arxiv":
        out.setdefault("URL", _EPRINT_URLS[kind] + f["eprint"].strip())
    if arxiv:
        out.setdefault("URL", _EPRINT_URLS["arxiv"] + arxiv)
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


def items(records: Iterable[Record], private: Sequence[str] = ()) -> list[dict]:
    """CSL-JSON items for ``records``; a key used twice gets ``-2``, ``-3``... so
    that every ``id`` is unique, as CSL-JSON requires."""
    return list(iter_items(records, private))


def iter_items(records: Iterable[Record], private: Sequence[str] = ()) -> Iterator[dict]:
    """:func:`items`, made one at a time."""
    for rec, ident in _ids(records):
        it = item(rec, id=ident, private=private)
        for var in _NOT_IN_SCHEMA:
            it.pop(var, None)
        yield it


# Variables pandoc's citeproc reads that the CSL-JSON schema (csl-data.json) does not
# list yet: used when formatting, left out of an exported file so that it validates.
_NOT_IN_SCHEMA = ("volume-title",)


def _ids(records: Iterable[Record]) -> list[tuple[Record, str]]:
    seen: dict[str, int] = {}
    out = []
    for rec in records:
        base = rec.key or "item"
        n = seen.get(base.casefold(), 0) + 1
        seen[base.casefold()] = n
        out.append((rec, base if n == 1 else f"{base}-{n}"))
    return out


def dumps(records: Iterable[Record], private: Sequence[str] = ()) -> str:
    """The CSL-JSON document (an array of items), deterministic, UTF-8 text."""
    return "".join(dump_chunks(records, private))


def dump_chunks(records: Iterable[Record], private: Sequence[str] = ()) -> Iterator[str]:
    """:func:`dumps` as pieces of text made one item at a time (a 100k library's
    document is never held whole); joined, the same text."""
    first = True
    for it in iter_items(records, private):
        # an item as json.dumps(list, indent=2) writes it inside the array
        text = json.dumps([it], ensure_ascii=False, indent=2)[2:-2]
        yield ("[\n" if first else ",\n") + text
        first = False
    yield "[]\n" if first else "\n]\n"


# ---------------------------------------------------------------- styled references
class Cite(NamedTuple):
    """A formatted reference: runs before the title, the title, and after it."""

    before: tuple[Span, ...]
    title: tuple[Span, ...]
    after: tuple[Span, ...]

    @property
    def text(self) -> str:
        return "".join(s.text for part in self for s in part)


def _fold_quotes(text: str) -> str:
    return re.sub("[\"'\u201c\u201d\u2018\u2019]", "'", text).casefold()


def _split_at(runs: Sequence[Span], a: int, b: int) -> tuple[tuple[Span, ...], ...]:
    """The runs cut at character offsets a and b (math runs count their TeX)."""
    parts: tuple[list[Span], list[Span], list[Span]] = ([], [], [])
    pos = 0
    for r in runs:
        end = pos + len(r.text)
        k = 0 if pos < a else 1 if pos < b else 2  # the part the run starts in
        if r.math or end <= (a, b, end)[k]:  # whole (a formula is never cut)
            parts[k].append(r)
        else:
            text = r.text
            for lo, hi, part in ((0, a, 0), (a, b, 1), (b, end, 2)):
                s, e = max(lo, pos), min(hi, end)
                if s < e:
                    parts[part].append(Span(text[s - pos:e - pos], r.em, r.strong))
        pos = end
    return tuple(parts[0]), tuple(parts[1]), tuple(parts[2])


def _owner_pattern(owner: str) -> re.Pattern | None:
    """The owner's name as styles write it: "O. Ruwase", "Olatunji Ruwase",
    "Ruwase, O.", "Ruwase O" (given names full or as initials)."""
    from ..names import bibtex_name

    n = parse_name(bibtex_name(owner) if "," not in owner else owner)
    family = " ".join(p for p in (n.von, n.last) if p)
    if not n.last:
        return None
    fam = re.escape(family).replace(r"\ ", r"[ \u00a0]")
    givens = [g for g in re.split(r"[\s\u00a0]+", n.first) if g]
    if givens:
        first = givens[0]
        full = r"[ \u00a0]".join(re.escape(g) for g in givens)
        initials = re.escape(first[0]) + r"\.?(?:[ \u00a0-]?[^\W\d_]\.?)*(?![\w])"
        given = rf"(?:{full}|{re.escape(first)}(?:[ \u00a0][^\W\d_]\.?)*|{initials})"
        return re.compile(rf"(?<![\w-]){given}[ \u00a0]+{fam}(?![\w-])"
                          rf"|(?<![\w-]){fam},?[ \u00a0]+{given}")
    return re.compile(rf"(?<![\w-]){fam}(?![\w-])")


def build_cite(runs: Sequence[Span], title: str, owner: re.Pattern | None) -> Cite:
    """A formatted reference's runs as a :class:`Cite`: the title found by its text
    (the style may have changed its case and quotes), the owner's name in bold."""
    flat = "".join(r.text for r in runs)
    a = b = -1
    if title:
        hay, needle = _fold_quotes(flat), _fold_quotes(title)
        a = hay.find(needle)
        if a == -1 and needle.endswith(("." , "?", "!")):
            needle = needle[:-1]
            a = hay.find(needle)
        if a != -1:
            b = a + len(needle)
    names_end = a if a != -1 else len(flat)
    if owner is not None:
        runs = _bold(runs, [m.span() for m in owner.finditer(flat, 0, names_end)])
    if a == -1:
        return Cite(tuple(_merge(list(runs))), (), ())
    before, mid, after = _split_at(runs, a, b)
    return Cite(tuple(_merge(list(before))), tuple(_merge(list(mid))), tuple(_merge(list(after))))


def _bold(runs: Sequence[Span], spans: list[tuple[int, int]]) -> list[Span]:
    if not spans:
        return list(runs)
    out: list[Span] = []
    pos = 0
    for r in runs:
        n = len(r.text)
        if r.math:
            out.append(r)
            pos += n
            continue
        cuts = sorted({0, n, *(min(max(x - pos, 0), n) for s in spans for x in s)})
        for s, e in zip(cuts, cuts[1:]):
            inside = any(a <= pos + s and pos + e <= b for a, b in spans)
            out.append(r._replace(text=r.text[s:e], strong=r.strong or inside))
        pos += n
    return out


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for sp in spans:
        if out and not sp.math and not out[-1].math and \
                (out[-1].em, out[-1].strong) == (sp.em, sp.strong):
            out[-1] = Span(out[-1].text + sp.text, sp.em, sp.strong)
        elif sp.text:
            out.append(sp)
    return out


class StyleError(PubcliError):
    """A citation style that cannot be found or read."""


def style_path(style: str | None = None, csl: str | Path | None = None) -> Path:
    """The CSL file for ``--style NAME`` or ``--csl FILE``."""
    if csl is not None:
        path = Path(csl)
        if not path.is_file():
            raise StyleError("CSL style file not found", path=path)
        return path
    if style is None:
        raise ValidationError("no citation style given")
    name = STYLES.get(style.lower())
    if name is None:
        raise ValidationError(f"unknown citation style {style!r} "
                              f"(known: {', '.join(STYLES)}; or --csl FILE)")
    return STYLE_DIR / name


def _check_style(data: bytes, path: Path) -> bool:
    """Whether the style substitutes repeated authors; raises StyleError when the file
    is not a CSL style with a bibliography."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise StyleError(f"not a CSL style: {exc}", path=path) from None
    ns = "{http://purl.org/net/xbiblio/csl}"
    if root.tag not in (f"{ns}style", "style"):
        raise StyleError("not a CSL style: the root element is not <style>", path=path)
    bib = root.find(f"{ns}bibliography")
    if bib is None:
        bib = root.find("bibliography")
    if bib is None:
        raise StyleError("the CSL style has no <bibliography> layout", path=path)
    return bib.get("subsequent-author-substitute") is not None


@dataclass
class _Cache:
    path: Path | None
    units: dict[str, list] = field(default_factory=dict)
    dirty: bool = False
    used: set[str] = field(default_factory=set)

    def pruned(self) -> dict[str, list]:
        """What to write back: everything, unless stale units (of entries since changed)
        outnumber the live ones; then only those used this run."""
        if len(self.units) > 2 * len(self.used) + 200:
            return {k: v for k, v in self.units.items() if k in self.used}
        return self.units


_Prepared = tuple[str, list[dict], list[list[str]], list[Record]]  # digest, items, math, recs
BATCH = 500  # references per pandoc call at most (a unit larger than that is one call)


class Styler:
    """Formats records in one CSL style through pandoc's citeproc, with a persistent
    cache of formatted units.

    ``Styler(path).bibliographies([recs, ...], owner)`` -> per unit, its
    ``(record, Cite)`` pairs in the style's order; :meth:`save` writes the cache
    back (only when something new was formatted)."""

    def __init__(self, path: Path, *, locale: str | None = None, cache: bool = True) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StyleError(f"cannot read the style: {exc.strerror or exc}", path=path) \
                from None
        self.path = path
        self.locale = locale
        self.substitutes = _check_style(data, path)
        self.digest = hashlib.sha256(data).hexdigest()
        self._use_cache = cache
        self._cache: _Cache | None = None
        self._alone: Styler | None = None
        self._tmp: object = None  # a TemporaryDirectory the alone style lives in, if any

    def _key(self, unit: Sequence[Record], private: Sequence[str]) -> str:
        """A unit's cache key: everything its CSL-JSON is made of (each record's type and
        fields, its id), the code that maps and reads it, the pandoc binary, the locale
        (the style is the cache file's). A warm run builds no CSL-JSON at all."""
        from . import pandoc

        drop = set(private)
        content = [[ident, rec.type, sorted((k, v) for k, v in rec.fields.items()
                                            if k not in drop)] for rec, ident in _ids(unit)]
        blob = json.dumps([MAPPING_VERSION, _code_digest(), pandoc.find().identity,
                           self.locale or "", content], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]

    def _prepare(self, unit: Sequence[Record], private: Sequence[str]) -> _Prepared:
        items_, maths = [], []
        for rec, ident in _ids(unit):
            math: list[str] = []
            it = item(rec, id=ident, private=private, mark=True, math=math)
            if it["type"] == "document" and rec.type == "misc":
                # pandoc's BibTeX reader gives @misc no CSL type (a style's default
                # layout); CSL-JSON files need one, so only an export says "document"
                it["type"] = ""
            if it.get("archive") == "arXiv" and \
                    it.get("URL") == _EPRINT_URLS["arxiv"] + it.get("archive_location", ""):
                # the reference links the arXiv copy already: "arXiv (ID). URL" says it twice
                del it["archive"], it["archive_location"]
            items_.append(it)
            maths.append(math)
        return self._key(unit, private), items_, maths, list(unit)

    def bibliographies(self, units: Sequence[Sequence[Record]], owner: str | None = None,
                       private: Sequence[str] = ()) -> list[list[tuple[Record, Cite]]]:
        """Each unit formatted as one bibliography (its records in the style's order).

        Units not in the cache are formatted by pandoc: in one call together when
        the style cannot tie one unit's references to another's (no
        subsequent-author-substitute: a year suffix only ties references of one
        author and one year, and units are years or listings), else one call each."""
        from . import pandoc

        pandoc.find()  # no pandoc: one line saying how to get it, before any work
        cache = self._load_cache()
        keys = [self._key(u, private) for u in units]
        todo = {k: u for k, u in zip(keys, units) if k not in cache.units}
        if todo:
            self._format([self._prepare(u, private) for u in todo.values()], cache)
        pattern = _owner_pattern(owner) if owner else None
        out = []
        for key, unit in zip(keys, units):
            cache.used.add(key)
            by_id = {ident: rec for rec, ident in _ids(unit)}
            out.append([(by_id[ident], build_cite([Span(*r) for r in runs], title, pattern))
                        for ident, runs, title in cache.units[key] if ident in by_id])
        return out

    def alone(self) -> "Styler | None":
        """This style without its subsequent-author-substitute ("———" for the author of
        the reference before): for a reference shown apart from the one before it in
        its bibliography. None when the style substitutes nothing."""
        if not self.substitutes:
            return None
        if self._alone is None:
            from ..store import atomic_write, cache_dir

            data = re.sub(rb'\ssubsequent-author-substitute="[^"]*"', b"", self.path.read_bytes())
            path = cache_dir() / f"style-{self.digest[:20]}-alone.csl"
            try:
                if not path.is_file() or path.read_bytes() != data:
                    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                    atomic_write(path, data)
            except (OSError, PubcliError):  # no cache folder: a temporary one, for this run
                import tempfile

                self._tmp = tempfile.TemporaryDirectory(prefix="pubcli-style-")
                path = Path(self._tmp.name) / self.path.name
                path.write_bytes(data)
            self._alone = Styler(path, locale=self.locale, cache=self._use_cache)
        return self._alone

    def _format(self, missing: list[_Prepared], cache: _Cache) -> None:
        """Format units: several per pandoc call (up to BATCH references) when the style
        cannot tie one unit's references to another's, else one call each; two calls
        at a time (citeproc's disambiguation grows faster than linearly, so a 10k
        bibliography in batches costs less than in one call)."""
        from concurrent.futures import ThreadPoolExecutor

        if self.substitutes:
            batches = [[p] for p in missing]
        else:
            batches, size = [], 0
            for p in missing:
                if not batches or size + len(p[1]) > BATCH:
                    batches.append([])
                    size = 0
                batches[-1].append(p)
                size += len(p[1])
        with ThreadPoolExecutor(max_workers=2) as pool:
            for done in pool.map(self._format_batch, batches):
                cache.units.update(done)
        cache.dirty = True

    def _format_batch(self, batch: list[_Prepared]) -> dict[str, list]:
        """One pandoc call for ``batch``: ids made unique across its units, the results
        split back by unit."""
        from .citeproc import format_bibliography

        allitems, where = [], {}
        for n, (digest, items_, _, _) in enumerate(batch):
            for it in items_:
                uid = f"u{n}-{it['id']}" if len(batch) > 1 else it["id"]
                where[uid] = (digest, it["id"])
                allitems.append(dict(it, id=uid))
        refs = format_bibliography(allitems, self.path, locale=self.locale)
        per: dict[str, list] = {d: [] for d, *_ in batch}
        info = {(d, it["id"]): (it, math) for d, items_, maths, _ in batch
                for it, math in zip(items_, maths)}
        for ref in refs:
            digest, ident = where[ref.id]
            per[digest].append(_stored(ident, ref.runs, *info[(digest, ident)]))
        return per

    # -- cache
    def _cache_file(self) -> Path:
        from ..store import cache_dir

        return cache_dir() / f"cite-{self.digest[:20]}.json"

    def _load_cache(self) -> _Cache:
        import os

        if self._cache is not None:
            return self._cache
        if not self._use_cache or os.environ.get("PUBCLI_NO_CACHE"):
            self._cache = _Cache(None)
            return self._cache
        path = self._cache_file()
        self._cache = _Cache(path)
        try:
            with open(path, encoding="utf-8") as fh:
                payload = json.load(fh)
            if payload.get("style") == self.digest and payload.get("version") == \
                    MAPPING_VERSION and isinstance(payload.get("units"), dict):
                self._cache.units = {k: v for k, v in payload["units"].items()
                                     if _valid_unit(v)}
        except (OSError, ValueError, AttributeError):
            pass
        return self._cache

    def save(self) -> None:
        """Write the cache if new units were formatted (a failure only costs time on
        the next run)."""
        from ..store import atomic_write

        if self._alone is not None:
            self._alone.save()
        c = self._cache
        if c is None or c.path is None or not c.dirty:
            return
        text = json.dumps({"style": self.digest, "version": MAPPING_VERSION,
                           "units": c.pruned()}, ensure_ascii=False, sort_keys=True)
        try:
            c.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(c.path, text.encode("utf-8"))
            c.dirty = False
        except (OSError, PubcliError):
            pass


def _stored(ident: str, runs: Sequence[Span], it: dict, math: list[str]) -> list:
    """A formatted reference as the cache keeps it: [id, runs (formulas as their TeX),
    the title's text (for finding it in the reference)]."""
    return [ident, [list(r) for r in _unmark(list(runs), math)],
            _title_text(it.get("title", ""), math)]


_CODE: list[str] = []


def _code_digest() -> str:
    """The digest of the code that maps records and reads pandoc's answer."""
    if not _CODE:
        h = hashlib.sha256()
        for name in ("csl.py", "citeproc.py"):
            h.update((Path(__file__).resolve().parent / name).read_bytes())
        _CODE.append(h.hexdigest()[:16])
    return _CODE[0]


def _valid_unit(v: object) -> bool:
    return isinstance(v, list) and all(
        isinstance(e, list) and len(e) == 3 and isinstance(e[0], str) and
        isinstance(e[2], str) and isinstance(e[1], list) and
        all(isinstance(r, list) and len(r) == 4 and isinstance(r[0], str) for r in e[1])
        for e in v)


def _unmark(runs: list[Span], math: list[str]) -> list[Span]:
    """Math placeholders back to math runs holding their TeX."""
    out: list[Span] = []
    for r in runs:
        if not _MARKS.search(r.text):
            out.append(r)
            continue
        pos = 0
        for m in _MARKS.finditer(r.text):
            if m.start() > pos:
                out.append(r._replace(text=r.text[pos:m.start()]))
            n = ord(m.group(0)) - _MATH0
            if 0 <= n < len(math):
                out.append(Span(math[n], r.em, r.strong, math=True))
            pos = m.end()
        if pos < len(r.text):
            out.append(r._replace(text=r.text[pos:]))
    return out


def _title_text(title: str, math: list[str]) -> str:
    """The plain text of an item's CSL title, formulas as their TeX."""
    text = re.sub(r"<[^>]+>", "", title)
    return _MARKS.sub(lambda m: math[ord(m.group(0)) - _MATH0]
                      if 0 <= ord(m.group(0)) - _MATH0 < len(math) else "", text)


def styler(style: str | None = None, csl: str | Path | None = None,
           locale: str | None = None) -> Styler | None:
    """The :class:`Styler` for ``--style``/``--csl``, or None when neither is given."""
    if style is None and csl is None:
        return None
    return Styler(style_path(style, csl), locale=locale)


def text_listing(groups: Sequence[tuple[str, Sequence[Record]]], styler: Styler,
                 owner: str | None, heading, bold=lambda s: s) -> str:
    """A grouped listing as plain text, one reference per line in the style, each
    group one bibliography (in the style's order); ``heading(name, count)`` writes a
    group's heading, ``bold`` the owner's name."""
    lines: list[str] = []
    units = styler.bibliographies([list(recs) for _, recs in groups], owner)
    for (name, recs), unit in zip(groups, units):
        if lines:
            lines.append("")
        if name:
            lines.append(heading(name, len(recs)))
        for _, c in unit:
            lines.append("  " + "".join(bold(s.text) if s.strong else s.text
                                        for part in c for s in part))
    styler.save()
    return "\n".join(lines) + ("\n" if lines else "")


__all__ = ["STYLES", "CSL_TYPES", "Cite", "Styler", "StyleError", "item", "items", "dumps",
           "names", "issued", "markup", "build_cite", "style_path", "styler", "text_listing"]
