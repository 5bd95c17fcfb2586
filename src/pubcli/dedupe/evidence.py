"""What two records say about each other: a typed comparison level per field.

:func:`compare` turns a pair of :class:`~.features.Features` into a
:class:`Comparison`: one level per :class:`Field` (or :data:`MISSING`), the values
shown for each, and the :class:`~.vetoes.Veto` values for what is decisive by
definition (:mod:`.vetoes`). How much each level weighs is not decided here (see
:mod:`.weights`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .features import Features
from .identifiers import PREPRINT_DOI
from .normalise import _unmatched_words, title_score, title_word_replaced
from .people import (SWAPPED_LIST_MIN, Person, _crossed, names_nobody, person_match,
                     shared_authors, swapped_shared)
from .venues import venue_relation
from .levels import FIELDS, MISSING, Agree, Authors, Field, Kind, Pages, Title, Venue, Year
from .vetoes import Veto, vetoes_of

# (the levels' one home is .levels; the T_ names are its title levels)
T_EXACT, T_COMMON, T_SHORT, T_95, T_88, T_MAIN, T_WORD, T_70, T_70_WORDS, T_LOW = Title


class Comparison:
    """One pair compared: a level per field (:data:`MISSING` when a side lacks it),
    the vetoes, and (worked out when first asked) what each side said."""

    __slots__ = ("levels", "vetoes", "title_score", "title_key", "_shown", "_describe")

    def __init__(self, levels: tuple[int, ...], shown: tuple[str, ...] | Callable[[], tuple[str, ...]],
                 vetoes: tuple[Veto, ...], title_score: float, title_key: str = "") -> None:
        self.levels = levels
        self.vetoes = vetoes
        self.title_score = title_score
        #: The normalised title both share exactly ("" otherwise), for term frequency.
        self.title_key = title_key
        if callable(shown):
            self._shown: tuple[str, ...] | None = None
            self._describe: Callable[[], tuple[str, ...]] | None = shown
        else:
            self._shown, self._describe = shown, None

    @property
    def shown(self) -> tuple[str, ...]:
        """What each side said, per field ("97", "3 of 4", "1443/1444")."""
        if self._shown is None:
            assert self._describe is not None
            self._shown, self._describe = self._describe(), None
        return self._shown

    def level(self, f: Field) -> int:
        return self.levels[FIELDS.index(f)]


_TYPE_FAMILY = {"article": "article", "inproceedings": "paper", "conference": "paper",
                "book": "book", "mvbook": "book", "incollection": "chapter", "inbook": "chapter",
                "phdthesis": "thesis", "mastersthesis": "thesis", "thesis": "thesis",
                "proceedings": "proceedings", "collection": "book"}
#: Types any work can be written as on the way (preprint, report, web page).
_LOOSE_TYPES = frozenset({"misc", "unpublished", "online", "electronic", "www", "preprint",
                          "techreport", "report", "manual", "booklet", ""})


_BOOK_DOI_RE = re.compile(r"/97[89]-?\d")  # a DOI built on an ISBN: a book's
_PART_TYPES = frozenset({"incollection", "inbook", "inproceedings", "chapter"})


# ---------------------------------------------------------------- one pair
def _title_level(a: Features, b: Features, series: Callable[[Features], bool] | None,
                 words: bool = True) -> tuple[int, float, str]:
    """The title level, its score and what is shown. With ``words=False`` the
    word-by-word test (:func:`word_replaced`, the costly part) is left out: the
    level is then the one a pair gets when no word was replaced, and a pair scoring
    88+ (or 70-88) may in truth be :data:`T_WORD` (:data:`T_70_WORDS`)."""
    if not (a.title and b.title):
        return MISSING, 0.0, ""
    if a.title == b.title:
        return T_EXACT, 100.0, "100"
    score = title_score(a.title, b.title)
    if score >= 100:
        return T_EXACT, score, "100 (words reordered)"
    if score >= 88 and words:
        replaced = _replaced(a, b)
        if replaced:  # a word replaced ("adults" / "children"), not only added
            return T_WORD, score, f"{score:.0f}, {replaced[0]} / {replaced[1]}"
    if score >= 95:
        return T_95, score, f"{score:.0f}"
    short, long_ = (a, b) if len(a.title) <= len(b.title) else (b, a)
    if len(short.content_tokens) >= 3 and len(short.title) >= 20 \
            and not (series is not None and series(short)):
        if long_.main and not short.main and title_score(short.title, long_.main) >= 95:
            return T_MAIN, score, "without the subtitle"
        if len(long_.title) > len(short.title) + 8 and (
                long_.title.startswith(short.title + " ") or long_.title.endswith(" " + short.title)):
            # words only added before or after: "X ( experience paper )", "tutorial : X"
            return T_MAIN, score, "the start or end of the other"
        if len(short.content_tokens) >= 5 and len(long_.title) > len(short.title) + 8:
            if short.title in long_.title:
                return T_MAIN, score, "inside the other"
            if score >= 70 and _partial(short.title, long_.title) >= 95:
                return T_MAIN, score, "nearly inside the other"
    if score < 95 and (short.title in long_.segments or long_.title in short.segments
                       or set(short.segments) & set(long_.segments)):
        return T_MAIN, score, "a part of the other"  # "l. wong . comprehension syntax"
    if score >= 88:
        return T_88, score, f"{score:.0f}"
    if score >= 70:
        replaced = _replaced(a, b) if words else None
        if replaced:  # "... storage servers" / "... multimedia servers": another paper
            return T_70_WORDS, score, f"{score:.0f}, {replaced[0]} / {replaced[1]}"
        return T_70, score, f"{score:.0f}"  # words only added: debris, a subtitle
    return T_LOW, score, f"{score:.0f}"


#: Abbreviations of "proceedings", "conference", "international" a citation leaks into
#: a title ("fast algorithms for mining association rules proc 1994"); no title word.
_VENUE_DEBRIS = frozenset({"proc", "procs", "conf", "intl", "hellip"})
_ORDINAL_RE = re.compile(r"\d+(?:st|nd|rd|th)$")


#: A name runs into a title at its start or end ("k shim spirit : ...", "... yang
#: optimizing queries"): this many words from either end.
_EDGE = 3


def _debris(word: str, a: Features, b: Features, tokens: Sequence[str]) -> bool:
    """Is a word one title (``tokens``) has and the other lacks the debris of a
    citation run into the title: the family name or initial of an author of either
    record near the title's start or end ("k shim spirit : ..." where Shim is an
    author; not "exercise in parkinson disease" by a Dr Parkinson), either record's
    year, an ordinal ("25th"), "proc"?"""
    if word in _VENUE_DEBRIS:
        return True
    if word[0].isdigit():
        if word.isdigit():
            return len(word) == 4 and int(word) in (a.year, b.year)
        return _ORDINAL_RE.match(word) is not None  # "25th" (conference): "proc 25th vldb"
    if word not in tokens[:_EDGE] and word not in tokens[-_EDGE:]:
        return False
    for people in (a.authors, b.authors):
        for p in people:
            if len(word) == 1:
                if word == p.initial:
                    return True
            elif len(word) >= 3 and word in p.last:
                return True
    return False


def _replaced(a: Features, b: Features) -> tuple[str, str] | None:
    """A content word of each title the other lacks (:func:`word_replaced`), the
    debris of a citation run into a title (:func:`_debris`) not counted: a word
    only added is no word replaced."""
    ta, tb = a.tokens, b.tokens
    replaced = title_word_replaced(a.title, b.title)  # (word_replaced(ta, tb))
    if replaced is None or not (_debris(replaced[0], a, b, ta)
                                or _debris(replaced[1], a, b, tb)):
        return replaced
    only_a, only_b = _unmatched_words(ta, tb)
    if any(len(w) == 1 for w in only_a) and any(len(w) == 1 for w in only_b):
        return replaced  # "hepatitis b" / "hepatitis c": a letter for a letter
    only_a = [w for w in only_a if not _debris(w, a, b, ta)]
    only_b = [w for w in only_b if not _debris(w, a, b, tb)]
    return (only_a[0], only_b[0]) if only_a and only_b else None


def _partial(short: str, long_: str) -> float:
    """How well ``short`` matches its best place in ``long_`` (a title cut short or
    with text around it: "k shim fast similarity search ...")."""
    from rapidfuzz import fuzz

    return fuzz.partial_ratio(short, long_)


def _author_level(a: Features, b: Features) -> tuple[int, str]:
    au_a, au_b = a.authors, b.authors
    if not (au_a and au_b):
        return MISSING, ""
    if len(au_a) > len(au_b) or (len(au_a) == len(au_b) and a.index > b.index):
        a, b, au_a, au_b = b, a, au_b, au_a
    shared = shared_authors(au_a, au_b, b.author_index)
    smaller = len(au_a)
    shown = f"{shared} of {smaller}"
    first: Callable[[Person, Person], bool] = person_match
    if shared < smaller and smaller >= SWAPPED_LIST_MIN:
        swapped = swapped_shared(au_a, au_b)
        if swapped > shared:  # "L. Zhe, A. R. Kenneth" / "Z. Li, K. Ross"
            shared, first = swapped, _crossed
            shown = f"{shared} of {smaller}, names read swapped"
    if shared >= smaller:
        if smaller > 1 and not first(au_a[0], au_b[0]):
            return Authors.REORDERED, shown + ", another first author"
        return (Authors.ALL_3 if smaller >= 3 else Authors.ALL), shown
    if 2 * shared >= smaller:
        return (Authors.MOST_3 if shared >= 3 else Authors.MOST), shown
    if shared:
        return Authors.SOME, shown
    if smaller == 1 and (a.authors_cut or b.authors_cut):
        return MISSING, shown + ", a list cut short"  # "J Shanmugasundaram…": who else?
    if not shared and (names_nobody(au_a) or names_nobody(au_b)):
        return MISSING, shown + ", a list naming no person"  # "acms anthology, p edition"
    if smaller == 1 and any(_crossed(au_a[0], p) for p in au_b):
        return MISSING, shown + ", or the name read swapped"  # "T. Hannu" / "H. Toivonen"
    return (Authors.NONE_OF_1 if smaller == 1 else Authors.NONE), shown


def _venue_level(va: str, vb: str, volume: int) -> int:
    """Venue and volume as one field (they say one thing: which issue)."""
    rel = venue_relation(va, vb) if va and vb else ""
    if volume == Agree.DIFFERENT:  # another journal's volume: published twice
        return Venue.OTHER_VENUE_AND_VOLUME if rel == "different" else Venue.OTHER_VOLUME
    if rel == "different":
        return Venue.DIFFERENT
    if volume == Agree.SAME:
        return Venue.SAME_VOLUME
    if rel == "same":
        return Venue.SAME_VENUE
    if rel == "unclear":
        return Venue.UNCLEAR
    return MISSING


def _same_or_not(x: str, y: str) -> int:
    return MISSING if not (x and y) else (Agree.SAME if x == y else Agree.DIFFERENT)


def _title(a: Features, b: Features, series: Callable[[Features], bool] | None,
           common: Callable[[Features], bool] | None, words: bool = True
           ) -> tuple[int, float, str]:
    t_level, t_score, t_shown = _title_level(a, b, series, words)
    if t_level in (T_EXACT, T_95, T_88):
        if common is not None and (common(a) or common(b)):
            t_level = T_COMMON  # "Editor's notes" / "Editors' notes": one common title
        elif len(a.content_tokens) <= 2 or len(b.content_tokens) <= 2:
            t_level = T_SHORT  # "The third manifesto"
    return t_level, t_score, t_shown


def _year_shown(ya: int | None, yb: int | None) -> str:
    """The years compared, as shown ("2001", "2001/2002"); "" when a side has none."""
    if not (ya and yb):
        return ""
    return str(ya) if ya == yb else f"{min(ya, yb)}/{max(ya, yb)}"


def cheap_row(f: Features) -> tuple:
    """What :func:`_cheap_of` compares of one record, read once: (year, type, issue,
    page range, DOI, arXiv id, ISBN, PubMed id)."""
    row = f.cheap_row
    if row is None:
        _, iss, pages, _ = f.biblio
        doi, arxiv, isbn = f._identifiers()
        row = f.cheap_row = (f.year, f.record.type, iss, pages, doi, arxiv, isbn, f.pmid)
    return row


def _cheap_of(ra: tuple, rb: tuple) -> tuple[int, ...]:
    """(year, number, pages, DOI, arXiv, ISBN, type, PMID) levels of two
    :func:`cheap_row` rows: the fields that cost little."""
    ya, ta, iss_a, pages_a, doi_a, arx_a, isbn_a, pmid_a = ra
    yb, tb, iss_b, pages_b, doi_b, arx_b, isbn_b, pmid_b = rb
    y_level: int
    if ya and yb:
        d = ya - yb if ya >= yb else yb - ya
        if d == 1 and (ta in _LOOSE_TYPES or tb in _LOOSE_TYPES):
            y_level = Year.ONE_APART_PREPRINT  # a preprint and its published version, a year on
        else:
            y_level = (Year.SAME, Year.ONE_APART, Year.TWO_APART)[d] if d <= 2 else Year.FURTHER
    else:
        y_level = MISSING
    if iss_a and iss_b:
        num_level = Agree.SAME if iss_a == iss_b else (
            Agree.DIFFERENT if iss_a.isdigit() and iss_b.isdigit() else MISSING)
    else:
        num_level = MISSING
    p_level: int
    if pages_a and pages_b:
        # one page, not a range, is a place several items share (abstracts, letters
        # on a supplement's page): it weighs as a first page in common
        p_level = (Pages.SAME if pages_a[0] != pages_a[1] else Pages.FIRST) \
            if pages_a == pages_b else \
            (Pages.FIRST if pages_a[0] == pages_b[0] else Pages.DIFFERENT)
    else:
        p_level = MISSING
    doi_level: int
    if not (doi_a and doi_b):
        doi_level = MISSING
    elif doi_a != doi_b:
        # a preprint server's DOI says nothing against a publisher's
        doi_level = MISSING if doi_a.startswith(PREPRINT_DOI) != doi_b.startswith(PREPRINT_DOI) \
            else Agree.DIFFERENT
    elif ta in _PART_TYPES and tb in _PART_TYPES and _BOOK_DOI_RE.search(doi_a):
        doi_level = MISSING  # two chapters citing their book's DOI: it names neither
    else:
        doi_level = Agree.SAME
    k_level: int
    if ta == tb:
        k_level = Kind.SAME
    elif ta in _LOOSE_TYPES or tb in _LOOSE_TYPES:
        k_level = MISSING  # "misc": the source did not say what the work is
    else:
        fam_a, fam_b = _TYPE_FAMILY.get(ta, ta), _TYPE_FAMILY.get(tb, tb)
        k_level = Kind.SAME if fam_a == fam_b else (
            Kind.COMPATIBLE if fam_a == "thesis" or fam_b == "thesis" else Kind.DIFFERENT)
    return (y_level, num_level, p_level, doi_level,
            MISSING if not (arx_a and arx_b) else (Agree.SAME if arx_a == arx_b else Agree.DIFFERENT),
            MISSING if not (isbn_a and isbn_b) else (Agree.SAME if isbn_a == isbn_b
                                                     else Agree.DIFFERENT),
            k_level,
            MISSING if not (pmid_a and pmid_b) else (Agree.SAME if pmid_a == pmid_b
                                                     else Agree.DIFFERENT))


#: The fields :func:`cheap_levels` compares, in its order.
CHEAP_FIELDS: tuple[Field, ...] = (Field.YEAR, Field.NUMBER, Field.PAGES, Field.DOI,
                                   Field.ARXIV, Field.ISBN, Field.TYPE, Field.PMID)


def cheap_levels(a: Features, b: Features) -> tuple[int, ...]:
    """The levels of :data:`CHEAP_FIELDS` (year, issue, pages, identifiers, type): the
    fields that cost little, enough with the title to rule most candidate pairs out
    before the costly comparisons (authors, venue)."""
    return _cheap_of(cheap_row(a), cheap_row(b))


def quick_title(a: Features, b: Features, *,
                series: Callable[[Features], bool] | None = None,
                common: Callable[[Features], bool] | None = None
                ) -> tuple[tuple[int, float, str], int, str]:
    """The title compared without the word-by-word test ((level, score, shown)), the
    other level the pair may have in truth (:data:`MISSING` when none: a pair scoring
    88+ may be :data:`T_WORD`, 70-88 :data:`T_70_WORDS`), and the shared title for
    term frequency."""
    title = _title(a, b, series, common, words=False)
    t_level, t_score = title[0], title[1]
    alt = MISSING
    if t_level != MISSING and t_score < 100 and a.title != b.title:
        alt = T_WORD if t_score >= 88 else (T_70_WORDS if t_score >= 70 else MISSING)
    key = a.title if t_level in (T_EXACT, T_COMMON, T_SHORT) and a.title == b.title else ""
    return title, alt, key


def _with_words(a: Features, b: Features, title: tuple[int, float, str], alt: int
                ) -> tuple[int, float, str]:
    """The title level :func:`_title` gives, from :func:`quick_title`'s (``title``,
    made without the word-by-word test, and ``alt``): a pair scoring 88+ is
    :data:`T_WORD` when a word was replaced (tested first, whatever follows), one
    scoring 70-88 left at :data:`T_70` is :data:`T_70_WORDS`; any other is as quick."""
    if alt == MISSING or (alt == T_70_WORDS and title[0] != T_70):
        return title
    replaced = _replaced(a, b)
    if not replaced:
        return title
    return alt, title[1], f"{title[1]:.0f}, {replaced[0]} / {replaced[1]}"


def compare(a: Features, b: Features, *, series: Callable[[Features], bool] | None = None,
            common: Callable[[Features], bool] | None = None,
            done: Sequence | None = None) -> Comparison:
    """Compare two records field by field. ``series`` may flag a title that starts
    several different titles ("X: part A", "X: part B"), which then cannot match
    "X: ..." by dropping the subtitle; ``common`` a title that says little (several
    works of the library share it, or it is generic or short). ``done`` holds what
    the cheap test worked out for this pair (the matcher's ruled-out test), with the same
    ``series`` and ``common``: (the quick title, :func:`cheap_levels`, the other title
    level, :func:`quick_title`'s); only the word-by-word test is then made, where it
    may change the level."""
    t_level, t_score, t_shown = _with_words(a, b, done[0], done[2]) if done \
        else _title(a, b, series, common)
    a_level, a_shown = _author_level(a, b)
    cheap = done[1] if done else _cheap_of(cheap_row(a), cheap_row(b))
    vol_a, _, _, ed_a = a.biblio
    vol_b, _, _, ed_b = b.biblio
    v_level = _venue_level(a.venue, b.venue, _same_or_not(vol_a, vol_b))
    levels = (t_level, a_level, cheap[0], v_level) + tuple(cheap[1:])
    vetoes = vetoes_of(a, b, ed_a, ed_b, vol_a, vol_b)
    return Comparison(levels, lambda: _shown(a, b, t_shown, a_shown,
                                             _year_shown(a.year, b.year)), vetoes, t_score,
                      a.title if t_level in (T_EXACT, T_COMMON, T_SHORT) and a.title == b.title
                      else "")


def _shown(a: Features, b: Features, t_shown: str, a_shown: str, y_shown: str
           ) -> tuple[str, ...]:
    doi_a, arx_a, isbn_a = a._identifiers()
    doi_b, arx_b, isbn_b = b._identifiers()
    f = a.record.fields, b.record.fields

    def both(name: str) -> str:
        x, y = f[0].get(name, "").strip(), f[1].get(name, "").strip()
        return x if x == y else f"{x} / {y}"

    venue = both("journal") if f[0].get("journal") and f[1].get("journal") else \
        (f"{a.venue} / {b.venue}" if a.venue != b.venue else a.venue)
    if f[0].get("volume") or f[1].get("volume"):
        venue = (venue + ", " if venue.strip(" /") else "") + "volume " + both("volume")
    return (t_shown, a_shown, y_shown, venue, both("number"), both("pages"),
            doi_a if doi_a == doi_b else f"{doi_a} / {doi_b}",
            arx_a if arx_a == arx_b else f"{arx_a} / {arx_b}",
            isbn_a if isbn_a == isbn_b else f"{isbn_a} / {isbn_b}",
            a.record.type if a.record.type == b.record.type
            else f"{a.record.type} / {b.record.type}",
            a.pmid if a.pmid == b.pmid else f"{a.pmid} / {b.pmid}")
