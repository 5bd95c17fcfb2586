"""New entries: ``pubcli add`` from options or from BibTeX, checked before writing.

:func:`plan_add` (options) and :func:`plan_add_bibtex` (a ``.bib`` text)
decide everything ``pubcli add`` does: they build the records, validate them,
refuse duplicates and give them keys, and return an :class:`AddPlan` the
command applies with ``lib.add``. Underneath, :func:`build` turns options into
a :class:`~pubcli.schema.model.Record` (no key yet); :func:`validate` checks any new
record and raises one :class:`~pubcli.errors.ValidationError` naming the first
problem; :func:`check_duplicates` asks the matcher of ``pubcli dedupe``;
:func:`assign_key` gives a record its citation key (:mod:`pubcli.schema.keys`). For
prompting, :func:`missing_required` says which fields the options leave out
and :func:`with_answers` puts the answers in.

Rules:

* the type must be one of :data:`pubcli.schema.types.KNOWN_TYPES` unless forced;
* ``year`` is a 4-digit year (a biblatex ``date`` must start with one);
* the type's required fields (:data:`pubcli.schema.types.REQUIRED_FIELDS`; fields inherited through
  ``crossref``/``xdata`` count) are there,
  and every entry has a title (pubcli needs it for keys and duplicate checks);
* ``--venue`` goes to the field that holds the venue for the type
  (:data:`pubcli.schema.types.VENUE_TARGET`): ``booktitle``, ``journal``, ``institution``,
  ``school``, ``publisher`` or ``howpublished``;
* ``--field name=value`` sets any other field; a field may be given only once;
* the key is a valid BibTeX key, not already used (case-insensitively);
* the entry is not a duplicate of one in the library (same DOI, or a close
  title with a shared author and year...) unless forced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from pubcli import bibtex
from pubcli.errors import DuplicateError, ParseError, ValidationError
from pubcli.schema import values
from pubcli.schema.model import AREA_FIELD, FEATURED_FIELD, Record, join_areas
from pubcli.schema.names import split_authors
from pubcli.schema.types import DEFAULT_VENUE_FIELD, KNOWN_TYPES, VENUE_TARGET, required_for
from pubcli.schema.values import MONTH_NAMES
from pubcli.schema.values import parse_month

if TYPE_CHECKING:
    from pubcli.local.config import Config
    from pubcli.dedupe import Match

_TYPE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_YEAR_RE = re.compile(r"^\d{4}$")

# The order fields are written in (others follow in the order given).
FIELD_ORDER = ("author", "editor", "title", "booktitle", "journal", "institution", "school",
               "number", "volume", "pages", "publisher", "howpublished", "organization",
               "year", "month", "doi", "url", "isbn")

NOT_ASKED_HINT = " (give them as options, or run on a terminal to be asked)"
SHOWN_MATCHES = 5  # matches described when a new entry looks like a duplicate


@dataclass
class EntryOptions:
    """What ``pubcli add`` was given, as typed (areas are resolved by :func:`plan_add`)."""

    type: str | None = None
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: str | None = None
    month: str | None = None
    venue: str | None = None
    doi: str | None = None
    url: str | None = None
    areas: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)  # "name=value"
    featured: bool = False


@dataclass
class AddPlan:
    """What ``pubcli add`` appends: the new records with their keys, in order, and
    what to tell the user (``warnings``; ``notes`` for renamed keys)."""

    records: list[Record]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class DuplicateEntry(DuplicateError):
    """A new entry matches entries of the library. ``matches`` are the
    :class:`pubcli.dedupe.Match` objects, strongest first; ``details`` describe them,
    one line each, for the user."""

    def __init__(self, message: str, *, matches: list[Match], details: list[str]) -> None:
        super().__init__(message, details=details)
        self.matches = matches


# ------------------------------------------------------------------ single values
def default_type(venue: str | None) -> str:
    """The type when none is given: a paper at a venue, else @misc."""
    return "inproceedings" if venue and venue.strip() else "misc"


def check_type(entry_type: str, *, force: bool = False) -> str:
    """The type, lower-cased; refuses a malformed name, and an unknown one unless forced."""
    t = entry_type.strip().lower()
    if not _TYPE_RE.match(t):
        raise ValidationError(f"'{entry_type}' is not a valid entry type name", field="type")
    if t not in KNOWN_TYPES and not force:
        from pubcli.text.similar import closest, did_you_mean

        near = closest(t, sorted(KNOWN_TYPES))
        hint = did_you_mean(near) if near else "; common: article, book, inproceedings, misc"
        raise ValidationError(f"unknown entry type '{t}'{hint} (pass --force to use it "
                              "anyway)", field="type")
    return t


def check_year(value: str) -> str:
    """A year as typed for a new entry: four digits."""
    v = value.strip()
    if not _YEAR_RE.match(v):
        raise ValidationError(f"expected a 4-digit year, got {value!r}", field="year")
    return v


def normalize_month(value: str) -> str:
    """"may", "5", "05", "May" -> "May" (the English name, as month macros expand)."""
    n = parse_month(value)
    if n is None:
        raise ValidationError(f"expected a month name or number 1-12, got {value!r}",
                              field="month")
    return MONTH_NAMES[n - 1]


def normalize_doi(value: str) -> str:
    """A DOI in any usual form (``https://doi.org/10.1/x``, ``doi:10.1/x``...) -> ``10.1/x``;
    refuses what is not a DOI (:func:`pubcli.schema.values.parse_doi` decides)."""
    doi = values.parse_doi(value)
    if doi is None:
        raise ValidationError(f"{value!r} is not a DOI (expected 10.NNNN/...)", field="doi")
    return doi


def check_url(value: str) -> str:
    v = value.strip()
    if values.web_link(v) is None:
        raise ValidationError(f"{value!r} is not an http(s) URL", field="url")
    return v


def parse_field_option(item: str) -> tuple[str, str]:
    """"name=value" -> ("name", "value"), the name lower-cased and checked."""
    name, sep, value = item.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ValidationError(f"--field expects name=value, got {item!r}")
    if not bibtex.FIELD_NAME_RE.match(name):
        raise ValidationError(f"--field: '{name}' is not a valid BibTeX field name")
    return name.lower(), value.strip()


def join_authors(authors: Sequence[str]) -> str:
    """Repeated --author options and "A and B" values, as one BibTeX author list."""
    out: list[str] = []
    for a in authors:
        out += [" ".join(part.split()) for part in split_authors(a)]
    return " and ".join(p for p in out if p)


# ------------------------------------------------------------------ building
def build(opts: EntryOptions, *, force: bool = False) -> Record:
    """A new record (key "") from the options; values are checked as they are set.
    Call :func:`validate` for the required fields."""
    entry_type = check_type(opts.type or default_type(opts.venue), force=force)
    fields: dict[str, str] = {}
    authors = join_authors(opts.authors)
    if authors:
        fields["author"] = authors
    if opts.title is not None and opts.title.strip():
        fields["title"] = " ".join(opts.title.split())
    if opts.venue is not None and opts.venue.strip():
        fields[VENUE_TARGET.get(entry_type, DEFAULT_VENUE_FIELD)] = " ".join(opts.venue.split())
    if opts.year is not None and opts.year.strip():
        fields["year"] = check_year(opts.year)
    if opts.month is not None and opts.month.strip():
        fields["month"] = normalize_month(opts.month)
    if opts.doi:
        fields["doi"] = normalize_doi(opts.doi)
    if opts.url:
        fields["url"] = check_url(opts.url)
    for item in opts.fields:
        name, value = parse_field_option(item)
        if name in (AREA_FIELD, FEATURED_FIELD):
            raise ValidationError(f"--field: set '{name}' with "
                                  f"{'--area' if name == AREA_FIELD else '--featured'}")
        if name in fields:
            raise ValidationError(f"--field: field '{name}' is given twice", field=name)
        fields[name] = value
    if opts.areas:
        fields[AREA_FIELD] = join_areas(opts.areas)
    if opts.featured:
        fields[FEATURED_FIELD] = "true"
    return Record("", entry_type, order_fields(fields))


def order_fields(fields: dict[str, str]) -> dict[str, str]:
    """Conventional field order: people, title, venue, date, links, then the rest,
    with keywords and featured last."""
    head = [n for n in FIELD_ORDER if n in fields]
    tail = [n for n in (AREA_FIELD, FEATURED_FIELD) if n in fields]
    rest = [n for n in fields if n not in head and n not in tail]
    return {n: fields[n] for n in head + rest + tail}


def missing_fields(entry_type: str, fields: Mapping[str, str], *,
                   in_biblatex_file: bool = False) -> list[str]:
    """The required field specs ("author", "year|date") that ``fields`` lacks, title
    first (a title is always required; a biblatex @set and @xdata have none); by
    biblatex's rules when the entry or its file is written for biblatex
    (:func:`pubcli.schema.types.required_for`)."""
    specs = [s for s in required_for(entry_type, fields, in_biblatex_file=in_biblatex_file)
             if s != "title"]
    if entry_type not in ("set", "xdata"):
        specs.insert(0, "title")
    return [spec for spec in specs
            if not any(fields.get(name, "").strip() for name in spec.split("|"))]


def missing_required(opts: EntryOptions, *, force: bool = False) -> list[str]:
    """The fields to ask for: those the entry's type requires and ``opts`` leave out,
    one name each (the first of "year|date"), title first. Raises for a bad option."""
    rec = build(opts, force=force)
    return [spec.split("|")[0] for spec in missing_fields(rec.type, rec.fields)]


def with_answers(opts: EntryOptions, answers: Mapping[str, str]) -> EntryOptions:
    """``opts`` completed with answers to :func:`missing_required` (name -> value)."""
    rest = dict(answers)
    return replace(opts,
                   title=rest.pop("title", opts.title),
                   authors=[rest.pop("author")] if "author" in rest else opts.authors,
                   year=rest.pop("year", opts.year),
                   fields=[*opts.fields, *(f"{k}={v}" for k, v in rest.items())])


def describe(spec: str) -> str:
    """"year|date" -> "year (or date)"."""
    first, *others = spec.split("|")
    return first + (f" (or {', '.join(others)})" if others else "")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a new record: ``fatal`` when it cannot be written or read
    back (a bad field name, unbalanced braces, a malformed type), else a *shortfall*
    BibTeX only warns about (a missing required field, a 2-digit year, an unknown type,
    a URL list), which ``pubcli check`` reports too."""

    message: str
    field: str | None = None
    fatal: bool = False


def problems(rec: Record, *, force: bool = False, hint: str = "",
             inherited: Mapping[str, str] | None = None, parent: bool = False,
             in_biblatex_file: bool = False, strict: bool = True) -> list[Problem]:
    """Everything wrong with a new record, in the order checked (see :func:`validate`).
    ``strict``: every problem is fatal (what ``add`` from options, and ``--strict``,
    refuse); otherwise only what BibTeX cannot read or cite is, and the required fields
    are BibTeX's (:func:`pubcli.schema.types.required_for`) without pubcli's own title rule."""
    out: list[Problem] = []
    if not _TYPE_RE.match(rec.type.strip()):
        return [Problem(f"'{rec.type}' is not a valid entry type name", "type", True)]
    if not force:
        try:
            check_type(rec.type)
        except ValidationError as exc:
            why = exc.message if strict else (
                f"unknown entry type '@{rec.type.lower()}' (BibTeX's styles print it as "
                "@misc)")
            out.append(Problem(why, "type", strict))
    # the values ``pubcli check`` warns about (one rule each)
    for name, kind, why in values.field_problems(rec.fields):
        if kind == "year" and strict:
            why = f"expected a 4-digit year, got {rec.fields[name]!r}"
        out.append(Problem(why, name, strict))
    available = {**(inherited or {}), **rec.fields}
    if parent:
        missing: list[str] = []
    elif strict:
        missing = missing_fields(rec.type, available, in_biblatex_file=in_biblatex_file)
    else:
        missing = [spec for spec in required_for(rec.type, available,
                                                 in_biblatex_file=in_biblatex_file)
                   if not any(available.get(n, "").strip() for n in spec.split("|"))]
    if missing:
        names = ", ".join(describe(s) for s in missing)
        out.append(Problem(f"@{rec.type} needs {names}{hint}" +
                           ("; nothing was written" if strict else ""), None, strict))
    for name, value in rec.fields.items():
        try:  # what the writer cannot write so that BibTeX reads it back as meant
            bibtex.check_value("", name, value)
        except ValidationError as exc:
            out.append(Problem(exc.message, name, True))
    return out


def validate(rec: Record, *, force: bool = False, hint: str = "",
             inherited: Mapping[str, str] | None = None, parent: bool = False,
             in_biblatex_file: bool = False, strict: bool = True) -> list[str]:
    """Raise ValidationError for the first thing wrong with a new record (prefixed
    with "entry 'KEY': " when it has a key). ``hint`` follows the list of
    missing fields; ``inherited`` are the fields it gets through ``crossref`` or
    ``xdata`` (:mod:`pubcli.schema.types.inherit`), which count as present. A ``parent`` (an entry
    others inherit from, such as xampl.bib's ``whole-journal``) needs no required
    fields: its values are checked all the same. ``in_biblatex_file``: it comes from a
    file written for biblatex, whose rules then apply (:func:`pubcli.schema.types.biblatex_file`).

    Not ``strict`` (entries read from a file, as BibTeX reads them): only a fatal
    :class:`Problem` raises; the shortfalls are returned as messages, to be shown as
    warnings (``pubcli check`` shows them again). Strict: returns []."""
    if rec.key:
        bibtex.check_key(rec.key)
    found = problems(rec, force=force, hint=hint, inherited=inherited, parent=parent,
                     in_biblatex_file=in_biblatex_file, strict=strict)
    prefix = f"entry '{rec.key}': " if rec.key else ""
    for p in found:
        if p.fatal:
            raise ValidationError(prefix + p.message, field=p.field)
    return [prefix + p.message for p in found]


def apply_extras(rec: Record, areas: Iterable[str] = (), featured: bool = False) -> Record:
    """``rec`` with more areas (resolved names) and, if asked, the featured marker."""
    from pubcli.usecases import areas as areas_mod

    out = areas_mod.edit(rec, add=list(areas)) or rec
    if featured:
        out = areas_mod.set_featured(out, True) or out
    return out


# ------------------------------------------------------------------ keys
def assign_key(rec: Record, taken: set[str], explicit: str | None = None) -> Record:
    """``rec`` with its key: ``explicit`` if given (refused when taken), else the
    scheme's key made unique. The key is added to ``taken`` (casefolded keys)."""
    from pubcli.schema.keys import make_key

    if explicit is not None:
        key = explicit.strip()
        bibtex.check_key(key)
        if key.casefold() in taken:
            raise ValidationError(f"the key '{key}' is already in the library "
                                  "(keys compare case-insensitively); choose another --key")
    else:
        key = make_key(rec, taken)
    taken.add(key.casefold())
    return rec.copy(key=key)


def keep_or_renew_key(rec: Record, taken: set[str]) -> tuple[Record, str | None]:
    """For entries read from a file: keep their key, exactly as written, when BibTeX
    reads it (:data:`pubcli.bibtex.READ_KEY_RE`), the writer takes it and it is free;
    else give a new one (suffix a, b... on a taken key; the scheme's key for a missing
    or unreadable one). The key is added to ``taken``. Returns the record and its old
    key when it changed (:func:`renewed_key_note` says why)."""
    from pubcli.schema.keys import make_key, unique_key

    key = rec.key
    valid = bool(bibtex.CITABLE_KEY_RE.match(key))
    if valid and key.casefold() not in taken:
        taken.add(key.casefold())
        return rec, None
    new = unique_key(key, taken) if valid else make_key(rec, taken)
    taken.add(new.casefold())
    return rec.copy(key=new), key


def renewed_key_note(old_key: str, new_key: str) -> str:
    """Why an entry read from a file was given ``new_key`` instead of ``old_key``."""
    if not old_key:
        return f"the entry has no key; it is added as '{new_key}'"
    if not bibtex.READ_KEY_RE.match(old_key):
        return (f"BibTeX cannot read {old_key!r} as a key (white space, a comma, a '}}' or "
                f"a control character); the entry is added as '{new_key}'")
    if not bibtex.CITABLE_KEY_RE.match(old_key):
        bad = " ".join(repr(c) for c in sorted(set(old_key))
                       if not bibtex.CITABLE_KEY_RE.match(c))
        return (f"BibTeX reads the key '{old_key}', but LaTeX cannot \\cite a key with "
                f"{bad}; the entry is added as '{new_key}'")
    return f"the key '{old_key}' is taken; the entry is added as '{new_key}'"


# ------------------------------------------------------------------ duplicates
def check_duplicates(rec: Record, records: Sequence[Record], *, force: bool = False,
                     label: str | None = None, digest: str | None = None) -> list[Match]:
    """The entries of ``records`` that the matcher of ``pubcli dedupe`` says ``rec``
    duplicates, strongest first. Unless ``force``, any match raises
    :class:`DuplicateEntry`. ``label`` names ``rec`` in messages (default: its title).
    ``digest`` (of the library file's bytes) lets the weights come from the cache."""
    from pubcli.dedupe import find_matches

    matches = find_matches(rec, records, digest=digest)
    if matches and not force:
        what = label or _title_label(rec)
        best = matches[0]
        raise DuplicateEntry(f"{what} looks like a duplicate of '{best.record.key}' "
                             f"({', '.join(best.evidence[:2]) or best.rule}); nothing was "
                             "written (use --force to add it anyway)",
                             matches=matches, details=match_lines(what, matches))
    return matches


def match_lines(label: str, matches: Sequence[Match]) -> list[str]:
    """One line per match (the first few): which entry, where, and what carried it
    (the fields' weights are the error's and ``pubcli dedupe --explain``'s to say)."""
    from pubcli.text.latex import to_text

    out = []
    for m in matches[:SHOWN_MATCHES]:
        where = f" (line {m.record.line})" if m.record.line else ""
        out.append(f"{label} matches '{m.record.key}'{where}: {to_text(m.record.title)} "
                   f"[{m.rule}; {m.score:.1f}%]")
    return out


def _title_label(rec: Record) -> str:
    from pubcli.text.latex import to_text

    return f"'{to_text(rec.title)}'"


def _guard(rec: Record, records: Sequence[Record], *, force: bool, label: str,
           digest: str | None = None) -> list[str]:
    """:func:`check_duplicates`, with the warnings for a forced duplicate."""
    matches = check_duplicates(rec, records, force=force, label=label, digest=digest)
    if not matches:
        return []
    return [*match_lines(label, matches), f"adding {label} anyway (--force)"]


# ------------------------------------------------------------------ pubcli add
def plan_add(records: Sequence[Record], opts: EntryOptions, config: Config, *,
             key: str | None = None, force: bool = False, allow_new: bool = False,
             prompted: bool = False, digest: str | None = None) -> AddPlan:
    """The entry ``pubcli add`` makes from options, checked against ``records``.

    Its areas are resolved against the vocabulary (``allow_new`` accepts new
    ones); it is validated (``force`` accepts an unknown type); a duplicate is
    refused with :class:`DuplicateEntry` unless ``force``; it gets ``key`` or
    the scheme's key. ``prompted`` says the user was already asked for the
    missing fields (else the error for missing ones says how to give them).
    """
    from pubcli.usecases.areas import choose
    from pubcli.schema.keys import taken_keys

    areas, warnings = choose(opts.areas, records, config, allow_new=allow_new)
    rec = build(replace(opts, areas=areas), force=force)
    validate(rec, force=force, hint="" if prompted else NOT_ASKED_HINT)
    warnings += _guard(rec, records, force=force, label=_title_label(rec), digest=digest)
    return AddPlan([assign_key(rec, taken_keys(records), key)], warnings)


def plan_add_bibtex(text: str, records: Sequence[Record], config: Config, *,
                    source: str = "-", areas: Sequence[str] = (), featured: bool = False,
                    force: bool = False, allow_new: bool = False,
                    strict: bool = False, digest: str | None = None) -> AddPlan:
    """The entries ``pubcli add --from`` makes from the BibTeX ``text`` read from
    ``source`` ("-": stdin), all or none: a block that does not parse, an entry that
    cannot be written (:func:`validate`; with ``strict``, any invalid entry) or
    (unless ``force``) a duplicate of the library or of an earlier entry refuses the
    lot. What BibTeX only warns about (a missing required field...) is a warning
    naming the line. ``areas`` (as typed) and ``featured`` are added to every entry.
    Entries keep their keys as written when they can be cited and are free."""
    from pubcli.usecases.areas import choose
    from pubcli.usecases.sources import source_label
    from pubcli.schema.keys import taken_keys

    where = source_label(source)
    chosen, warnings = choose(areas, records, config, allow_new=allow_new)
    parsed = bibtex.parse(text.removeprefix("\ufeff"))
    if parsed.failed:
        f = parsed.failed[0]
        raise ParseError(f"could not read this entry: {f.reason}; nothing was written",
                         path=where, line=f.line)
    if not parsed.records:
        raise ValidationError(f"{where}: no BibTeX entries found; nothing was written")
    from pubcli.schema.inherit import Inheritance
    from pubcli.schema.types import biblatex_file

    taken = taken_keys(records)
    pool = list(records)
    plan = AddPlan([], warnings)
    parents = Inheritance([*parsed.records, *records])  # crossref/xdata in the file or library
    # the rules ``check`` will apply to the library with these entries in it
    biblatex = biblatex_file([*records, *parsed.records])
    for src in parsed.records:
        rec = apply_extras(Record(src.key, src.type, src.fields), chosen, featured)
        try:
            shortfalls = validate(rec, force=force, inherited=parents.inherited(src),
                                  parent=parents.is_parent(src), in_biblatex_file=biblatex,
                                  strict=strict)
        except ValidationError as exc:
            raise ValidationError(exc.message, path=where, line=src.line,
                                  field=exc.field) from None
        plan.warnings += [f"{where}:{src.line}: {w}" for w in shortfalls]
        plan.warnings += _guard(rec, pool, force=force, label=f"{where}:{src.line}: '{rec.key}'",
                                digest=digest)
        rec, old_key = keep_or_renew_key(rec, taken)
        if old_key is not None:
            plan.notes.append(f"{where}:{src.line}: {renewed_key_note(old_key, rec.key)}")
        pool.append(rec)
        plan.records.append(rec)
    return plan
