"""People in author lists: every real format, compared order-free and swap-tolerant."""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import NamedTuple
from collections.abc import Sequence

from pubcli.schema.names import split_authors, split_top_level
from .normalise import _OSA, _latex_for_matching, _normalise, normalise, repair_mojibake

# ---------------------------------------------------------------- authors
def _undamaged(raw: str) -> str:
    """A name as written before a UTF-8 -> Latin-1 mix-up ("kã ¶ stler" -> "köstler"),
    without the letterless debris such a mix-up leaves ("hammerâ ? ¦")."""
    if "\u00c3" in raw or "\u00e3" in raw:
        raw = repair_mojibake(raw)
    words: list[str] = []
    for w in raw.split():
        if any(c.isalnum() for c in w):
            words.append(w)
        elif words and words[-1][-1] in "\u00e2\u00c2" and len(words[-1]) > 1:
            words[-1] = words[-1][:-1]  # the lead byte of the debris: "hammerâ ? ¦"
    return " ".join(words)


def _is_initials(word: str) -> bool:
    """"J", "JA", "J.A.", "J.-P.", "É": one to four capital letters."""
    letters = word.replace(".", "").replace("-", "").replace(" ", "")
    return 0 < len(letters) <= 4 and letters.isalpha() and letters.isupper()

#: An author list cut short: "et al.", "and others", an ellipsis (also as the debris
#: a UTF-8 ellipsis leaves when read as Latin-1: "â€¦", "â ? ¦").
CUT_LIST_RE = re.compile(r"(?:\bet\.?\s*al\b\.?|\band\s+others|\u2026|\.\.\.|&\s*hellip\s*;?|"
                         r"\u00e2\s*(?:\u20ac|\?)\s*(?:\u00a6|\?))\s*[,;.]?\s*$", re.I)
_ETAL_RE = re.compile(r"[,;\s]*\b(?:et\s*al|and\s+others)\b\.?\s*$", re.I)


def _given_first(piece: str) -> bool:
    """"M. Kearns", "J. R. Smith": initials, then a family name (a BibTeX "Last, First"
    never starts its family name with an initial)."""
    words = piece.split()
    return len(words) >= 2 and _is_initials(words[0]) and "." in words[0] \
        and not _is_initials(words[-1])


def _full_name(piece: str) -> bool:
    """"Yishay Mansour", "Dana M. Ron": two to four words, the first and last of them
    written out (not "Smith J", not "J. Smith" alone, which :func:`_given_first` reads)."""
    words = piece.split()
    return 2 <= len(words) <= 4 and not _is_initials(words[0]) and not _is_initials(words[-1]) \
        and words[0][:1].isupper() and words[-1][:1].isupper()


def _looks_vancouver(piece: str) -> bool:
    words = piece.split()
    return len(words) >= 2 and _is_initials(words[-1]) and not _is_initials(words[0])


def _split(value: str, sep: str) -> list[str]:
    """:func:`pubcli.schema.names.split_top_level` without its character loop when there is
    no brace to respect (nearly every author list)."""
    if "{" in value:
        return split_top_level(value, sep)
    return [p.strip() for p in value.split(sep)]


_CITATION_AND_RE = re.compile(r"\s*,?\s*(?:&|\band\b)\s+(?=\S)")
_NOT_PEOPLE = ("others", "et al", "et al.")
_JUNK_GIVEN = frozenset({"null", "none", "nan", "na", "n a", "unknown"})


