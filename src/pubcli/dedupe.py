"""Finding entries that describe the same work, and merging them safely.

The only module that imports rapidfuzz. Nothing here prints or writes files;
the ``dedupe`` command (and ``add``/``import``, through :func:`find_matches`)
render what it returns.

How two entries are judged (:func:`compare`), strongest evidence first:

1. **Identifiers.** The same DOI (case-insensitive, ``https://doi.org/`` or
   ``doi:`` dropped), the same arXiv id (version dropped; from ``eprint``,
   ``arxiv``, an arXiv URL, DOI or journal), or the same ISBN on two book-like
   entries decide, unless the titles contradict it (a chapter or an erratum
   can carry the DOI of the work it belongs to).
2. **Titles**, normalised for matching only (:func:`normalise`: LaTeX and HTML
   entities to letters, accents and case folded, Greek letters spelled out,
   punctuation to spaces; database notes such as "[Japanese]" or "[Erratum
   appears in ...]" dropped) and scored with the better of ``ratio`` and
   ``token_sort_ratio`` (word order ignored; never ``token_set_ratio``, for
   which a title that is a prefix of another scores 100). A title without its
   subtitle matches the full title. A title match is never enough on its own.
3. **Authors and years.** A shared author (last name plus first initial, from
   "Last, First", "First Last", Vancouver "Last FM", initials, citation-style
   lists split on ``;`` or ``,``), the same first author (else half the authors
   and an agreeing venue, volume or pages), years at most one apart (a preprint
   and its published version).
4. **Vetoes**: different DOIs or arXiv ids (a preprint server's DOI does not
   count against a publisher's), different ISBNs, editions, volumes, issue or
   report numbers, first pages or chapters when both entries give them,
   different numbers in the titles ("Part 1"/"Part 2"), a word like "Erratum",
   "Reply" or "Retraction" in one title only.
5. **Stricter rules** where titles say less: a generic or short title
   ("Editorial", "Introduction", under three content words, or a title several
   different works share) or a title with a different word ("with"/"without",
   "adults"/"children"; typos, British spellings, compounds and acronyms do not
   count) needs the same first author, the same year and the same pages.
   Entries without authors need a near-identical, specific title, the year and
   an agreeing venue, volume or pages.

A different entry type never vetoes: an arXiv ``@misc`` and the
``@inproceedings`` of the same paper are duplicates.

Scaling (:func:`find_groups`, :func:`block`): titles are normalised once;
candidate pairs come from exact keys (identifiers, identical titles, identical
word sets) and from a sorted neighbourhood over the distinct titles in three
orders (as written, words sorted, reversed), scored in C by rapidfuzz, plus
"title"/"title: subtitle" neighbours. Only those pairs are judged in full, and
author lists and identifiers are parsed only for the records in them. Matches
join into groups by union-find.

``DEFAULT_THRESHOLD`` (the title score a match needs) is 90: see
``bench/bench_dedupe.py sweep`` and the project notes for the evidence.
"""

from __future__ import annotations

import contextlib
import gc
import html
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from .model import AREA_FIELD, Record, join_areas, split_areas
from .names import split_authors, split_top_level

DEFAULT_THRESHOLD = 90.0
#: Sorted-neighbourhood window (neighbours compared per record and pass).
WINDOW = 6
#: Title score a pair needs before it is judged in full (below the threshold,
#: so that "title without its subtitle" can still be considered).
_PREFILTER = 80.0

# ---------------------------------------------------------------- normalising
_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_NONWORD_RE = re.compile(r"[\W_]+")
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "µ": "mu",
    "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon",
    "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
}
_GREEK_RE = re.compile("[" + "".join(_GREEK) + "]")
_LATEX_GREEK_RE = re.compile(r"\\(alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|"
                             r"iota|kappa|lambda|mu|nu|xi|pi|rho|sigma|tau|upsilon|phi|varphi|"
                             r"chi|psi|omega)(?![A-Za-z])")


# ASCII letters to lower case, braces deleted, everything else but digits to spaces
# (bytes.translate is the fastest way through millions of titles)
_ASCII_FOLD = bytes(c if chr(c).isdigit() and c < 128 else
                    (ord(chr(c).lower()) if chr(c).isalpha() and c < 128 else 32)
                    for c in range(256))
# letters NFKD does not take apart
_LETTERS = str.maketrans({"ø": "o", "ł": "l", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d",
                          "þ": "th", "ı": "i", "ŀ": "l", "ħ": "h", "ŧ": "t"})
_ACCENT_SYM_RE = re.compile(r"\\[`'^\"~=.]\s*(?:\{\s*\\?([A-Za-z])\s*\}|\\?([A-Za-z]))")
_ACCENT_LET_RE = re.compile(r"\\[uvHckbdrt](?:\s*\{\s*\\?([A-Za-z])\s*\}|\s+\\?([A-Za-z]))")
_SPECIAL_RE = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])")
_SPECIAL = {"ss": "ss", "ae": "ae", "AE": "ae", "oe": "oe", "OE": "oe", "aa": "a", "AA": "a",
            "o": "o", "O": "o", "l": "l", "L": "l", "i": "i", "j": "j"}
_LOGO_RE = re.compile(r"\\(LaTeX|TeX|BibTeX|LaTeXe)(?![A-Za-z])")
_COMMAND_RE = re.compile(r"\\[A-Za-z]+\*?|\\\\|\\[^A-Za-z]")


def _latex_for_matching(text: str) -> str:
    r"""LaTeX to plain letters, accents dropped (they are folded anyway), commands
    such as ``\emph`` dropped with their argument kept: fast, for matching only."""
    text = _LATEX_GREEK_RE.sub(lambda m: " " + m.group(1).replace("var", "") + " ", text)
    text = _ACCENT_SYM_RE.sub(lambda m: m.group(1) or m.group(2), text)
    text = _ACCENT_LET_RE.sub(lambda m: m.group(1) or m.group(2), text)
    text = _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group(1)], text)
    text = _LOGO_RE.sub(lambda m: m.group(1), text)
    return _COMMAND_RE.sub(lambda m: m.group(0)[1] if len(m.group(0)) == 2
                           and not m.group(0)[1].isalpha() and m.group(0) != "\\\\" else " ",
                           text)


_COMBINING_RE = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def _ascii_words(text: str) -> str:
    return " ".join(text.encode("ascii").translate(_ASCII_FOLD, b"{}").decode("ascii").split())


def _normalise(text: str) -> str:
    if not text:
        return ""
    if text.isascii() and "\\" not in text and "&" not in text and "<" not in text:
        return _ascii_words(text)
    if "&" in text:
        text = html.unescape(html.unescape(text)).replace("&", " and ")
    if "<" in text:
        text = _TAG_RE.sub(" ", text)
    if "\\" in text:
        text = _latex_for_matching(text)
    if text.isascii():
        return _ascii_words(text)
    text = _COMBINING_RE.sub("", unicodedata.normalize("NFKD", text)).casefold()
    if text.isascii():
        return _ascii_words(text)
    text = text.translate(_LETTERS)
    text = _GREEK_RE.sub(lambda m: " " + _GREEK[m.group(0)] + " ", text)
    return _NONWORD_RE.sub(" ", text.replace("{", "").replace("}", "")).strip()


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """The form values are compared in (never written back): LaTeX and HTML
    entities to plain letters, tags dropped, accents and case folded, Greek
    letters spelled out, braces removed, dashes and punctuation to spaces,
    spaces collapsed.

    >>> normalise("M{\\\"u}ller &amp; the {GPU}--Wall: <i>TNF-α</i>")
    'muller and the gpu wall tnf alpha'
    """
    return _normalise(text)


_STOP = frozenset("a an the of and or in on for to with by at from as is are be its into via "
                  "vs versus de la le el en und der die das".split())
