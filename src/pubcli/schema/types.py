"""What BibTeX and biblatex define: entry types, their aliases and required fields,
where the venue lives, how a crossref/xdata parent passes fields down, the months.

One home for the data model: ``add`` and ``import`` validate with it, ``check`` lints
with it, listings and the page group and show with it, the matcher compares with it.
Sources: BibTeX's btxdoc ("Entry Types", "Fields") and the biblatex manual (section 2,
"Database Guide": entry types, aliases, required fields, the default inheritance setup
of appendix B).
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING, Iterable, Mapping


if TYPE_CHECKING:
    from pubcli.schema.model import Record

# ------------------------------------------------------------------ entry types
#: Required fields of the BibTeX standard types (btxdoc); "a|b" means either will do,
#: biblatex's names accepted beside BibTeX's.
BIBTEX_REQUIRED: dict[str, tuple[str, ...]] = {
    "article": ("author", "title", "journal|journaltitle", "year|date"),
    "book": ("author|editor", "title", "publisher", "year|date"),
    "booklet": ("title",),
    "conference": ("author", "title", "booktitle", "year|date"),
    "inbook": ("author|editor", "title", "chapter|pages", "publisher", "year|date"),
    "incollection": ("author", "title", "booktitle", "publisher", "year|date"),
    "inproceedings": ("author", "title", "booktitle", "year|date"),
    "manual": ("title",),
    "mastersthesis": ("author", "title", "school|institution", "year|date"),
    "misc": (),
    "phdthesis": ("author", "title", "school|institution", "year|date"),
    "proceedings": ("title", "year|date"),
    "techreport": ("author", "title", "institution", "year|date"),
    "unpublished": ("author", "title", "note"),
}

#: biblatex's own types (manual 2.1.1) with their required fields, where BibTeX has no
#: standard; the BibTeX types above keep BibTeX's (stricter) rules.
BIBLATEX_REQUIRED: dict[str, tuple[str, ...]] = {
    "mvbook": ("author|editor", "title", "year|date"),
    "bookinbook": ("author", "title", "year|date"),
    "suppbook": ("author", "title", "booktitle", "year|date"),
    "periodical": ("editor", "title", "year|date"),
    "suppperiodical": ("author", "title", "journal|journaltitle", "year|date"),
    "collection": ("editor", "title", "year|date"),
    "mvcollection": ("editor", "title", "year|date"),
    "suppcollection": ("author", "title", "booktitle", "year|date"),
    # biblatex lists author/editor, year/date (and for @online a doi/eprint/url) as
    # required here too, but its styles print these types well without them: only
    # a title is asked for, so web pages and data sets from exports don't all warn.
    "dataset": ("title",),
    "online": ("title",),
    "patent": ("author", "title", "number", "year|date"),
    "mvproceedings": ("title", "year|date"),
    "reference": ("editor", "title", "year|date"),
    "mvreference": ("editor", "title", "year|date"),
    "inreference": ("author", "title", "booktitle", "year|date"),
    # biber reads a ``school`` as the ``institution`` (biblatex's default source map)
    "report": ("author", "title", "institution|school", "year|date"),
    "thesis": ("author", "title", "institution|school", "year|date"),
    "software": (),
    "set": (),      # a set's members carry the data
    "xdata": (),    # a data container, never cited
    # the types biblatex supports without standard styles for them (manual 2.1.3)
    "artwork": (), "audio": (), "bibnote": (), "commentary": (), "image": (),
    "jurisdiction": (), "legislation": (), "legal": (), "letter": (), "movie": (),
    "music": (), "performance": (), "review": (), "standard": (), "video": (),
    **{f"custom{c}": () for c in "abcdef"},
}

#: biblatex's aliases (manual 2.1.2) and a few that exporters write.
TYPE_ALIASES: dict[str, str] = {
    "conference": "inproceedings", "electronic": "online", "www": "online",
    "mastersthesis": "thesis", "phdthesis": "thesis", "techreport": "report",
    "preprint": "misc", "webpage": "online",
}

REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {**BIBLATEX_REQUIRED, **BIBTEX_REQUIRED}
REQUIRED_FIELDS.setdefault("preprint", ())
REQUIRED_FIELDS.setdefault("electronic", ())
REQUIRED_FIELDS.setdefault("www", ())
KNOWN_TYPES = frozenset(REQUIRED_FIELDS) | frozenset(TYPE_ALIASES)

#: Data containers biblatex never prints: not publications of their own.
CONTAINER_TYPES = frozenset({"xdata"})


def required_fields(entry_type: str, *, biblatex: bool = False) -> tuple[str, ...]:
    """The fields an entry of this type needs ("a|b": either), () when unknown.

    ``biblatex``: the entry is written for biblatex (:func:`written_for_biblatex`), so a
    BibTeX type drops what only BibTeX's styles ask for (:data:`BIBTEX_ONLY_REQUIRED`)."""
    t = entry_type.lower()
    need = REQUIRED_FIELDS.get(t, ())
    if biblatex and t in BIBTEX_ONLY_REQUIRED:
        drop = BIBTEX_ONLY_REQUIRED[t]
        need = tuple(spec for spec in need if spec not in drop)
    return need