def person_strings(value: str | None) -> list[str]:
    """One string per person, from BibTeX ``A and B`` or citation-style lists
    (``Smith J; Jones AB``, ``Smith J, Jones AB``, ``Smith, J., Jones, A.``,
    ``Aha, D. W., Kibler, D., & Albert, M. K.``, ``a, b, and c``)."""
    if not value:
        return []
    if "&" in value:
        value = html.unescape(value)
    value = value.strip()
    low = value.lower()
    if "al" in low or "other" in low:  # what _ETAL_RE needs (a scan of every position)
        value = _ETAL_RE.sub("", value)
    if "&" in value or ", and " in value or ",and " in value:
        # citation style: the conjunction before the last person is one more comma
        value = _CITATION_AND_RE.sub(", ", value) if ";" not in value else \
            _CITATION_AND_RE.sub("; ", value)
    parts = [p for p in split_authors(value) if len(p) > 7 or p.lower() not in _NOT_PEOPLE]
    if len(parts) == 1:
        v = parts[0]
        if ";" in v:
            parts = [p for p in _split(v, ";") if p]
        elif "," in v:
            pieces = [p for p in _split(v, ",") if p]
            if len(pieces) >= 2:
                if all(_looks_vancouver(p) for p in pieces):
                    parts = pieces
                elif (len(pieces) >= 4 and len(pieces) % 2 == 0
                      and all(_is_initials(p) or len(p.replace(".", "")) <= 2
                              for p in pieces[1::2])):
                    parts = [f"{pieces[i]}, {pieces[i + 1]}" for i in range(0, len(pieces), 2)]
                elif len(pieces) >= 3 and all(len(p.split()) >= 2 for p in pieces):
                    parts = pieces
    if any("," in p for p in parts):
        # "M. Kearns, Y. Mansour and D. Ron": people written given name first, the
        # commas between them (not "Last, First")
        # (also "Smith JA, Jones B and Ron D", and "Michael Kearns, Yishay Mansour and
        # Dana Ron": full names, given name first, when a person of the list is written
        # without a comma)
        given_first_list = any("," not in p for p in parts)
        out = []
        for p in parts:
            if "," not in p:
                out.append(p)
                continue
            head = p.split(",", 1)[0]
            if len(head.split()) == 1 and head.count("{") == head.count("}"):
                # "Dubois, Ana": a family name of one word before the comma is no
                # person written given name first (each test below reads two words)
                out.append(p)
                continue
            pieces = [x for x in _split(p, ",") if x]
            split = len(pieces) >= 2 and (
                all(map(_given_first, pieces)) or all(map(_looks_vancouver, pieces))
                or (given_first_list and all(map(_full_name, pieces))))
            out += pieces if split else [p]
        parts = out
    return parts


def _last_tokens(text: str) -> tuple[str, ...]:
    """Last-name words, folded; "ae"/"oe"/"ue" read as the umlaut they often stand for."""
    toks = normalise(text).split()  # cached: family names repeat
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


class Person(NamedTuple):
    """One parsed name (a tuple: as small, and as hashable)."""

    last: tuple[str, ...]     # the family name's tokens, "" parts dropped
    initial: str              # the first given name's initial, "" when none
    given: tuple[str, ...]    # the given names' words of two letters or more


_NOBODY = Person((), "", ())


def _given_words(text: str) -> tuple[str, ...]:
    words = tuple(w for w in normalise(text).split() if len(w) > 1)
    return () if " ".join(words) in _JUNK_GIVEN else words


