"""Author lists: splitting ``A and B``, the two BibTeX name forms, display.

BibTeX names come as "First von Last", "von Last, First" or
"von Last, Jr, First"; an author list joins them with " and " (at brace
depth 0). pubcli never rewrites names; these helpers serve display and matching,
and :func:`bibtex_name` writes a name typed as people write it (a pasted listing, a
web service's answer) in BibTeX's unambiguous "von Last, Jr, First" form.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple

from pubcli.text.latex import to_text
from pubcli.text.encode import escape
from pubcli.text.fold import fold

if TYPE_CHECKING:
    from pubcli.schema.model import Record

_AND_SPLIT_RE = re.compile(r"(\s+and\s+)", re.I)


class Name(NamedTuple):
    first: str
    von: str
    last: str
    jr: str

    @property
    def display(self) -> str:
        """"First von Last, Jr" in Unicode."""
        parts = [p for p in (self.first, self.von, self.last) if p]
        out = " ".join(parts)
        return f"{out}, {self.jr}" if self.jr else out

    @property
    def initials(self) -> str:
        """"O. Ruwase" style."""
        firsts = " ".join(w[0] + "." for w in re.split(r"[\s-]+", self.first) if w)
        rest = " ".join(p for p in (self.von, self.last) if p)
        return f"{firsts} {rest}".strip()


def split_authors(value: str | None) -> list[str]:
    """Split an author field on " and " outside braces; "others" is kept."""
    if not value:
        return []
    parts = _AND_SPLIT_RE.split(value.strip())
    if "{" not in value:
        return [p.strip() for p in parts[::2] if p.strip()]
    # re-join pieces whose split point fell inside braces ({Barnes and Noble})
    out: list[str] = []
    cur = ""
    for i, piece in enumerate(parts):
        if i % 2 and not cur:
            continue  # the separator after a finished name
        cur += piece
        if i % 2 == 0 and cur.count("{") <= cur.count("}"):
            if cur.strip():
                out.append(cur.strip())
            cur = ""
    if cur.strip():
        out.append(cur.strip())
    return out


def split_top_level(value: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside braces; parts are stripped (empty ones kept)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(value):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(value[start:i].strip())
            start = i + 1
    parts.append(value[start:].strip())
    return parts


def _words(s: str) -> list[str]:
    words: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if (c.isspace() or c == "~") and depth == 0:
            if cur:
                words.append("".join(cur))
                cur = []
        else:
            cur.append(c)
    if cur:
        words.append("".join(cur))
    return words


def _is_von(word: str) -> bool:
    text = to_text(word) if ("\\" in word or "{" in word) and not word.startswith("{") else word
    return bool(text) and text[0].islower() and not word.startswith("{")


@lru_cache(maxsize=1 << 18)
def parse_name(raw: str) -> Name:
    """Parse one BibTeX name into its parts (in Unicode)."""
    parts = split_top_level(raw)
    if len(parts) >= 2:
        vl = _words(parts[0])
        jr = parts[1] if len(parts) >= 3 else ""
        first = parts[-1]
        i = 0
        while i < len(vl) - 1 and _is_von(vl[i]):
            i += 1
        von, last = vl[:i], vl[i:]
        return Name(to_text(first), to_text(" ".join(von)), to_text(" ".join(last)),
                    to_text(jr))
    words = _words(raw)
    if not words:
        return Name("", "", "", "")
    if len(words) == 1:
        return Name("", "", to_text(words[0]), "")
    # First von Last: von starts at the first lower-case word (not the last word)
    start = next((i for i, w in enumerate(words[:-1]) if _is_von(w)), None)
    if start is None:
        return Name(to_text(" ".join(words[:-1])), "", to_text(words[-1]), "")
    end = start
    while end < len(words) - 1 and _is_von(words[end]):
        end += 1
    return Name(to_text(" ".join(words[:start])), to_text(" ".join(words[start:end])),
                to_text(" ".join(words[end:])), "")


@lru_cache(maxsize=1 << 18)
def display_name(raw: str) -> str:
    """"First von Last, Jr" in Unicode for one raw BibTeX name ("et al." for others)."""
    return "et al." if raw.lower() == "others" else parse_name(raw).display


@lru_cache(maxsize=1 << 18)
def family_name(raw: str) -> str:
    """The family name (von part included) in Unicode of one raw BibTeX name."""
    if raw.lower() == "others":
        return "et al."
    name = parse_name(raw)
    return " ".join(p for p in (name.von, name.last) if p)


@lru_cache(maxsize=1 << 16)
def is_person(raw: str, person: str) -> bool:
    """Does the raw BibTeX name denote ``person``? (cached name_matches)"""
    return name_matches(parse_name(raw), person)


def name_matches(name: Name, person: str) -> bool:
    """Does a parsed name denote ``person`` ("Olatunji Ruwase" or "Ruwase, O.")?"""
    p = parse_name(person)
    if fold(p.last) != fold(name.last):
        return False
    if not p.first or not name.first:
        return True
    return fold(p.first)[0] == fold(name.first)[0]


# ---------------------------------------------------- writing a name as BibTeX
#: Surname particles, lower- or upper-case ("de Rosa", "van der Berg", "Da Silva",
#: "Del Giorno"): with the words before the last name, they belong to it.
PARTICLES = frozenset({"de", "del", "della", "der", "den", "di", "da", "das", "dos", "du",
                       "la", "le", "van", "von", "ter", "ten", "zu", "bin", "ibn", "al", "el",
                       "st.", "mac", "dela", "do", "af"})
#: Generational suffixes, BibTeX's "Jr" part.
SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


def bibtex_name(display: str, known: Mapping[str, str] | None = None, *,
                latex: bool = False) -> str:
    """A name as people write it ("First von Last Jr") in BibTeX's unambiguous form
    "von Last, Jr, First": "Gustavo de Rosa" -> "de Rosa, Gustavo", "Charles de la
    Vallée Poussin" -> "de la Vallée Poussin, Charles", "Martin Luther King Jr." ->
    "King, Jr., Martin Luther"; one word stays as it is.

    The last name starts at the first lower-case word after the first (BibTeX's "von"),
    or earlier at particles written capitalised ("Maria Da Silva" -> "Da Silva, Maria").
    A name already written "Last, First" is kept. ``display`` is plain text, escaped
    for LaTeX here, unless ``latex`` (it is BibTeX text already). ``known``: folded
    "First Last" -> the spelling a library already uses (:func:`known_names`)."""
    name = " ".join(display.split())
    if not name:
        return ""
    if known:
        hit = known.get(fold(name))
        if hit is not None:
            return hit
    text = name if latex else escape(name)
    parts = split_top_level(text)
    jr = ""
    if len(parts) == 2 and parts[1].lower() in SUFFIXES and " " in parts[0]:
        words, jr = _words(parts[0]), parts[1]  # "Martin Luther King, Jr."
    elif len(parts) > 1:
        return text  # "Last, First" already
    else:
        words = _words(text)
        if len(words) > 2 and words[-1].lower() in SUFFIXES:
            jr = words.pop()
    if len(words) == 1:
        return words[0]
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in PARTICLES:
        start -= 1
    von = next((i for i in range(1, len(words) - 1) if _is_von(words[i])), start)
    start = min(start, von)
    return ", ".join([" ".join(words[start:])] + ([jr] if jr else []) +
                     [" ".join(words[:start])])


def known_names(records: Iterable[Record]) -> dict[str, str]:
    """folded "First Last" -> "Last, First" for the names a library writes with a
    comma, so that a name typed "First Last" takes the library's spelling."""
    out: dict[str, str] = {}
    for rec in records:
        value = rec.fields.get("author")
        if not value or "," not in value:
            continue
        for raw in split_authors(value):
            parts = raw.split(",")
            if len(parts) != 2:
                continue
            last, first = parts[0].strip(), parts[1].strip()
            display = f"{first} {last}"
            if "\\" in display or "{" in display:
                display = to_text(display)
            out.setdefault(fold(" ".join(display.split())), raw.strip())
    return out


# ---------------------------------------------------- a person named on the command line
class PersonQuery(NamedTuple):
    """A person as typed after ``--author``: "Bubeck", "Bubeck, S.", "S. Bubeck"..."""

    text: str                # the whole query, folded (for a one-word query)
    last: str                # the family name (with any von part), folded; "" if one word
    firsts: tuple[str, ...]  # the given names, folded, one per word ("s" for "S.")


_GIVEN_SPLIT_RE = re.compile(r"[\s.~\-]+")


def _given_names(first: str) -> tuple[str, ...]:
    return tuple(w for w in _GIVEN_SPLIT_RE.split(fold(first)) if w)


def _family(name: Name) -> str:
    return fold(" ".join(p for p in (name.von, name.last) if p))


def person_query(text: str) -> PersonQuery:
    """Read ``--author TEXT``. One word matches any name containing it; a name with
    a given part ("S. Bubeck", "Bubeck, Sébastien") is matched as a person."""
    folded = " ".join(fold(text).split())
    words = _words(text.strip())
    if "," in text:  # "von Last, First": the name as BibTeX reads it
        name = parse_name(" ".join(text.split()))
        return PersonQuery(folded, _family(name), _given_names(name.first))
    if len(words) < 2:
        return PersonQuery(folded, "", ())
    # "First Last" as typed: the last word is the family name, whatever its case
    given = to_text(" ".join(words[:-1]))
    return PersonQuery(folded, fold(to_text(words[-1])), _given_names(given))


def _given_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """"s" fits "sebastien"; "sebastien" does not fit "samuel"; missing names fit."""
    for x, y in zip(a, b):
        if len(x) == 1 or len(y) == 1:
            if x[0] != y[0]:
                return False
        elif x != y:
            return False
    return True


def matches_person(raw: str, query: PersonQuery) -> bool:
    """Does the raw BibTeX name ``raw`` denote the person of ``query``?

    "Bubeck, S.", "S. Bubeck" and "Sébastien Bubeck" all find "Bubeck, Sébastien";
    "Samuel Bubeck" does not. A one-word query is a substring of the shown name.
    """
    name = parse_name(raw)
    if not query.last:
        return query.text in fold(name.display)
    if query.last not in (_family(name), fold(name.last)):
        return False
    return _given_compatible(query.firsts, _given_names(name.first))