#: What BibTeX's standard styles require of a type and biblatex's data model does not
#: (biblatex's ``blx-dm.def`` mandatory constraints): a book's or a collection
#: chapter's publisher, an unpublished work's note, an inbook's chapter or pages.
#: biblatex styles print these entries without them, so a biblatex entry lacking
#: them is complete; a BibTeX entry is still asked for them.
BIBTEX_ONLY_REQUIRED: dict[str, frozenset[str]] = {
    "book": frozenset({"publisher"}),
    "inbook": frozenset({"chapter|pages", "publisher"}),
    "incollection": frozenset({"publisher"}),
    "unpublished": frozenset({"note"}),
}

#: Fields only biblatex reads (its data model's own names, which BibTeX's styles
#: ignore): an entry using one is written for biblatex. Names BibTeX styles also
#: commonly read (subtitle, urldate, bookauthor) are left out on purpose.
BIBLATEX_ONLY_FIELDS = frozenset({
    "date", "journaltitle", "location", "maintitle", "mainsubtitle", "maintitleaddon",
    "booksubtitle", "booktitleaddon", "titleaddon", "journalsubtitle", "issuetitle",
    "eventdate", "eventtitle", "origdate", "origlocation", "origpublisher", "langid",
    "langidopts", "xdata", "entryset", "shorthand", "shortauthor", "shorteditor",
    "shortjournal", "editortype", "editora", "editorb", "editorc", "pagetotal",
    "eprinttype", "eprintclass", "related", "relatedtype", "pubstate", "xref",
})

#: Types only biblatex defines (BibTeX's styles print them as @misc at best).
BIBLATEX_ONLY_TYPES = frozenset(BIBLATEX_REQUIRED) - {
    # also written for BibTeX by exporters and styles (IEEEtran's @patent and
    # @periodical, Beebe's bibliographies, Zotero's @software/@dataset/@online)
    "patent", "periodical", "online", "software", "dataset"}


def written_for_biblatex(entry_type: str, fields: Mapping[str, str]) -> bool:
    """Whether an entry is written for biblatex: its type, or one of its (own or
    inherited) fields, exists only in biblatex's data model."""
    if entry_type.lower() in BIBLATEX_ONLY_TYPES:
        return True
    return any(name in BIBLATEX_ONLY_FIELDS and value.strip()
               for name, value in fields.items())


#: The share of a file's entries written for biblatex that makes it a biblatex file
#: (biblatex's own examples: 20% to 100%; Beebe's and other BibTeX bibliographies in
#: TeX Live: under 5%, a stray ``date`` or ``location`` here and there).
BIBLATEX_FILE_SHARE = 0.2