@lru_cache(maxsize=131072)
def parse_person(raw: str) -> Person:
    """(last-name tokens, first initial, given-name words) for one person written
    "Last, First", "von Last, Jr, First", "First von Last", "Last FM" (Vancouver)
    or "F. M. Last". A given name "null" (a broken export) counts as none."""
    raw = raw.strip(" \t\n,;")
    if raw and not raw.isascii():
        raw = _undamaged(raw)
    if not raw:
        return _NOBODY
    if raw[0] == "{" and raw[-1] == "}" and raw.count("{") == 1:
        return Person(tuple(_normalise(raw).split()), "", ())  # a corporate author: "{World Bank}"
    if "\\" in raw:
        raw = _latex_for_matching(raw)
    if "{" in raw:
        raw = raw.replace("{", "").replace("}", "")
    if "," in raw:
        parts = raw.split(",")
        last = parts[0].strip()
        if not last:
            return _NOBODY
        given = _given_words(parts[-1]) if len(parts) > 1 else ()
        first = parts[-1] if len(parts) > 1 and (given or _is_initials(parts[-1].strip())) \
            else ""
        return Person(_last_tokens(_drop_von(last)), _initial(first), given)
    words = raw.replace("~", " ").split()
    if not words:  # a name that is only a macro (tugboat.bib's "\Thanh{}")
        return _NOBODY
    if len(words) == 1:
        return Person(_last_tokens(words[0]), "", ())
    if _is_initials(words[-1]) and not _is_initials(words[0]):
        # Vancouver "van der Berg JA"
        return Person(_last_tokens(_drop_von(" ".join(words[:-1]))), _initial(words[-1]), ())
    i = len(words) - 1
    while i > 1 and words[i - 1][:1].islower():
        i -= 1
    return Person(_last_tokens(_drop_von(" ".join(words[i:]))), _initial(words[0]),
                  _given_words(" ".join(words[:i])))


def parse_authors(value: str | None) -> list[Person]:
    """Every person of an author field as (last-name tokens, first initial, given words)."""
    return list(_parse_authors(value or ""))


@lru_cache(maxsize=32768)
def _parse_authors(value: str) -> tuple[Person, ...]:
    out = []
    for p in person_strings(value):
        person = parse_person(p)
        if person.last and " ".join(person.last) not in _NO_ONE \
                and (len(p) > 20 or normalise(p) not in _NO_ONE):
            out.append(person)
    return tuple(out)


#: What a list writes for no author ("Anonymous", "[Anon.]", "N. N.", "Unknown"): it
#: says nothing about who wrote the work, and two such lists do not share a person.
_NO_ONE = frozenset({"anonymous", "anon", "anonym", "anonyme", "anonimo", "anonimous",
                     "nn", "n n", "unknown", "unknown author", "no author", "no authors",
                     "no authors listed",
                     "no author listed", "not available", "author unknown"})


def _close_name(x: str, y: str) -> bool:
    """One typo in a long surname ("jagadish"/"jagdish"), two in a very long one."""
    limit = 2 if min(len(x), len(y)) >= 10 else 1
    if len(x) < 5 or len(y) < 5 or abs(len(x) - len(y)) > limit or x[0] != y[0]:
        return False
    return _OSA.distance(x, y, score_cutoff=limit) <= limit


def person_match(a: Person, b: Person) -> bool:
    """Are two parsed names the same person? Initials must agree; the family name
    matches whole, by a shared word ("Nakase-Richardson"/"Richardson"), with one
    typo, or with given and family name swapped ("Si Hyun, Kang" / "Kang, S. H.")."""
    la, ia, ga = a
    lb, ib, gb = b
    if ia == ib or not ia or not ib:
        if la == lb:
            return True
        if len(la) <= 3 and len(lb) <= 3:
            if set(la) & set(lb) and (la[-1] in lb or lb[-1] in la):
                return True
            if ia and ib and len(la) == len(lb) == 1 and _close_name(la[0], lb[0]):
                return True
    # swapped: one side's family name is the other's given name
    if gb and set(la) & set(gb) and (not ia or not lb or lb[0][:1] == ia):
        return True
    return bool(ga and set(lb) & set(ga) and (not ib or not la or la[0][:1] == ib))


_person_match = person_match


def _author_index(people: Sequence[Person]) -> dict[str, list[int]]:
    by_token: dict[str, list[int]] = {}
    for j, person in enumerate(people):
        for tok in person.last + person.given:
            lst = by_token.setdefault(tok, [])
            if not lst or lst[-1] != j:
                lst.append(j)
    return by_token


def _typo_index(people: Sequence[Person]) -> dict[tuple[str, str], list[tuple[int, str]]]:
    """The people a family name with one typo may be (:func:`_close_name`: a family
    name of one word, five letters or more), by (initial, the name's first letter), in
    list order."""
    out: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for j, person in enumerate(people):
        last = person.last
        if len(last) == 1 and len(last[0]) >= 5:
            out.setdefault((person.initial, last[0][0]), []).append((j, last[0]))
    return out


