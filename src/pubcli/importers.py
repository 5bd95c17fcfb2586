"""Reading publications to import: ``.bib`` files and plain-text listings.

A *listing* is what you get when you copy a publications page from a web
browser (see ``tests/data/publications-page.txt``)::

    ZeRO++: Extremely Efficient Collective Communication for Giant Model Training
    Guanhua Wang, Heyang Qin, Sam Ade Jacobs, ..., Yuxiong He
    ICLR 2024 | May 2024
    Published by Microsoft
    ISBN: 978-1-4673-8815-3

Each publication is found by its date line, ``Venue | Month YYYY``,
``Venue | YYYY`` or ``Month YYYY``: the line above it is the author list
(comma-separated "First Last" names) and the one above that the title. When
the line above the date does not look like an author list, it is the title of
a publication without authors. ``Published by X``, ``ISBN: ...`` and ``DOI:
...`` lines after the date line add details. Every other line (headings,
``-`` separators, blank lines) is ignored.

Types are inferred: a report number as venue (``MSR-TR-2024-12``) makes a
``@techreport`` with ``number`` and ``institution``; a journal-like venue
("Journal of...", "Transactions on...") an ``@article``; any other venue an
``@inproceedings``; no venue a ``@misc``.

Names become BibTeX's "Last, First" (:func:`pubcli.names.bibtex_name`): the last
word is the last name, with the particles before it (de, van, Del...), and
"Jr."-style suffixes kept apart. Names the library already spells in "Last, First"
form (say "Yazdani Aminabadi, Reza") are written the library's way. Titles get
BibTeX's case-protecting braces around words with inner capitals (``{ZeRO}++``,
``{CNNs}``), and LaTeX's special characters are escaped (:mod:`pubcli.latex`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from . import sources, values
from .errors import PubcliError, ValidationError
from .latex import escape, protect_case
from .model import MONTH_NAMES, Record
from .names import PARTICLES, SUFFIXES, bibtex_name, known_names

if TYPE_CHECKING:
    from .config import Config
    from .dedupe import Match

_MONTH_WORDS = {
    **{m.lower(): i for i, m in enumerate(MONTH_NAMES, 1)},
    **{m[:3].lower(): i for i, m in enumerate(MONTH_NAMES, 1)},
    "sept": 9,
}
_MONTH_ALT = "|".join(sorted(_MONTH_WORDS, key=len, reverse=True))
_DATE_RE = re.compile(
    r"^(?:(?P<venue>.*?\S)\s*\|\s*)?"
    r"(?:(?P<month>" + _MONTH_ALT + r")\.?,?\s+)?(?P<year>(?:1[89]|20)\d{2})$", re.I)
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
    """One incoming publication and where it came from (1-based line)."""

    record: Record
    line: int


@dataclass
class Listing:
    items: list[Item] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)


# ------------------------------------------------------------------ names and titles
def split_names(line: str) -> list[str]:
    """An author line: "A B, C D and E F" -> ["A B", "C D", "E F"]."""
    line = re.sub(r"\s*,?\s+(?:and|&)\s+", ", ", line.strip())
    return [" ".join(p.split()) for p in line.split(",") if p.strip()]


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


def parse_listing(text: str, *, known: Mapping[str, str] | None = None) -> Listing:
    """The publications in a plain-text listing (see the module docstring)."""
    lines = [" ".join(ln.replace("\u00a0", " ").split()) for ln in text.splitlines()]
    out = Listing()
    used = [False] * len(lines)
    dates = [_DATE_RE.match(ln) for ln in lines]
    for i, m in enumerate(dates):
        if m is None:
            continue
        if m.group("venue") is None and m.group("month") is None:
            continue  # a bare year is not a date line
        # title and authors above the date line
        def free(j: int) -> bool:
            return j >= 0 and not used[j] and dates[j] is None and _is_free(lines[j]) \
                and _detail(lines[j]) is None
        if free(i - 1) and looks_like_authors(lines[i - 1]) and free(i - 2):
            title_at, authors = i - 2, split_names(lines[i - 1])
        elif free(i - 1) and not looks_like_authors(lines[i - 1]):
            title_at, authors = i - 1, []
            out.warnings.append((i + 1, f"no author line above the date line {lines[i]!r}; "
                                        f"read {lines[i - 1]!r} as a title without authors"))
        else:
            out.warnings.append((i + 1, f"date line {lines[i]!r} without a title above it; "
                                        "skipped"))
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
        out.items.append(Item(_record(lines[title_at], authors, m, details, known),
                              title_at + 1))
    return out


def _detail(line: str) -> tuple[str, str] | None:
    for name, rx in _DETAIL_RES:
        m = rx.match(line)
        if m:
            return name, m.group("v").strip()
    return None


def _record(title: str, authors: Sequence[str], date: re.Match[str],
            details: Mapping[str, str], known: Mapping[str, str] | None) -> Record:
    fields: dict[str, str] = {}
    if authors:
        fields["author"] = " and ".join(bibtex_name(a, known) for a in authors)
    fields["title"] = protect_case(escape(title))
    venue = date.group("venue")
    if venue:
        entry_type, venue_fields = _classify_venue(venue)
        if entry_type == "techreport" and "institution" not in venue_fields:
            venue_fields["institution"] = details.get("publisher") or venue.split("-")[0]
        fields.update({k: escape(v) for k, v in venue_fields.items()})
    else:
        entry_type = "misc"
    if "publisher" in details:
        fields["publisher"] = escape(details["publisher"])
    fields["year"] = date.group("year")
    if date.group("month"):
        fields["month"] = MONTH_NAMES[_MONTH_WORDS[date.group("month").lower()] - 1]
    if "isbn" in details:
        fields["isbn"] = details["isbn"]
    doi = values.parse_doi(details.get("doi"))
    if doi:
        fields["doi"] = doi
    from .entries import order_fields

    return Record("", entry_type, order_fields(fields))


# ------------------------------------------------------------------ files
FORMATS = ("auto", "bib", "text")

# where an input is read: :mod:`pubcli.sources` (re-exported for the commands)
read_input = sources.read_input
source_label = sources.source_label


def looks_like_bibtex(text: str) -> bool:
    return re.search(r"(?m)^\s*@\s*[A-Za-z]+\s*[{(]", text) is not None


def detect_format(source: str, text: str) -> str:
    """"bib" for a .bib name or text with @entries, else "text"."""
    return "bib" if source.lower().endswith(".bib") or looks_like_bibtex(text) else "text"


def read_source(source: str, text: str, *, fmt: str = "auto",
                known: Mapping[str, str] | None = None) -> tuple[list[Item], list[tuple[int, str]]]:
    """The items in ``text`` read from ``source`` as ``fmt`` ("bib", "text", or "auto":
    see :func:`detect_format`), and (line, message) warnings about what was skipped."""
    text = text.removeprefix("\ufeff")
    if fmt == "auto":
        fmt = detect_format(source, text)
    if fmt == "bib":
        from . import bibtex

        parsed = bibtex.parse(text)
        warnings = [(f.line, f"could not read this block, skipped: {f.reason}")
                    for f in parsed.failed]
        warnings += list(parsed.warnings)
        items = [Item(Record(r.key, r.type, r.fields), r.line) for r in parsed.records]
        return items, sorted(warnings)
    if fmt != "text":
        raise PubcliError(f"unknown format '{fmt}' ({', '.join(FORMATS)})")
    listing = parse_listing(text, known=known)
    return listing.items, listing.warnings


# ------------------------------------------------------------------ matching
#: Match probability (percent, dedupe's scale) from which a match that
#: :data:`pubcli.dedupe.DEFAULT_THRESHOLD` does not reach is a near-duplicate
#: held back for review ("more likely the same work than not").
#: Duplicates are exactly what ``pubcli dedupe`` finds.
REVIEW_THRESHOLD = 50.0

NEW = "new"
DUPLICATE = "duplicate"    # already in the library
REPEAT = "repeat"          # an earlier item of the same input
NEAR = "near-duplicate"    # a match below certainty: for review
INVALID = "invalid"


@dataclass
class Outcome:
    item: Item
    status: str
    record: Record                  # with its key when it is added
    added: bool = False
    match: Match | None = None
    problem: str = ""


def plan(items: Sequence[Item], library: Sequence[Record], *, force: bool = False,
         add_near: bool = False, areas: Sequence[str] = (),
         review_threshold: float = REVIEW_THRESHOLD, digest: str | None = None
         ) -> list[Outcome]:
    """Decide, item by item, what an import does.

    Each item is matched (with :func:`pubcli.dedupe.find_matches`) against the
    library and the items before it that were kept: a match at dedupe's
    default threshold makes it a duplicate (of the library) or a repeat (of an
    earlier item), skipped; failing that, a match at ``review_threshold`` makes
    it a near-duplicate, held back unless ``add_near``. Invalid items (unknown
    type unless ``force``, missing required fields, bad year) are skipped.
    ``areas`` (resolved names) are added to every item. Kept items get a key:
    their own when valid and free, else the scheme's (suffixed when taken).
    Every item is judged with the weights and title frequencies of the library the
    import makes (the library and all items), as ``pubcli dedupe`` will judge it
    afterwards; ``digest`` names that content (the file's and the items' bytes) for
    the weights cache.
    """
    from . import entries
    from .dedupe import find_matches
    from .inherit import Inheritance
    from .keys import taken_keys
    from .schema import biblatex_file

    taken = taken_keys(library)
    pool: list[Record] = list(library)
    parents = Inheritance([*(i.record for i in items), *library])  # crossref/xdata targets
    # the rules ``check`` will apply to the library with these entries in it
    biblatex = biblatex_file([*library, *(i.record for i in items)])
    incoming: dict[int, Outcome] = {}  # id(record) -> its outcome, for items kept
    would_be = [*library, *(i.record for i in items)]
    out: list[Outcome] = []
    for item in items:
        rec = entries.apply_extras(item.record, areas)
        try:
            entries.validate(rec.copy(key=""), force=force,
                             inherited=parents.inherited(item.record),
                             parent=parents.is_parent(item.record),
                             in_biblatex_file=biblatex)
        except ValidationError as exc:
            out.append(Outcome(item, INVALID, rec, problem=exc.message))
            continue
        matches = find_matches(rec, pool, digest=digest, among=would_be)
        if matches:
            best = matches[0]
            earlier = incoming.get(id(best.record))
            if earlier is not None and _fuller(rec, earlier.record):
                # the input holds the work twice: keep the fuller entry in the earlier
                # one's place, and say so
                out.append(_swap(earlier, item, rec, best, pool, taken, incoming))
                continue
            status = REPEAT if earlier is not None else DUPLICATE
            outcome = Outcome(item, status, rec, match=best)
            if earlier is not None:
                outcome.problem = f"line {earlier.item.line} says as much or more: that one is kept"
            out.append(outcome)
            continue
        near = find_matches(rec, pool, threshold=review_threshold, digest=digest,
                            among=would_be)
        add = not near or add_near
        if add:
            rec, _ = entries.keep_or_renew_key(rec, taken)
        outcome = Outcome(item, NEAR if near else NEW, rec, added=add,
                          match=near[0] if near else None)
        out.append(outcome)
        pool.append(rec)
        incoming[id(rec)] = outcome
    return out


def _filled(rec: Record) -> int:
    return sum(1 for v in rec.fields.values() if v.strip())


def _fuller(new: Record, old: Record) -> bool:
    """Whether ``new`` says more than ``old`` (more filled fields, then more text)."""
    return (_filled(new), sum(map(len, new.fields.values()))) > \
        (_filled(old), sum(map(len, old.fields.values())))


def _swap(earlier: Outcome, item: Item, rec: Record, match: Match, pool: list[Record],
          taken: set[str], incoming: dict[int, Outcome]) -> Outcome:
    """``rec`` (from ``item``) takes the place of the earlier, thinner entry of the same
    work: the earlier one becomes the repeat; the kept one keeps the earlier status."""
    from . import entries

    old = earlier.record
    if earlier.added:
        taken.discard(old.key.casefold())
        rec, _ = entries.keep_or_renew_key(rec, taken)
    kept = Outcome(item, earlier.status, rec, added=earlier.added, match=earlier.match)
    pool[next(i for i, r in enumerate(pool) if r is old)] = rec
    del incoming[id(old)]
    incoming[id(rec)] = kept
    earlier.status, earlier.added = REPEAT, False
    earlier.match = type(match)(rec, match.score, match.evidence, match.rule)
    earlier.problem = f"line {item.line} says more: that one is kept"
    return kept


def summary(outcomes: Sequence[Outcome]) -> list[tuple[str, int]]:
    """(label, count) rows for the import summary."""
    count = {s: 0 for s in (NEW, DUPLICATE, REPEAT, NEAR, INVALID)}
    for o in outcomes:
        count[o.status] += 1
    near_added = sum(1 for o in outcomes if o.status == NEAR and o.added)
    return [
        ("added", sum(1 for o in outcomes if o.added)),
        ("skipped: already in the library", count[DUPLICATE]),
        ("skipped: repeated in the input", count[REPEAT]),
        ("near-duplicates to review" + (" (added)" if near_added else " (not added)"),
         count[NEAR]),
        ("skipped: invalid", count[INVALID]),
    ]


@dataclass
class ImportPlan:
    """What ``pubcli import`` does: one outcome per incoming item (add those with
    ``added``), warnings about the input, and how messages name the input."""

    outcomes: list[Outcome]
    warnings: list[str]
    where: str

    def summary(self) -> list[tuple[str, int]]:
        return summary(self.outcomes)


class NothingToImport(ValidationError):
    """The input holds no publication; ``details`` are the warnings that may say why."""

    def __init__(self, message: str, *, details: list[str]) -> None:
        super().__init__(message, details=details)


def plan_import(text: str, library: Sequence[Record], config: Config, *, source: str = "-",
                fmt: str = "auto", areas: Sequence[str] = (), allow_new: bool = False,
                add_near: bool = False, force: bool = False,
                digest: str | None = None) -> ImportPlan:
    """Read ``text`` (from ``source``, "-" for stdin) as ``fmt`` and decide what an
    import into ``library`` does (see :func:`plan`). ``areas`` are names as typed,
    resolved against the vocabulary (``allow_new`` accepts new ones). Names in a
    text listing take the spelling the library already uses for them."""
    from .areas import choose

    where = source_label(source)
    chosen, warnings = choose(areas, library, config, allow_new=allow_new)
    if fmt == "auto":
        fmt = detect_format(source, text)
    known = known_names(library) if fmt == "text" else None
    items, problems = read_source(source, text, fmt=fmt, known=known)
    warnings += [f"{where}:{line}: {message}" for line, message in problems]
    if not items:
        hint = " (is it a listing? try --format text)" if fmt == "bib" else ""
        raise NothingToImport(f"{where}: found no publications to import{hint}",
                              details=warnings)
    if digest is not None:  # the library's bytes and the items': what the weights are of
        from .store.cache import digest_of

        digest = digest_of(f"{digest}\0".encode() + text.encode("utf-8", "surrogateescape"))
    outcomes = plan(items, library, force=force, add_near=add_near, areas=chosen,
                    digest=digest)
    return ImportPlan(outcomes, warnings, where)