def biblatex_file(records: Iterable[Record]) -> bool:
    """Whether the entries of one file are written for biblatex: at least one in five
    is (:data:`BIBLATEX_FILE_SHARE`). In such a file an entry with only BibTeX's
    fields (an edited volume with a title and a series) is read by biber all the same."""
    total = biblatex = 0
    for rec in records:
        total += 1
        biblatex += written_for_biblatex(rec.type, rec.fields)
    return bool(total) and biblatex >= BIBLATEX_FILE_SHARE * total


def required_for(entry_type: str, fields: Mapping[str, str], *,
                 in_biblatex_file: bool = False) -> tuple[str, ...]:
    """The fields an entry with these (own and inherited) ``fields`` needs: BibTeX's
    rules, or biblatex's when it, or the file it is in (:func:`biblatex_file`), is
    written for biblatex."""
    return required_fields(entry_type, biblatex=in_biblatex_file or
                           written_for_biblatex(entry_type, fields))


# ------------------------------------------------------------------ display groups
#: Entry types grouped under a readable name, in display order.
TYPE_GROUPS: list[tuple[str, frozenset[str]]] = [
    ("Technical reports", frozenset({"techreport", "report"})),
    ("Conference papers", frozenset({"inproceedings", "conference"})),
    ("Journal articles", frozenset({"article", "suppperiodical"})),
    ("Books and chapters", frozenset({"book", "inbook", "incollection", "booklet", "mvbook",
                                      "collection", "proceedings", "mvproceedings",
                                      "bookinbook", "suppbook", "mvcollection",
                                      "suppcollection", "reference", "mvreference",
                                      "inreference"})),
    ("Theses", frozenset({"phdthesis", "mastersthesis", "thesis"})),
    ("Preprints and other", frozenset({"misc", "unpublished", "online", "preprint", "electronic",
                                       "manual", "software", "dataset", "patent", "www"})),
]
_TYPE_GROUP_OF = {t: name for name, types in TYPE_GROUPS for t in types}


def type_group(entry_type: str) -> str:
    """The readable group name for an entry type ("Conference papers")."""
    return _TYPE_GROUP_OF.get(entry_type, entry_type.capitalize())


def type_group_order(name: str) -> tuple[int, str]:
    for i, (group, _) in enumerate(TYPE_GROUPS):
        if group == name:
            return (i, name)
    return (len(TYPE_GROUPS), name)


# ------------------------------------------------------------------ venues
#: Which field holds the venue, by entry type, tried in order (for reading).
VENUE_FIELDS: dict[str, tuple[str, ...]] = {
    "article": ("journal", "journaltitle"),
    "suppperiodical": ("journal", "journaltitle"),
    "inproceedings": ("booktitle", "eventtitle"),
    "conference": ("booktitle", "eventtitle"),
    "incollection": ("booktitle",),
    "inbook": ("booktitle", "publisher"),
    "inreference": ("booktitle",),
    "techreport": ("number", "institution"),
    "report": ("number", "institution"),
    "phdthesis": ("school", "institution"),
    "mastersthesis": ("school", "institution"),
    "thesis": ("school", "institution"),
    "book": ("publisher",),
    "misc": ("howpublished", "organization"),
}
FALLBACK_VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "howpublished", "school",
                         "institution", "publisher", "organization")

#: Where a venue given as one value (``add --venue``) is written, by entry type.
VENUE_TARGET: dict[str, str] = {
    "article": "journal",
    "inproceedings": "booktitle",
    "conference": "booktitle",
    "incollection": "booktitle",
    "inbook": "booktitle",
    "proceedings": "publisher",
    "book": "publisher",
    "techreport": "institution",
    "report": "institution",
    "phdthesis": "school",
    "mastersthesis": "school",
    "thesis": "school",
    "manual": "organization",
}
DEFAULT_VENUE_FIELD = "howpublished"


def venue_fields(entry_type: str) -> tuple[str, ...]:
    return VENUE_FIELDS.get(entry_type, FALLBACK_VENUE_FIELDS)