def shared_authors(a: Sequence[Person], b: Sequence[Person], b_index: dict[str, list[int]] | None = None
                   ) -> int:
    """How many people of ``a`` also appear in ``b`` (each matched once). ``b_index``:
    :func:`_author_index` of ``b``, when kept."""
    if not a or not b:
        return 0
    if a == b:
        return len(a)  # (each person finds itself first: no need to look)
    by_token = b_index if b_index is not None else _author_index(b)
    get = by_token.get
    match = _person_match
    used: set[int] = set()
    n = 0
    # (:func:`_typo_index` of ``b``, made when a name is not found)
    b_typos: dict[tuple[str, str], list[tuple[int, str]]] | None = None
    for person in a:
        last = person.last
        for tok in last + person.given:
            hit = False
            for j in get(tok, ()):
                if j not in used and match(person, b[j]):
                    used.add(j)
                    n += 1
                    hit = True
                    break
            if hit:
                break
        else:
            # one typo in the family name (_close_name: both of five letters or more,
            # the same first letter)
            if len(last) == 1 and person.initial and len(last[0]) >= 5:
                if b_typos is None:
                    b_typos = _typo_index(b)
                name = last[0]
                for j, other in b_typos.get((person.initial, name[0]), ()):
                    if j not in used and _close_name(name, other):
                        used.add(j)
                        n += 1
                        break
    return n




def _crossed(x: Person, y: Person) -> bool:
    """Could ``x`` and ``y`` be one person with given and family name swapped, both
    known by their initials only ("Z. Li" / "L. Zhe": Li Zhe)? Each one's initial is
    the other's family name's first letter."""
    return bool(x.initial and y.initial and x.last and y.last) and x.last != y.last \
        and x.initial == y.last[0][:1] and y.initial == x.last[0][:1]


#: A whole list read swapped must match at least this many people: two letters per
#: person are weak evidence alone ("T. Hannu" / "H. Toivonen" could be anyone).
SWAPPED_LIST_MIN = 2


def swapped_shared(a: Sequence[Person], b: Sequence[Person]) -> int:
    """How many people of ``a`` appear in ``b`` when one of the lists writes every name
    given name as family name (a citation index's habit with East Asian and other
    names: "S. Sunita, T. Shiby, A. Rakesh" for Sunita Sarawagi, Shiby Thomas,
    Rakesh Agrawal), in the same order, the first first; 0 below
    :data:`SWAPPED_LIST_MIN`."""
    if min(len(a), len(b)) < SWAPPED_LIST_MIN or not _crossed(a[0], b[0]):
        return 0  # (read swapped, the first author stays first)
    n, j = 0, 0
    for person in a:  # in order: a list read swapped keeps its order
        for k in range(j, len(b)):
            if _crossed(person, b[k]):
                n, j = n + 1, k + 1
                break
    return n if n >= SWAPPED_LIST_MIN else 0


#: Words that name an organisation or a publication, never a person: an author list
#: holding one ("acms anthology and p edition", "u hamburg and ... ", "sap business")
#: is a citation index's misreading of the page, not the work's authors.
_NOT_A_NAME = frozenset(
    "university univ universitat universite universidad dept department institute institut "
    "laboratory laboratories lab labs technology technologies research center centre "
    "corporation corp inc ltd gmbh company business anthology edition proceedings overview "
    "proposal standard report press publisher publishers college school faculty".split())


def names_nobody(people: Sequence[Person]) -> bool:
    """Does an author list hold a "person" whose family name is an organisation's or a
    publication's word (:data:`_NOT_A_NAME`)? Then it says nothing about who wrote
    the work."""
    for p in people:
        for t in p.last:
            if t in _NOT_A_NAME:
                return True
    return False