# Titles that name a kind of item rather than a work: never enough on their own.
_GENERIC = frozenset(normalise(t) for t in (
    "editorial", "editorials", "guest editorial", "editorial comment", "editor's note",
    "editorial note", "introduction", "preface", "foreword", "prologue", "epilogue",
    "letter", "letters", "letter to the editor", "letters to the editor", "reply", "response",
    "author reply", "authors reply", "reply to the letter", "in reply", "comment", "comments",
    "commentary", "correspondence", "discussion", "erratum", "errata", "corrigendum",
    "correction", "corrections", "retraction", "retraction notice", "notice of retraction",
    "expression of concern", "abstracts", "abstract", "book review", "book reviews",
    "review", "reviews", "news", "in brief", "in this issue", "this issue", "highlights",
    "contents", "table of contents", "index", "author index", "subject index", "obituary",
    "in memoriam", "announcement", "announcements", "acknowledgements", "acknowledgments",
    "acknowledgement of reviewers", "reviewers", "conclusion", "conclusions", "summary",
    "overview", "keynote", "keynote address", "panel", "panel discussion", "poster",
    "posters", "proceedings", "front matter", "back matter", "masthead", "calendar",
    "case report", "case reports", "images in clinical medicine", "quiz", "untitled",
    "no title", "title", "call for papers", "meeting abstracts", "oral presentations",
    "poster presentations", "invited talk", "tutorial", "workshop", "session",
))
# Words that make an item about another one: in one title but not the other, they veto.
_MARKERS = frozenset(
    "erratum errata corrigendum corrigenda correction corrections corrected retraction "
    "retracted retract withdrawn withdrawal concern comment comments commentary reply "
    "replies response responses rebuttal re letter editorial addendum protocol abstract "
    "abstracts supplement poster summary digest translation".split())
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7",
          "viii": "8", "ix": "9", "x": "10", "xi": "11", "xii": "12"}
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10", "first": "1",
                 "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
                 "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10"}
_PART_WORDS = frozenset("part parts phase stage type volume vol chapter section book series "
                        "study trial grade class level".split())
_SEP_RE = re.compile(r":|\s[-\u2013\u2014]{1,3}\s|--|[.?!]\s|;")


_MAYBE_NUMBER_RE = re.compile(r"\d|\b(?:i{2,3}|iv|vi{0,3}|ix|xi{1,2}|one|two|three|four|five|six|"
                              r"seven|eight|nine|ten|first|second|third|fourth|fifth|sixth|"
                              r"seventh|eighth|ninth|tenth)\b")


def _marker_difference(a: Sequence[str], b: Sequence[str]) -> str:
    """A word like "erratum" or "reply" at the start or end of one title only
    (in the middle it is a topic: "machine translation models")."""
    for this, other in ((a, b), (b, a)):
        ends = set(this[:3]) | set(this[-3:])
        for word in sorted((ends & _MARKERS) - set(other)):
            if not any(len(o) > 3 and _close_spelling(word, o) for o in other):
                return word
    return ""


def _title_numbers(tokens: Sequence[str]) -> tuple[str, ...]:
    out = []
    prev = ""
    for tok in tokens:
        if tok.isdigit():
            out.append(tok.lstrip("0") or "0")
        elif prev in _PART_WORDS and (tok in _ROMAN or tok in _NUMBER_WORDS):
            out.append(_ROMAN.get(tok) or _NUMBER_WORDS[tok])
        elif tok in _ROMAN and tok not in ("i", "v", "x"):
            out.append(_ROMAN[tok])
        prev = tok
    return tuple(sorted(out))


_WRAPPED_RE = re.compile(r"^\s*\[([^\[\]]+)\]\s*\.?\s*$")
_TRAILING_NOTE_RE = re.compile(r"\s*(?:\[[^\[\]]*\]|\[[^\[\]]*$)\s*\.?\s*$")


def strip_annotations(title: str) -> str:
    """A title without the notes databases add: "[Title]." (a translated title),
    "... [Japanese]", "... [Erratum appears in J Pediatr. 2003 Jun;142(6):616]"."""
    if "[" not in title:
        return title
    for _ in range(3):
        m = _TRAILING_NOTE_RE.search(title)
        if not m or m.start() == 0 or len(title[:m.start()].split()) < 3:
            break
        note = _normalise(m.group(0)).split()
        if len(note) <= 2 and set(note) & _MARKERS:
            break  # "[Erratum]", "[Retracted article]": what the item is, not a note
        title = title[:m.start()]
    m = _WRAPPED_RE.match(title)
    return m.group(1) if m else title


def _has_separator(raw: str) -> bool:
    return (":" in raw or ". " in raw or " -" in raw or "--" in raw or "?" in raw
            or "!" in raw or ";" in raw or "\u2013" in raw or "\u2014" in raw)


def _main_title(title_raw: str) -> str:
    """The title before its first subtitle separator (":", " - ", ". "), normalised;
    "" when there is no separator."""
    text = title_raw
    if "&" in text:
        text = html.unescape(text)
    if "<" in text:
        text = _TAG_RE.sub(" ", text)
    if "\\" in text:
        text = _latex_for_matching(text)
    m = _SEP_RE.search(text)
    if not m or m.start() == 0:
        return ""
    return _normalise(text[:m.start()])


# ---------------------------------------------------------------- identifiers
_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"<>{}]+", re.I)
_ARXIV_NEW_RE = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD_RE = re.compile(r"\b([a-z][a-z\-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?\b", re.I)
_PREPRINT_DOI = ("10.48550/", "10.1101/", "10.21203/", "10.2139/", "10.20944/", "10.31234/",
                 "10.31219/", "10.31235/", "10.36227/", "10.22541/", "10.26434/", "10.5281/")
_BOOKLIKE = frozenset({"book", "mvbook", "collection", "mvcollection", "proceedings",
                       "mvproceedings", "manual", "booklet", "reference"})


def normalise_doi(value: str | None) -> str:
    """``https://doi.org/10.1000/ABC.`` -> ``10.1000/abc``; "" when there is no DOI."""
    if not value:
        return ""
    if (value[:3] == "10." and " " not in value and "{" not in value and "\\" not in value
            and "&" not in value and "\n" not in value and "\t" not in value):
        return _trim_doi(value.lower())
    value = html.unescape(value) if "&" in value else value
    m = _DOI_RE.search(value.replace("\\_", "_").replace("{", "").replace("}", ""))
    if not m:
        return ""
    return _trim_doi(m.group(0).lower())


def _trim_doi(doi: str) -> str:
    """Drop trailing punctuation that is not part of the DOI (an unbalanced ")" too)."""
    doi = doi.rstrip(".,;")
    while doi and doi[-1] in ")]":
        opening = "(" if doi[-1] == ")" else "["
        if doi.count(doi[-1]) <= doi.count(opening):
            break
        doi = doi[:-1].rstrip(".,;")
    return doi


_ARXIV_FIELDS = ("doi", "url", "journal", "journaltitle", "howpublished", "note", "booktitle",
                 "number", "volume", "publisher")


def _mentions_arxiv(value: str) -> bool:
    return "rxiv" in value or "rXiv" in value or "RXIV" in value or "RXiv" in value


def _arxiv_id(fields: Mapping[str, str]) -> str:
    """The arXiv id an entry names (``eprint``, ``arxiv``, an arXiv URL, DOI or journal)."""
    candidates = []
    v = fields.get("arxiv")
    if v:
        candidates.append(v)
    v = fields.get("eprint")
    if v:
        prefix = fields.get("archiveprefix") or fields.get("eprinttype") or ""
        if not prefix or _mentions_arxiv(prefix):
            candidates.append(v)
    for name in _ARXIV_FIELDS:
        v = fields.get(name)
        if v and _mentions_arxiv(v):
            candidates.append(v)
    for v in candidates:
        m = _ARXIV_NEW_RE.search(v)
        if m:
            return m.group(1)
        m = _ARXIV_OLD_RE.search(v)
        if m:
            return m.group(1).lower()
    return ""


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


def _issue_number(value: str | None) -> str:
    """An issue number by its first number; a report number ("MSR-TR-2022-21") whole."""
    if not value:
        return ""
    if re.search(r"[A-Za-z]{2}", value) and re.search(r"\d", value):
        return "report " + normalise(value)
    return _first_number(value)


def _first_page(value: str | None) -> str:
    if not value:
        return ""
    m = re.search(r"[A-Za-z]*\s*0*(\d+)", value)
    return m.group(1) if m else normalise(value)


_EDITION_WORDS = {**_NUMBER_WORDS, "eleventh": "11", "twelfth": "12"}