#: What a report is called when its ``type`` field does not say (BibTeX's styles print
#: "Technical Report" for a @techreport).
REPORT_TYPES = {"techreport": "Technical Report", "report": "Report"}
# MSR-TR-2024-12 says whose report it is; 7, TR-7 or No. 7 do not
_REPORT_WORDS = re.compile(r"(?i)\b(?:tr|no|nr|rep|report|tech|technical)\b\.?")
_LETTER = re.compile(r"[^\W\d_]")


def report_series(entry_type: str, fields: Mapping[str, str]) -> str:
    """A report's series: its institution and type ("Microsoft Research, Technical
    Report"), what ``list --by venue`` groups reports under; "" for other entries."""
    if entry_type not in REPORT_TYPES:
        return ""
    kind = " ".join(fields.get("type", "").split()) or REPORT_TYPES[entry_type]
    institution = " ".join(fields.get("institution", "").split())
    if re.search(r"(?i)\b(?:tech|technical|report)\b", institution):
        return institution  # "Microsoft Technical Report" says it already
    return f"{institution}, {kind}" if institution else kind


def report_venue(entry_type: str, fields: Mapping[str, str]) -> str | None:
    """Where a report appeared, as a listing shows it: its number when the number names
    itself (``MSR-TR-2024-12``); else its series and number ("Microsoft Research,
    Technical Report 7"), as BibTeX's styles print it. None for other entries."""
    if entry_type not in REPORT_TYPES:
        return None
    number = " ".join(fields.get("number", "").split())
    if number and _LETTER.search(_REPORT_WORDS.sub("", number)):
        return number
    if not number and not fields.get("institution", "").strip():
        return ""
    series = report_series(entry_type, fields)
    return f"{series} {number}" if number else series


# ------------------------------------------------------------------ inheritance
#: Fields never passed from a parent to a child (biblatex's defaults, and pubcli's own
#: per-entry markers: a proceedings' research areas are not its papers').
NOT_INHERITED = frozenset({
    "ids", "crossref", "xref", "xdata", "entryset", "entrysubtype", "execute", "label",
    "options", "presort", "related", "relatedoptions", "relatedstring", "relatedtype",
    "shorthand", "shorthandintro", "sortkey", "key", "keywords", "featured",
})

_BOOKS = frozenset({"book", "collection", "proceedings", "reference", "periodical"})
_MV = frozenset({"mvbook", "mvcollection", "mvproceedings", "mvreference"})
_PARTS = frozenset({"inbook", "bookinbook", "suppbook", "incollection", "suppcollection",
                    "inproceedings", "conference", "inreference"})


def inherited_name(field: str, parent_type: str, child_type: str) -> str | None:
    """The name a parent's ``field`` takes in the child (biblatex's default
    inheritance: a book's ``title`` is its chapter's ``booktitle``, a multi-volume
    work's ``title`` is ``maintitle``, a periodical's ``title`` is an article's
    ``journaltitle``, a book's ``author`` is ``bookauthor``); None when it does not
    pass down."""
    if field in NOT_INHERITED:
        return None
    p, c = parent_type.lower(), child_type.lower()
    if field in ("title", "subtitle", "titleaddon", "shorttitle", "sorttitle", "indextitle",
                 "indexsorttitle"):
        if p in _MV and (c in _PARTS or c in _BOOKS or c in _MV or c == "book"):
            return {"title": "maintitle", "subtitle": "mainsubtitle",
                    "titleaddon": "maintitleaddon"}.get(field)
        if p == "periodical" and c in ("article", "suppperiodical"):
            return {"title": "journaltitle", "subtitle": "journalsubtitle"}.get(field)
        if p in _BOOKS and c in _PARTS:
            return {"title": "booktitle", "subtitle": "booksubtitle",
                    "titleaddon": "booktitleaddon"}.get(field)
        return field  # other pairs: inherited as it is (a child's own value wins)
    if field == "author" and p in ("book", "mvbook") and c in ("inbook", "bookinbook",
                                                                 "suppbook"):
        return "bookauthor"
    return field
