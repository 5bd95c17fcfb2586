"""Comparison levels: one IntEnum per compared field, strongest agreement first.

A level is a member (``Title.EXACT``, ``Authors.NONE_OF_1``), never a bare number:
the priors and caps of :mod:`.weights` are keyed by member, so inserting a level
cannot silently re-weigh every other. :data:`MISSING` stands for "a side lacks
the value". The names shown to a reader (``--weights``, ``--explain``) are
:data:`LABELS`.
"""

from __future__ import annotations

from enum import Enum, IntEnum

MISSING = -1


class Field(str, Enum):
    """The compared fields, in the order of a comparison vector."""

    TITLE = "title"
    AUTHORS = "authors"
    YEAR = "year"
    VENUE = "venue"     # with the volume: both say which issue
    NUMBER = "number"
    PAGES = "pages"
    DOI = "doi"
    ARXIV = "arxiv"
    ISBN = "isbn"
    TYPE = "type"
    PMID = "pmid"


FIELDS: tuple[Field, ...] = tuple(Field)


class Title(IntEnum):
    EXACT = 0
    COMMON = 1      # exact, but a title several works share, or a generic one
    SHORT = 2       # exact, but of two content words or fewer
    P95 = 3
    P88 = 4
    MAIN = 5        # without the subtitle, or the debris around it
    WORD = 6        # a content word replaced by another
    P70 = 7
    P70_WORDS = 8   # 70+ with words replaced
    LOW = 9


class Authors(IntEnum):
    ALL_3 = 0       # all of the shorter list, three or more
    ALL = 1
    REORDERED = 2   # all, but another first author
    MOST_3 = 3
    MOST = 4
    SOME = 5
    NONE = 6
    NONE_OF_1 = 7   # the shorter list is one person, not in the other


class Year(IntEnum):
    SAME = 0
    ONE_APART = 1
    ONE_APART_PREPRINT = 2
    TWO_APART = 3
    FURTHER = 4


class Venue(IntEnum):
    SAME_VOLUME = 0
    SAME_VENUE = 1
    UNCLEAR = 2
    OTHER_VOLUME = 3
    OTHER_VENUE_AND_VOLUME = 4
    DIFFERENT = 5


class Pages(IntEnum):
    SAME = 0
    FIRST = 1       # the same first page (or the same single page)
    DIFFERENT = 2


class Agree(IntEnum):
    """Fields that agree or not: issue number and the identifiers."""

    SAME = 0
    DIFFERENT = 1


class Kind(IntEnum):
    """The entry types."""

    SAME = 0
    COMPATIBLE = 1
    DIFFERENT = 2


#: Each field's levels.
LEVEL_OF: dict[Field, type[IntEnum]] = {
    Field.TITLE: Title, Field.AUTHORS: Authors, Field.YEAR: Year, Field.VENUE: Venue,
    Field.NUMBER: Agree, Field.PAGES: Pages, Field.DOI: Agree, Field.ARXIV: Agree,
    Field.ISBN: Agree, Field.TYPE: Kind, Field.PMID: Agree,
}

#: What a reader sees of each level, per kind of level in member order (members of
#: two kinds compare equal as numbers: keyed by kind, never by member alone).
LABELS: dict[type[IntEnum], tuple[str, ...]] = {
    Title: ("exact", "exact, common", "exact, short", "95+", "88+", "main title",
            "a word replaced", "70+", "70+, words replaced", "different"),
    Authors: ("all, 3+", "all", "all, reordered", "most, 3+", "most", "some", "none",
              "none of 1"),
    Year: ("same", "1 apart", "1 apart, a preprint", "2 apart", "further"),
    Venue: ("same volume", "same venue", "unclear", "other volume", "other venue and volume",
            "different"),
    Pages: ("same", "same first page", "different"),
    Agree: ("same", "different"),
    Kind: ("same", "compatible", "different"),
}

#: Level names per field, strongest agreement first (a level's number is its place).
LEVELS: dict[Field, tuple[str, ...]] = {f: LABELS[kind] for f, kind in LEVEL_OF.items()}