def _edition(value: str | None) -> str:
    if not value:
        return ""
    v = normalise(value)
    m = re.search(r"\d+", v)
    if m:
        return m.group(0)
    for word in v.split():
        if word in _EDITION_WORDS:
            return _EDITION_WORDS[word]
    return v


# ---------------------------------------------------------------- authors
def _is_initials(word: str) -> bool:
    """"J", "JA", "J.A.", "J.-P.", "É": one to four capital letters."""
    letters = word.replace(".", "").replace("-", "").replace(" ", "")
    return 0 < len(letters) <= 4 and letters.isalpha() and letters.isupper()

_ETAL_RE = re.compile(r"[,;\s]*\b(?:et\s*al|and\s+others)\b\.?\s*$", re.I)


def _looks_vancouver(piece: str) -> bool:
    words = piece.split()
    return len(words) >= 2 and _is_initials(words[-1]) and not _is_initials(words[0])


def person_strings(value: str | None) -> list[str]:
    """One string per person, from BibTeX ``A and B`` or citation-style lists
    (``Smith J; Jones AB``, ``Smith J, Jones AB``, ``Smith, J., Jones, A.``)."""
    if not value:
        return []
    if "&" in value:
        value = html.unescape(value)
    value = _ETAL_RE.sub("", value.strip())
    parts = [p for p in split_authors(value) if p.lower() not in ("others", "et al", "et al.")]
    if len(parts) == 1:
        v = parts[0]
        if ";" in v:
            parts = [p for p in split_top_level(v, ";") if p]
        elif "," in v:
            pieces = [p for p in split_top_level(v, ",") if p]
            if len(pieces) >= 2:
                if all(_looks_vancouver(p) for p in pieces):
                    parts = pieces
                elif (len(pieces) >= 4 and len(pieces) % 2 == 0
                      and all(_is_initials(p) or len(p.replace(".", "")) <= 2
                              for p in pieces[1::2])):
                    parts = [f"{pieces[i]}, {pieces[i + 1]}" for i in range(0, len(pieces), 2)]
                elif len(pieces) >= 3 and all(len(p.split()) >= 2 for p in pieces):
                    parts = pieces
    return parts


def _last_tokens(text: str) -> tuple[str, ...]:
    """Last-name words, folded; "ae"/"oe"/"ue" read as the umlaut they often stand for."""
    toks = _normalise(text).split()
    return tuple(t.replace("ae", "a").replace("oe", "o").replace("ue", "u") if "e" in t else t
                 for t in toks)


def _initial(text: str) -> str:
    for c in text:
        if c.isalpha():
            return c.lower() if c.isascii() else _normalise(c)[:1]
    return ""


def _drop_von(words: str) -> str:
    """"van der Berg" -> "Berg" (BibTeX's von part is not the last name)."""
    if " " not in words:
        return words
    return " ".join(w for w in words.split() if not w[:1].islower()) or words


@lru_cache(maxsize=131072)
def parse_person(raw: str) -> tuple[tuple[str, ...], str]:
    """(last-name tokens, first initial) for one person written "Last, First",
    "von Last, Jr, First", "First von Last", "Last FM" (Vancouver) or "F. M. Last"."""
    raw = raw.strip(" \t\n,;")
    if not raw:
        return ((), "")
    if raw[0] == "{" and raw[-1] == "}" and raw.count("{") == 1:
        return (tuple(_normalise(raw).split()), "")  # a corporate author: "{World Bank}"
    if "\\" in raw:
        raw = _latex_for_matching(raw)
    if "{" in raw:
        raw = raw.replace("{", "").replace("}", "")
    if "," in raw:
        parts = raw.split(",")
        last = parts[0].strip()
        if not last:
            return ((), "")
        return (_last_tokens(_drop_von(last)), _initial(parts[-1]) if len(parts) > 1 else "")
    words = raw.replace("~", " ").split()
    if len(words) == 1:
        return (_last_tokens(words[0]), "")
    if _is_initials(words[-1]) and not _is_initials(words[0]):
        # Vancouver "van der Berg JA"
        return (_last_tokens(_drop_von(" ".join(words[:-1]))), _initial(words[-1]))
    i = len(words) - 1
    while i > 1 and words[i - 1][:1].islower():
        i -= 1
    return (_last_tokens(_drop_von(" ".join(words[i:]))), _initial(words[0]))


def parse_authors(value: str | None) -> list[tuple[tuple[str, ...], str]]:
    """Every person of an author field as (last-name tokens, first initial)."""
    return list(_parse_authors(value or ""))


@lru_cache(maxsize=32768)
def _parse_authors(value: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    out = []
    for p in person_strings(value):
        last, initial = parse_person(p)
        if last:
            out.append((last, initial))
    return tuple(out)


def _person_match(a: tuple[tuple[str, ...], str], b: tuple[tuple[str, ...], str]) -> bool:
    la, ia = a
    lb, ib = b
    if ia and ib and ia != ib:
        return False
    if la == lb:
        return True
    if len(la) > 3 or len(lb) > 3:  # corporate names match only whole
        return False
    return bool(set(la) & set(lb)) and (la[-1] in lb or lb[-1] in la)


def _author_index(people: Sequence) -> dict[str, list[int]]:
    by_token: dict[str, list[int]] = {}
    for j, person in enumerate(people):
        for tok in person[0]:
            by_token.setdefault(tok, []).append(j)
    return by_token


def shared_authors(a: Sequence, b: Sequence, b_index: dict[str, list[int]] | None = None
                   ) -> int:
    """How many people of ``a`` also appear in ``b`` (each matched once)."""
    if not a or not b:
        return 0
    by_token = b_index if b_index is not None else _author_index(b)
    used: set[int] = set()
    n = 0
    for person in a:
        for tok in person[0]:
            hit = False
            for j in by_token.get(tok, ()):
                if j not in used and _person_match(person, b[j]):
                    used.add(j)
                    n += 1
                    hit = True
                    break
            if hit:
                break
    return n


# ---------------------------------------------------------------- features
class Sig:
    """What the matcher needs from one record: the title at once, the rest (words,
    numbers, year, venue, authors, identifiers) on the first comparison."""

    __slots__ = ("record", "index", "title", "_sorted", "_main", "_authors", "_ids",
                 "_tokens", "_content", "_nums", "_year", "_venue", "_aindex")

    def __init__(self, record: Record, index: int = 0) -> None:
        self.record = record
        self.index = index
        t = _normalise(strip_annotations(record.fields.get("title", "")))
        self.title = t
        self._sorted: str | None = None
        self._main: str | None = None
        self._authors: list | None = None
        self._ids: tuple | None = None
        self._tokens: list[str] | None = None
        self._aindex: dict[str, list[int]] | None = None

    @property
    def author_index(self) -> dict[str, list[int]]:
        if self._aindex is None:
            self._aindex = _author_index(self.authors)
        return self._aindex

    def _detail(self) -> None:
        toks = self.title.split()
        self._tokens = toks
        self._content = [t for t in toks if t not in _STOP]
        self._nums = _title_numbers(toks) if _MAYBE_NUMBER_RE.search(self.title) else ()
        self._year = self.record.year
        f = self.record.fields
        venue = ""
        for name in ("journal", "journaltitle", "booktitle", "series"):
            if f.get(name):
                venue = normalise(f[name])
                break
        self._venue = venue

    @property
    def sorted_title(self) -> str:
        """The title's words in alphabetical order (word order ignored)."""
        if self._sorted is None:
            t = self.title
            self._sorted = " ".join(sorted(t.split())) if " " in t else t
        return self._sorted

    @property
    def tokens(self) -> list[str]:
        if self._tokens is None:
            self._detail()
        return self._tokens  # type: ignore[return-value]

    @property
    def content_tokens(self) -> list[str]:
        if self._tokens is None:
            self._detail()
        return self._content

    @property
    def nums(self) -> tuple[str, ...]:
        if self._tokens is None:
            self._detail()
        return self._nums

    @property
    def year(self) -> int | None:
        if self._tokens is None:
            self._detail()
        return self._year

    @property
    def venue(self) -> str:
        if self._tokens is None:
            self._detail()
        return self._venue

    @property
    def main(self) -> str:
        """The normalised title before its subtitle, "" when it has none."""
        if self._main is None:
            raw = strip_annotations(self.record.fields.get("title", ""))
            main = _main_title(raw) if raw and _has_separator(raw) else ""
            self._main = "" if main == self.title else main
        return self._main

    @property
    def authors(self) -> list:
        if self._authors is None:
            f = self.record.fields
            self._authors = _parse_authors(f.get("author") or f.get("editor") or "")
        return self._authors

    def _identifiers(self) -> tuple:
        if self._ids is None:
            f = self.record.fields
            v = f.get("doi")
            doi = normalise_doi(v) if v else ""
            if not doi:
                url = f.get("url")
                if url and ("doi" in url or "DOI" in url):
                    doi = normalise_doi(url)
            arxiv = ""
            if "eprint" in f or "arxiv" in f:
                arxiv = _arxiv_id(f)
            else:
                joined = "\0".join(f.values())
                if "rxiv" in joined or "rXiv" in joined or "RXIV" in joined:
                    arxiv = _arxiv_id(f)
            if doi.startswith("10.48550/arxiv."):
                arxiv = arxiv or doi.split("arxiv.", 1)[1]
            isbn = normalise_isbn(f.get("isbn")) if self.record.type in _BOOKLIKE else ""
            self._ids = (doi, arxiv, isbn)
        return self._ids

    @property
    def doi(self) -> str:
        return self._identifiers()[0]

    @property
    def arxiv(self) -> str:
        return self._identifiers()[1]

    @property
    def isbn(self) -> str:
        return self._identifiers()[2]

    def field(self, name: str) -> str:
        return self.record.fields.get(name, "")

# ---------------------------------------------------------------- scoring
def title_score(a: str, b: str) -> float:
    """Similarity of two normalised titles, 0-100, word order ignored."""
    from rapidfuzz import fuzz

    if not a or not b:
        return 0.0
    if a == b:
        return 100.0
    return max(fuzz.ratio(a, b), fuzz.token_sort_ratio(a, b))


def _close_spelling(a: str, b: str) -> bool:
    """A typo or a spelling variant: one edit (two for long words), transpositions
    counting as one ("tumour"/"tumor", "randomised"/"randomized"; not "men"/"women")."""
    from rapidfuzz.distance import OSA

    longest = max(len(a), len(b))
    limit = 1 if longest <= 7 else 2
    return abs(len(a) - len(b)) <= limit and OSA.distance(a, b, score_cutoff=limit) <= limit


def _unmatched_words(a: Sequence[str], b: Sequence[str]) -> tuple[list[str], list[str]]:
    """Content words of each title that the other title does not have, even spelled
    a little differently or written as a compound ("pre training"/"pretraining")."""
    ca, cb = Counter(a), Counter(b)
    only_a = list((ca - cb).elements())
    only_b = list((cb - ca).elements())
    if not only_a and not only_b:
        return [], []
    explained: set[str] = set()
    for toks, other_only in ((a, set(only_b)), (b, set(only_a))):
        for i in range(len(toks) - 1):
            for k in (2, 3):
                if i + k <= len(toks):
                    joined = "".join(toks[i:i + k])
                    if joined in other_only:
                        explained.add(joined)
                        explained.update(toks[i:i + k])
    ra = [t for t in only_a if t not in explained
          and not any(_close_spelling(t, o) for o in only_b) and not _acronym_of(t, b)]
    rb = [t for t in only_b if t not in explained
          and not any(_close_spelling(t, o) for o in only_a) and not _acronym_of(t, a)]
    ua = [t for t in ra if t not in _STOP]
    ub = [t for t in rb if t not in _STOP]
    if (ua or ub) and ra and rb:  # a word replaced, not just added: report both sides
        ua = ua or ra[:1]
        ub = ub or rb[:1]
    return ua, ub


def _acronym_of(tok: str, words: Sequence[str]) -> bool:
    """Is ``tok`` the initials of consecutive words ("ahus": atypical hemolytic uremic
    syndrome)?"""
    n = len(tok)
    if not 2 <= n <= 8 or not tok.isalpha() or tok in _STOP:
        return False
    content = [w for w in words if w not in _STOP]
    for seq in (words, content):
        for i in range(len(seq) - n + 1):
            if all(seq[i + k][:1] == tok[k] for k in range(n)):
                return True
    return False


_PREPRINT_VENUE_RE = re.compile(r"rxiv|preprint|\bcorr\b|\bssrn\b|research square|submitted|"
                                r"in press|unpublished|working paper")


_VENUE_STOP = frozenset("of the and in for on at de la le les des du der die das und et".split())


def _venue_words(venue: str) -> list[str]:
    return [t for t in venue.split() if t not in _VENUE_STOP]


def _unbrit(word: str) -> str:
    """haematology -> hematology, oesophagus -> esophagus (for comparing only)."""
    return word.replace("ae", "e").replace("oe", "e") if "e" in word else word


def _abbreviates(short: str, word: str) -> bool:
    """"natl" for "national", "j" for "journal": same first letter, letters in order."""
    if short == word or _unbrit(short) == _unbrit(word):
        return True
    if len(short) >= len(word) or short[0] != word[0]:
        return False
    for sh, w in ((short, word), (_unbrit(short), _unbrit(word))):
        it = iter(w)
        if all(c in it for c in sh):
            return True
    return False


def _aligned(short: list[str], long_: list[str], i: int = 0, j: int = 0,
             skips: int = 1) -> bool:
    """Is ``short`` an abbreviation of ``long_`` word by word, acronyms allowed
    ("n engl j med", "ieee tpami", "bmj"), with one word to spare on either side
    ("Med Clin (Barc)")?"""
    while i < len(short):
        s = short[i]
        if j < len(long_) and _abbreviates(s, long_[j]):
            i, j = i + 1, j + 1
            continue
        ends = [e for e in _acronym_ends(s, long_, j) if e - j >= 2] \
            if 2 <= len(s) <= 8 and s.isalpha() else []
        if any(_aligned(short, long_, i + 1, e, skips) for e in ends):
            return True
        if skips and len(short) > 1 and len(long_) > 1:
            return (_aligned(short, long_, i + 1, j, skips - 1)
                    or (j < len(long_) and _aligned(short, long_, i, j + 1, skips - 1)))
        return False
    return j == len(long_) or (skips > 0 and j == len(long_) - 1 and len(long_) > 2)


def _acronym_ends(s: str, words: list[str], j: int) -> list[int]:
    """Where an acronym ``s`` made of the starts of ``words[j:]`` can end ("tacl":
    Transactions of the ACL; "nejm")."""
    if not s:
        return [j]
    if j >= len(words):
        return []
    w = words[j]
    out: list[int] = []
    for p in range(min(len(w), len(s)), 0, -1):
        if s.startswith(w[:p]):
            out += _acronym_ends(s[p:], words, j + 1)
    return out


def venue_relation(a: str, b: str) -> str:
    """How two normalised venues relate: "same" (also abbreviated: "J Am Coll
    Cardiol", "NEJM"), "unclear" (one missing, a preprint server, or one a prefix
    of the other: "Lancet" / "Lancet Oncology"), or "different"."""
    from rapidfuzz import fuzz

    if not a or not b:
        return "unclear"
    if a == b:
        return "same"
    if _PREPRINT_VENUE_RE.search(a) or _PREPRINT_VENUE_RE.search(b):
        return "unclear"
    ta, tb = _venue_words(a), _venue_words(b)
    if not ta or not tb:
        return "unclear"
    if ta == tb or [_unbrit(t) for t in ta] == [_unbrit(t) for t in tb]:
        return "same"
    short, long_ = (ta, tb) if len(" ".join(ta)) <= len(" ".join(tb)) else (tb, ta)
    if _aligned(short, long_):
        return "same"
    if fuzz.ratio(" ".join(ta), " ".join(tb)) >= 90:
        return "same"
    if long_[:len(short)] == short or long_[-len(short):] == short:
        return "unclear"
    return "different"


def _venue_agrees(a: str, b: str) -> bool:
    return venue_relation(a, b) == "same"


@dataclass
class Verdict:
    """The judgement on one pair: whether it is a duplicate, how strongly and why."""

    duplicate: bool
    score: float
    rule: str
    evidence: list[str] = field(default_factory=list)
    vetoes: list[str] = field(default_factory=list)


@dataclass
class Match:
    """An existing record a candidate duplicates."""

    record: Record
    score: float
    evidence: list[str]
    rule: str


def _bibliographic_conflicts(a: Sig, b: Sig) -> list[str]:
    out = []
    ja = a.field("journal") or a.field("journaltitle")
    jb = b.field("journal") or b.field("journaltitle")
    if (ja and jb and a.record.type == b.record.type == "article"
            and venue_relation(normalise(ja), normalise(jb)) == "different"):
        same = [n for n in ("volume", "pages") if a.field(n) and b.field(n)]
        if not (len(same) == 2 and _first_number(a.field("volume")) == _first_number(
                b.field("volume")) and _first_page(a.field("pages")) == _first_page(
                b.field("pages"))):
            out.append(f"different journals ({ja.strip()} / {jb.strip()})")
    checks = (("edition", _edition), ("volume", _first_number), ("number", _issue_number),
              ("pages", _first_page), ("chapter", _first_number))
    ea, eb = _edition(a.field("edition")), _edition(b.field("edition"))
    if bool(ea) != bool(eb) and (ea or eb).isdigit() and int(ea or eb) >= 2 \
            and a.year and b.year and a.year != b.year:
        # "2nd edition" one year later than an entry that names no edition
        out.append(f"different editions ({ea or 'none'} / {eb or 'none'}) and years")
    for name, norm in checks:
        va, vb = a.field(name), b.field(name)
        if va and vb:
            na, nb = norm(va), norm(vb)
            if na and nb and na != nb and na.startswith("report") == nb.startswith("report"):
                label = "first pages" if name == "pages" else (
                    "editions" if name == "edition" else f"{name}s")
                out.append(f"different {label} ({va.strip()} / {vb.strip()})")
    return out


def _bibliographic_agreement(a: Sig, b: Sig) -> list[str]:
    out = []
    if _venue_agrees(a.venue, b.venue):
        out.append("same venue")
    for name, norm in (("volume", _first_number), ("pages", _first_page)):
        va, vb = a.field(name), b.field(name)
        if va and vb and norm(va) == norm(vb):
            out.append(f"same {name}")
    return out


def compare(a: Sig, b: Sig, threshold: float = DEFAULT_THRESHOLD, *,
            generic: Callable[[Sig], bool] | None = None,
            series: Callable[[Sig], bool] | None = None) -> Verdict:
    """Judge one pair. ``generic`` may flag titles the library shares among many
    entries (they then need the stricter rule); ``series`` may flag a title that
    starts several different titles ("X: part A", "X: part B"), which then cannot
    match "X: ..." by dropping the subtitle."""
    vetoes: list[str] = []
    evidence: list[str] = []
    tscore = title_score(a.title, b.title) if a.title and b.title else 0.0
    tlabel = f"title {tscore:.0f}"

    # 1. identifiers
    if a.doi and b.doi:
        if a.doi == b.doi:
            if not (a.title and b.title) or tscore >= 60 or _prefix_title(a, b):
                ev = ["same DOI"] + ([tlabel] if a.title and b.title else [])
                return Verdict(True, 100.0, "same DOI", ev)
            vetoes.append(f"same DOI but different titles ({tlabel})")
        elif not (a.doi.startswith(_PREPRINT_DOI) or b.doi.startswith(_PREPRINT_DOI)):
            vetoes.append(f"different DOIs ({a.doi} / {b.doi})")
    if a.arxiv and b.arxiv:
        if a.arxiv == b.arxiv:
            if not (a.title and b.title) or tscore >= 60:
                return Verdict(True, 100.0, "same arXiv id",
                               ["same arXiv id"] + ([tlabel] if a.title and b.title else []))
            vetoes.append(f"same arXiv id but different titles ({tlabel})")
        else:
            vetoes.append(f"different arXiv ids ({a.arxiv} / {b.arxiv})")
    if a.isbn and b.isbn:
        if a.isbn != b.isbn:
            vetoes.append(f"different ISBNs ({a.isbn} / {b.isbn})")
        elif tscore >= 80 and not vetoes:
            conflicts = _bibliographic_conflicts(a, b)
            if not conflicts:
                return Verdict(True, 100.0, "same ISBN", ["same ISBN", tlabel])
            vetoes.extend(conflicts)

    # 2. titles
    if not (a.title and b.title):
        return Verdict(False, tscore, "", evidence, vetoes + ["a title is missing"])
    title_rule = "title"
    score = tscore
    short, long_ = (a, b) if len(a.title) <= len(b.title) else (b, a)
    main_score = 0.0
    if long_.main and not short.main and tscore < 100:
        main_score = title_score(short.title, long_.main)
    if (main_score >= max(threshold, 95.0) and len(short.content_tokens) >= 3
            and len(short.title) >= 20 and not (series is not None and series(short))):
        title_rule = "title without subtitle"
        score = main_score
        evidence.append(f"title {main_score:.0f} without the subtitle")
    elif tscore >= threshold:
        evidence.append(tlabel)
    else:
        return Verdict(False, tscore, "", [tlabel],
                       vetoes + [f"{tlabel} is below {threshold:g}"])
    if vetoes:
        return Verdict(False, score, "", evidence, vetoes)

    # what the titles themselves say (whole titles, subtitles included)
    if a.nums != b.nums:
        vetoes.append("different numbers in the titles (" + (" ".join(a.nums) or "none")
                      + " / " + (" ".join(b.nums) or "none") + ")")
    ua: list[str] = []
    ub: list[str] = []
    if a.title != b.title:
        marker = _marker_difference(a.tokens, b.tokens)
        if marker:
            vetoes.append(f"'{marker}' in one title only")
        if title_rule == "title":
            ua, ub = _unmatched_words(a.tokens, b.tokens)

    # years and bibliographic details
    ya, yb = a.year, b.year
    if ya and yb:
        if abs(ya - yb) > 1:
            vetoes.append(f"years {min(ya, yb)}/{max(ya, yb)}")
        elif ya != yb:
            evidence.append(f"years {min(ya, yb)}/{max(ya, yb)}")
        else:
            evidence.append(f"year {ya}")
    vetoes.extend(_bibliographic_conflicts(a, b))
    if vetoes:
        return Verdict(False, score, "", evidence, vetoes)

    strict = ""
    if (a.title in _GENERIC or b.title in _GENERIC
            or min(len(a.content_tokens), len(b.content_tokens)) < 3
            or (generic is not None and (generic(a) or generic(b)))):
        strict = "generic title"
    elif (ua and ub) or len(ua) + len(ub) > 1:
        strict = "different words (" + (ua[0] if ua else "-") + " / " + (ub[0] if ub else "-") + ")"
    extra_word = (ua or ub)[0] if (ua or ub) and not strict else ""
    agreement = _bibliographic_agreement(a, b) if strict or not (a.authors and b.authors) \
        else []

    # authors
    au_a, au_b = a.authors, b.authors
    if au_a and au_b:
        shared = shared_authors(au_a, au_b, b.author_index)
        smaller = min(len(au_a), len(au_b))
        if shared == 0:
            return Verdict(False, score, "", evidence, ["no author in common"])
        evidence.insert(1, f"{shared} of {smaller} authors shared")
        overlap = shared / smaller
        first_same = _person_match(au_a[0], au_b[0])
        if strict:
            if first_same and overlap >= 0.5 and ya and ya == yb and "same pages" in agreement:
                rule = ("generic title" if strict == "generic title" else
                        "title with different words") + " + authors + year + pages"
                return Verdict(True, score, rule, evidence + agreement)
            return Verdict(False, score, "", evidence + agreement,
                           [f"{strict}: needs the same first author, year and pages"])
        if not first_same:
            agreement = _bibliographic_agreement(a, b)
            if not (overlap >= 0.5 and agreement):
                return Verdict(False, score, "", evidence, [
                    f"different first authors ({au_a[0][0][-1]} / {au_b[0][0][-1]}): needs half "
                    "the authors and the same venue, volume or pages"])
            evidence.append("different first authors")
        elif overlap < 1 / 3 and shared < 3:
            return Verdict(False, score, "", evidence,
                           [f"only {shared} of {smaller} authors shared"])
        if extra_word and not (first_same and overlap >= 0.5):
            return Verdict(False, score, "", evidence,
                           [f"one more word ({extra_word}) in one title: needs the same first "
                            "author and half the authors"])
        return Verdict(True, score, f"{title_rule} + author + year", evidence + agreement)

    # no authors on one side: a specific, near-identical title, the year and the venue
    if extra_word and not strict:
        strict = f"one more word ({extra_word}) in one title"
    if strict:
        return Verdict(False, score, "", evidence,
                       [f"authors missing and {strict}"])
    if title_rule != "title" or tscore < max(threshold, 95.0):
        return Verdict(False, score, "", evidence, [f"authors missing and {tlabel} < 95"])
    words = min(len(a.content_tokens), len(b.content_tokens))
    if ya and yb and ya == yb:
        ok = bool(agreement) or words >= 6
    elif ya and yb:
        ok = bool(agreement) and words >= 6 and tscore >= 97
    else:
        ok = bool(agreement) and words >= 8 and tscore >= 98
    if not ok:
        return Verdict(False, score, "", evidence,
                       ["authors missing: needs the same year and venue, volume or pages "
                        "(or a long title)"])
    evidence.append("authors missing")
    return Verdict(True, score, "title + year + venue (no authors)", evidence + agreement)


def _prefix_title(a: Sig, b: Sig) -> bool:
    short, long_ = (a, b) if len(a.title) <= len(b.title) else (b, a)
    return bool(long_.main) and short.title == long_.main


# ---------------------------------------------------------------- one candidate
@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Building many small objects: the cyclic GC only slows it down (see store)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_ID_RULES = ("same DOI", "same arXiv id", "same ISBN")


class Index:
    """All records' titles, with exact-title maps, for repeated look-ups."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.sigs: list[Sig] = []
        self.titles: list[str] = []
        self.by_title: dict[str, list[int]] = {}
        self._blobs: dict[str, _Blob] = {}
        self._sorted: list[str] = []
        with _no_gc():
            for rec in records:
                self.add(rec)

    def add(self, rec: Record) -> Sig:
        i = len(self.sigs)
        s = Sig(rec, i)
        self.sigs.append(s)
        self.titles.append(s.title)
        if s.title:
            self.by_title.setdefault(s.title, []).append(i)
        return s

    def generic(self, s: Sig) -> bool:
        """Is ``s``'s title one that several different works in the library share?"""
        same = self.by_title.get(s.title, ())
        if len(same) < 2:
            return False
        return _many_works([self.sigs[i] for i in same] + [s])

    def series(self, s: Sig) -> bool:
        """Do two or more different titles in the index read "<s's title>: ..."?"""
        head = s.title + " "
        return _is_series({self.titles[i] for i in self._blob("titles").starting(head)
                           if self.sigs[i].main == s.title})

    def _blob(self, name: str) -> "_Blob":
        """All records' identifier-bearing text, or all titles, as one searchable string
        (built once per index; a search is then one C-speed ``str.find`` loop)."""
        blob = self._blobs.get(name)
        if blob is None or blob.size != len(self.sigs):
            if name == "titles":
                texts = self.titles
            else:
                texts = ["\t".join(v.lower() for n, v in s.record.fields.items()
                                    if n in _ID_TEXT_FIELDS) for s in self.sigs]
            blob = self._blobs[name] = _Blob(texts)
        return blob

    def _id_candidates(self, s: Sig) -> set[int]:
        out: set[int] = set()
        for needle, attr in ((s.doi, "doi"), (s.arxiv, "arxiv")):
            if needle:
                out.update(i for i in self._blob("ids").containing(needle)
                           if getattr(self.sigs[i], attr) == needle)
        if s.isbn:
            out.update(i for i, o in enumerate(self.sigs)
                       if o.record.type in _BOOKLIKE and o.isbn == s.isbn)
        return out

    def candidates(self, s: Sig, threshold: float) -> set[int]:
        """Indexes of records that might match ``s`` (identifiers, titles)."""
        from rapidfuzz import fuzz, process

        out = self._id_candidates(s) if (s.doi or s.arxiv or s.isbn) else set()
        if s.title:
            cut = min(threshold, _PREFILTER)
            if len(self._sorted) != len(self.sigs):  # words in order: ratio = token_sort_ratio
                self._sorted.extend(o.sorted_title for o in self.sigs[len(self._sorted):])
            for query, choices in ((s.title, self.titles), (s.sorted_title, self._sorted)):
                for _, _, j in process.extract(query, choices, scorer=fuzz.ratio,
                                               processor=None, score_cutoff=cut, limit=None):
                    out.add(j)
            # a title without its subtitle: one title starts with the other
            out.update(self._blob("titles").starting(s.title + " "))
            if s.main:
                out.update(self.by_title.get(s.main, ()))
        return out


_ID_TEXT_FIELDS = frozenset({"doi", "url", "eprint", "arxiv", "journal", "journaltitle", "note",
                             "howpublished"})


class _Blob:
    """Strings joined by newlines, searchable as one (substring or prefix)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.size = len(texts)
        parts = []
        starts = []
        pos = 1
        for t in texts:
            t = t.replace("\n", " ")
            starts.append(pos)
            parts.append(t)
            pos += len(t) + 1
        self.text = "\n" + "\n".join(parts) + "\n"
        self.starts = starts

    def _hits(self, needle: str, shift: int = 0) -> Iterator[int]:
        import bisect

        text, find = self.text, self.text.find
        i = find(needle)
        while i >= 0:
            k = bisect.bisect_right(self.starts, i + shift) - 1
            yield k
            nxt = text.find("\n", i + 1)
            i = find(needle, nxt) if nxt >= 0 else -1

    def containing(self, needle: str) -> Iterator[int]:
        return self._hits(needle) if needle and "\n" not in needle else iter(())

    def starting(self, head: str) -> Iterator[int]:
        return self._hits("\n" + head, 1) if head and "\n" not in head else iter(())


def _is_series(titles: Iterable[str]) -> bool:
    """Titles sharing a main title but clearly different after it ("X: part A",
    "X: part B"; not "X: a sub-title" and "X: a sub-tilte")."""
    ts = sorted(titles)[:12]
    return any(title_score(x, y) < DEFAULT_THRESHOLD
               for i, x in enumerate(ts) for y in ts[i + 1:])


def _many_works(sigs: Sequence[Sig]) -> bool:
    """Do entries sharing one title come from three or more different first authors
    (or, without authors, years)? Then the title does not identify a work."""
    firsts = set()
    years = set()
    for s in sigs:
        au = s.authors
        if au:
            firsts.add(au[0][0][-1])
        elif s.year:
            years.add(s.year)
    return len(firsts) >= 3 or len(years) >= 3


_INDEX_CACHE: list = []  # [(records sequence, ids of its records, Index)]


def _index_for(records: Sequence[Record]) -> Index:
    """The index of ``records``, reused while the sequence holds the same record
    objects (records appended since are added; any other change rebuilds it). The
    index keeps the records alive, so their ids cannot be reused meanwhile."""
    if _INDEX_CACHE:
        seq, ids, index = _INDEX_CACHE[0]
        n = len(ids)
        if seq is records and len(records) >= n and list(map(id, records[:n])) == ids:
            for rec in records[n:]:
                index.add(rec)
            ids.extend(map(id, records[n:]))
            return index
    index = Index(records)
    _INDEX_CACHE[:] = [(records, list(map(id, records)), index)]
    return index


def find_matches(candidate: Record, records: Sequence[Record], *,
                 threshold: float | None = None) -> list[Match]:
    """The records ``candidate`` duplicates, strongest first.

    The index built over ``records`` is kept for the next call with the same
    sequence (records appended since are indexed incrementally), so checking
    many candidates against one library costs one index build.
    """
    th = DEFAULT_THRESHOLD if threshold is None else float(threshold)
    index = _index_for(records)
    s = Sig(candidate, -1)
    out: list[Match] = []
    for j in index.candidates(s, th):
        other = index.sigs[j]
        if other.record is candidate:
            continue
        v = compare(s, other, th, generic=index.generic, series=index.series)
        if v.duplicate:
            out.append(Match(other.record, v.score, v.evidence, v.rule))
    out.sort(key=lambda m: (-m.score, m.rule not in _ID_RULES, m.record.line, m.record.key))
    return out


def explain(a: Record, b: Record, threshold: float | None = None) -> Verdict:
    """The full judgement on two records: the rule, the evidence, and what vetoed it."""
    th = DEFAULT_THRESHOLD if threshold is None else float(threshold)
    return compare(Sig(a, 0), Sig(b, 1), th)


# ---------------------------------------------------------------- the whole library
@dataclass
class Link:
    """Two records judged duplicates, and why."""

    a: Record
    b: Record
    score: float
    rule: str
    evidence: list[str]


@dataclass
class Group:
    """Records that describe one work (joined transitively), in file order."""

    records: list[Record]
    links: list[Link]
    #: Pairs inside the group the matcher would not join directly (a chain
    #: A-B-C where A and C conflict): such a group needs a human.
    conflicts: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        """The weakest link's score."""
        return min(link.score for link in self.links) if self.links else 0.0

    @property
    def keys(self) -> list[str]:
        return [r.key for r in self.records]


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The order-free, case-free form of a key pair (for remembered decisions)."""
    x, y = a.casefold(), b.casefold()
    return (x, y) if x <= y else (y, x)


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        parent = self.parent
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:
            parent[i], i = root, parent[i]
        return root

    def union(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            if ri < rj:
                self.parent[rj] = ri
            else:
                self.parent[ri] = rj


_BIG_BLOCK = 60  # beyond this many entries with one key, pairs are taken more selectively


def _pairs_within(members: list[int], sigs: list[Sig], out: set[tuple[int, int]]) -> None:
    """All pairs of a block; a big block is split by first author (then year) first."""
    if len(members) <= _BIG_BLOCK:
        for x in range(len(members)):
            i = members[x]
            for j in members[x + 1:]:
                out.add((i, j) if i < j else (j, i))
        return
    sub: dict[tuple, list[int]] = {}
    for i in members:
        au = sigs[i].authors
        sub.setdefault((au[0][0][-1] if au else "", sigs[i].year), []).append(i)
    for part in sub.values():
        if len(part) <= 4 * _BIG_BLOCK:
            _pairs_within(part[:_BIG_BLOCK], sigs, out) if len(part) > _BIG_BLOCK else \
                _pairs_within(part, sigs, out)


def block(sigs: list[Sig], index: Index, threshold: float, *,
          window: int = WINDOW, progress: Callable[[int, int], None] | None = None
          ) -> set[tuple[int, int]]:
    """Candidate pairs (i < j) worth judging: shared identifiers, identical titles
    or word sets, a title equal to another's main title, and titles (or main titles)
    near each other in one of three sort orders whose ``ratio`` passes a loose cut
    (scored in C by rapidfuzz)."""
    pairs: set[tuple[int, int]] = set()
    # exact keys
    ids: dict[tuple[str, str], list[int]] = {}
    for s in sigs:
        doi, arxiv, isbn = s._identifiers()
        if doi:
            ids.setdefault(("doi", doi), []).append(s.index)
        if arxiv:
            ids.setdefault(("arxiv", arxiv), []).append(s.index)
        if isbn:
            ids.setdefault(("isbn", isbn), []).append(s.index)
    for members in ids.values():
        if len(members) > 1:
            _pairs_within(members, sigs, pairs)
    for members in index.by_title.values():
        if len(members) > 1:
            _pairs_within(members, sigs, pairs)
    # sorted neighbourhood over distinct keys, in three orders
    cut = min(threshold, _PREFILTER)
    by_sorted: dict[str, list[int]] = {}
    for s in sigs:
        if s.title:
            by_sorted.setdefault(s.sorted_title, []).append(s.index)
    for members in by_sorted.values():
        if len(members) > 1:
            _pairs_within(members, sigs, pairs)
    # titles and main titles (without the subtitle) share the first order, so that
    # "title" meets "title: subtitle" even with a typo
    by_main: dict[str, list[int]] = {}
    for s in sigs:
        if s.main:
            by_main.setdefault(s.main, []).append(s.index)
    for key, shorter in by_main.items():
        same = index.by_title.get(key)
        if same and len(same) * len(shorter) <= _BIG_BLOCK * _BIG_BLOCK:
            for i in same:
                for j in shorter:
                    if i != j:
                        pairs.add((i, j) if i < j else (j, i))
    uniq = list(index.by_title)
    no_members: list[int] = []

    def title_or_main(key: str) -> list[int]:
        return index.by_title.get(key, no_members) + by_main.get(key, no_members)

    passes: list[tuple[list[str], Callable[[str], list[int]]]] = [
        (sorted(set(uniq).union(by_main)), title_or_main),
        (sorted(by_sorted), by_sorted.__getitem__),
    ]
    rev = {t[::-1]: t for t in uniq}
    passes.append((sorted(rev), lambda r: index.by_title[rev[r]]))
    total = sum(len(keys) for keys, _ in passes)
    done = 0
    for keys, members_of in passes:
        for p, q in _neighbour_hits(keys, window, cut):
            gi, gj = members_of(keys[p]), members_of(keys[q])
            if len(gi) * len(gj) > _BIG_BLOCK * _BIG_BLOCK:
                continue
            for i in gi:
                for j in gj:
                    if i != j:
                        pairs.add((i, j) if i < j else (j, i))
        done += len(keys)
        if progress is not None:
            progress(done, total)
    return pairs


def _neighbour_hits(keys: list[str], window: int, cut: float) -> Iterator[tuple[int, int]]:
    """Positions (p, q), p < q <= p + window, of sorted ``keys`` whose ``ratio`` >= cut.

    With numpy, rapidfuzz scores each offset's pairs in one call on all cores
    (``cpdist``); without it, one ``extract`` call per key."""
    from rapidfuzz import fuzz, process

    n = len(keys)
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        for d in range(1, min(window, n - 1) + 1):
            scores = process.cpdist(keys[:-d], keys[d:], scorer=fuzz.ratio, processor=None,
                                    score_cutoff=cut, workers=-1)
            for p in np.flatnonzero(scores).tolist():
                yield p, p + d
        return
    extract = process.extract
    ratio = fuzz.ratio
    for p in range(n - 1):
        for _, _, off in extract(keys[p], keys[p + 1:p + 1 + window], scorer=ratio,
                                 processor=None, score_cutoff=cut, limit=None):
            yield p, p + 1 + off


def find_groups(records: Sequence[Record], *, threshold: float | None = None,
                distinct: Iterable[tuple[str, str]] = (),
                progress: Callable[[int, int], None] | None = None) -> list[Group]:
    """Groups of records that describe the same work, in file order.

    ``distinct`` holds key pairs a user judged "not duplicates": such a pair is
    never linked (see :mod:`pubcli.distinct`). ``progress(done, total)`` is
    called now and then during long runs.
    """
    with _no_gc():
        return _find_groups(records, threshold, distinct, progress)


def _find_groups(records: Sequence[Record], threshold: float | None,
                 distinct: Iterable[tuple[str, str]],
                 progress: Callable[[int, int], None] | None) -> list[Group]:
    th = DEFAULT_THRESHOLD if threshold is None else float(threshold)
    skip = {pair_key(a, b) for a, b in distinct}

    def report(stage_done: float, start: int, width: int) -> None:
        # progress in thousandths: index 0-200, blocking 200-600, judging 600-1000
        if progress is not None:
            progress(start + int(width * stage_done), 1000)

    index = Index(records)
    report(1, 0, 200)
    sigs = index.sigs
    pairs = block(sigs, index, th, progress=lambda d, t: report(d / max(t, 1), 200, 400))
    generic_cache: dict[str, bool] = {}
    subtitles: dict[str, set[str]] = {}
    for s in sigs:
        if s.main:
            subtitles.setdefault(s.main, set()).add(s.title)

    series_cache: dict[str, bool] = {}

    def series(s: Sig) -> bool:
        got = series_cache.get(s.title)
        if got is None:
            got = series_cache[s.title] = _is_series(subtitles.get(s.title, ()))
        return got

    def generic(s: Sig) -> bool:
        got = generic_cache.get(s.title)
        if got is None:
            same = index.by_title.get(s.title, ())
            got = len(same) >= 3 and _many_works([sigs[i] for i in same])
            generic_cache[s.title] = got
        return got

    links: list[tuple[int, int, Verdict]] = []
    judged: dict[tuple[int, int], Verdict] = {}  # verdicts the clustering may ask for again
    for n, (i, j) in enumerate(sorted(pairs)):
        a, b = sigs[i], sigs[j]
        if n % 5000 == 4999:
            report(n / len(pairs), 600, 400)
        if skip and pair_key(a.record.key, b.record.key) in skip:
            continue
        v = compare(a, b, th, generic=generic, series=series)
        if v.duplicate:
            links.append((i, j, v))
        if th <= DEFAULT_THRESHOLD:
            judged[(i, j)] = v
    groups = _cluster(sigs, links, th, skip, generic, series, judged)
    report(1, 600, 400)
    return groups


def _rule_rank(rule: str) -> int:
    if rule in _ID_RULES:
        return 0
    if rule == "title + author + year":
        return 1
    if rule.startswith("title + year"):  # no authors
        return 3
    return 2


def _cluster(sigs: list[Sig], links: list[tuple[int, int, "Verdict"]], th: float,
             skip: set[tuple[str, str]], generic: Callable[[Sig], bool],
             series: Callable[[Sig], bool],
             judged: dict[tuple[int, int], "Verdict"] | None = None) -> list[Group]:
    """Union-find over the links, strongest first, never joining two groups when a
    member of one is known to be a different work from a member of the other (a
    preprint without a year must not tie a paper to its namesake three years on)."""
    links = sorted(links, key=lambda t: (_rule_rank(t[2].rule), -t[2].score, t[0], t[1]))
    uf = _UnionFind(len(sigs))
    members: dict[int, list[int]] = {}
    kept: dict[int, list[tuple[int, int, Verdict]]] = {}
    notes: dict[int, list[str]] = {}

    def separated(x: int, y: int) -> str:
        kx, ky = sigs[x].record.key, sigs[y].record.key
        if skip and pair_key(kx, ky) in skip:
            return f"{kx} / {ky}: marked as not duplicates"
        # judged at no more than the default threshold: a strict --threshold must not
        # hide that two titles differ by a word
        v = (judged or {}).get((x, y) if x < y else (y, x))
        if v is None:
            v = compare(sigs[x], sigs[y], min(th, DEFAULT_THRESHOLD), generic=generic,
                        series=series)
        if v.duplicate:
            return ""
        # two years apart can be a chain of "one year apart" (preprint, paper, journal)
        hard = [w for w in v.vetoes if not w.startswith(_SOFT) and not _two_years(w)]
        return f"{kx} / {ky}: {hard[0]}" if hard else ""

    for i, j, v in links:
        ri, rj = uf.find(i), uf.find(j)
        if ri == rj:
            kept[ri].append((i, j, v))
            continue
        ci, cj = members.get(ri, [i]), members.get(rj, [j])
        why = ""
        if (len(ci) > 1 or len(cj) > 1) and len(ci) * len(cj) <= 400:
            why = next((w for x in ci for y in cj if (x, y) != (i, j) and (y, x) != (i, j)
                        for w in [separated(x, y)] if w), "")
        if why:
            msg = f"{sigs[i].record.key} ~ {sigs[j].record.key} left apart: {why}"
            notes.setdefault(ri, []).append(msg)
            notes.setdefault(rj, []).append(msg)
            continue
        uf.union(i, j)
        r = uf.find(i)
        members[r] = ci + cj
        kept[r] = kept.pop(ri, []) + kept.pop(rj, []) + [(i, j, v)]
        notes[r] = notes.pop(ri, []) + notes.pop(rj, [])
        for old in (ri, rj):
            if old != r:
                members.pop(old, None)
    groups = []
    for r, idx in members.items():
        idx = sorted(idx)
        group = Group([sigs[i].record for i in idx],
                      [Link(sigs[i].record, sigs[j].record, v.score, v.rule, v.evidence)
                       for i, j, v in sorted(kept.get(r, []))],
                      list(dict.fromkeys(notes.get(r, []))))
        groups.append(group)
    groups.sort(key=lambda g: (g.records[0].line, g.records[0].key))
    return groups


# vetoes that only say "not enough evidence"; the others say "different works"
_SOFT = ("title ", "only ", "authors missing", "generic", "a title is missing", "one more word",
         "different first authors")


def _two_years(veto: str) -> bool:
    m = re.fullmatch(r"years (\d{4})/(\d{4})", veto)
    return bool(m) and int(m.group(2)) - int(m.group(1)) == 2


# ---------------------------------------------------------------- merging
@dataclass
class Conflict:
    """A field the merged entries disagree on; ``kept`` is what the merge holds."""

    field: str
    kept: str
    others: list[tuple[str, str]]  # (key, value)


@dataclass
class MergeResult:
    record: Record
    conflicts: list[Conflict]
    dropped_keys: list[str]
    filled: list[tuple[str, str]] = field(default_factory=list)  # (field, from key)


def _split_ids(value: str | None) -> list[str]:
    return [k.strip() for k in (value or "").split(",") if k.strip()]


def _same_value(name: str, a: str, b: str) -> bool:
    if a == b:
        return True
    if name == "doi":
        return normalise_doi(a) == normalise_doi(b) != ""
    if name == "author" or name == "editor":
        pa, pb = parse_authors(a), parse_authors(b)
        return len(pa) == len(pb) and shared_authors(pa, pb) == len(pa)
    if name == "pages":
        return normalise(a.replace("--", "-")) == normalise(b.replace("--", "-"))
    return normalise(a) == normalise(b)


def merge(group_records: Sequence[Record], keep_key: str) -> MergeResult:
    """Merge a group into the entry ``keep_key``: its fields win; fields it lacks
    are filled from the others (in order); ``keywords`` are united; values that
    disagree are reported as conflicts (never silently replaced); the other keys
    go into the biblatex ``ids`` field so documents citing them still compile."""
    keep = next((r for r in group_records if r.key == keep_key), None)
    if keep is None:
        raise ValueError(f"{keep_key!r} is not in the group")
    fields = dict(keep.fields)
    others = [r for r in group_records if r is not keep]
    conflicts: dict[str, Conflict] = {}
    filled: list[tuple[str, str]] = []
    areas = split_areas(fields.get(AREA_FIELD))
    ids = [k for k in _split_ids(fields.get("ids")) if k != keep.key]
    dropped: list[str] = []
    for other in others:
        if other.key != keep.key and other.key not in dropped:
            dropped.append(other.key)
        for k in [other.key, *_split_ids(other.fields.get("ids"))]:
            if k != keep.key and k not in ids:
                ids.append(k)
        if other.type != keep.type:
            c = conflicts.setdefault("@type", Conflict("@type", keep.type, []))
            c.others.append((other.key, other.type))
        for name, value in other.fields.items():
            if name == AREA_FIELD:
                seen = {a.casefold() for a in areas}
                areas += [a for a in split_areas(value) if a.casefold() not in seen]
                continue
            if name == "ids":
                continue
            if not value.strip():
                continue
            current = fields.get(name)
            if current is None or not current.strip():
                fields[name] = value
                filled.append((name, other.key))
            elif not _same_value(name, current, value):
                c = conflicts.setdefault(name, Conflict(name, current, []))
                if all(not _same_value(name, v, value) for _, v in c.others):
                    c.others.append((other.key, value))
    if areas:
        fields[AREA_FIELD] = join_areas(areas)
    if ids:
        fields["ids"] = ", ".join(ids)
    return MergeResult(keep.copy(fields=fields), list(conflicts.values()), dropped, filled)


_TYPE_RANK = {"article": 4, "inproceedings": 4, "book": 4, "incollection": 4, "inbook": 4,
              "phdthesis": 3, "mastersthesis": 3, "thesis": 3, "conference": 4,
              "techreport": 2, "report": 2, "proceedings": 3, "collection": 3}


def suggest_keep(group_records: Sequence[Record]) -> str:
    """The key a merge should keep by default: the published version (not the
    preprint), then the entry with the most fields, a DOI, then the first in the file."""
    def rank(r: Record) -> tuple:
        filled = sum(1 for v in r.fields.values() if v.strip())
        return (_TYPE_RANK.get(r.type, 1), "doi" in r.fields, filled, -r.line)

    return max(group_records, key=rank).key
