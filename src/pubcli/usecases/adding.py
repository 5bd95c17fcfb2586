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

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from collections.abc import Iterable, Mapping, Sequence

from pubcli import bibtex
from pubcli.errors import DuplicateError, ParseError, ValidationError
from pubcli.schema import values
from pubcli.schema.model import Record
from pubcli.schema.types import required_for
from pubcli.usecases.newentry import (EntryOptions, TYPE_NAME_RE, build, check_type, describe, missing_fields)

if TYPE_CHECKING:
    from pubcli.local.config import Config
    from pubcli.dedupe import Guard, Match

NOT_ASKED_HINT = " (give them as options, or run on a terminal to be asked)"
SHOWN_MATCHES = 5  # matches described when a new entry looks like a duplicate




@dataclass
class AddPlan:
    """What ``pubcli add`` appends: the new records with their keys, in order, and
    what to tell the user (``warnings``; ``notes`` for renamed keys)."""

    records: list[Record]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the duplicate guard the entries were judged by (None: not judged)
    guard: Guard | None = field(default=None, repr=False, compare=False)
    #: the duplicates added anyway (--force): each entry's label and its matches; with
    #: ``explain``, also the others' labels and the closest entries (no duplicates)
    judged: list[tuple[str, list[Match]]] = field(default_factory=list)
    unmatched: list[tuple[str, Record]] = field(default_factory=list, repr=False)

    def _explain_unmatched(self) -> None:
        """The closest entries each entry that is no duplicate was judged against (after
        all are judged: the guard then holds them all)."""
        assert self.guard is not None
        for label, rec in self.unmatched:
            closest = self.guard.closest(rec, EXPLAIN_CLOSEST, EXPLAIN_FLOOR)
            if closest:
                self.judged.append((label, closest))
        self.unmatched = []

    def written(self, digest: str | None, records: Sequence[Record]) -> None:
        """The plan was written: the file version ``digest`` holds ``records``. The
        weights the entries were judged by are kept for it, so the next ``add`` judges
        by them without estimating again (:meth:`pubcli.dedupe.Guard.carry`)."""
        if self.guard is not None and digest is not None:
            self.guard.carry(digest, records)


class DuplicateEntry(DuplicateError):
    """New entries match entries of the library. ``judged``: each such entry's label
    and its :class:`pubcli.dedupe.Match` objects, strongest first (each with its
    verdict, the full evidence); ``details`` name the other matches (or, for several
    entries, each entry's match), one line each, for the user."""

    def __init__(self, message: str, *, judged: list[tuple[str, list[Match]]],
                 details: list[str]) -> None:
        super().__init__(message, details=details)
        self.judged = judged

    @property
    def matches(self) -> list[Match]:
        """The (first) refused entry's matches."""
        return self.judged[0][1]


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
    if not TYPE_NAME_RE.match(rec.type.strip()):
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
def guard_for(records: Sequence[Record], digest: str | None = None) -> Guard:
    """The duplicate guard new entries of ``records``' library are judged by
    (``digest``: of the library file's bytes, for the weights cache)."""
    from pubcli.dedupe import Guard

    return Guard(records, digest=digest)


def check_duplicates(rec: Record, records: Sequence[Record] | Guard, *, force: bool = False,
                     label: str | None = None, digest: str | None = None,
                     explained: bool = False) -> list[Match]:
    """The entries of ``records`` (or of a :class:`pubcli.dedupe.Guard`'s library)
    that the matcher of ``pubcli dedupe`` says ``rec`` duplicates, strongest first.
    Unless ``force``, any match raises :class:`DuplicateEntry`. ``label`` names
    ``rec`` in messages (default: its title). ``digest`` (of the library file's
    bytes) lets the weights come from the cache. ``explained``: the evidence is
    shown already (the message does not point to ``--explain``)."""
    guard = guard_for(records, digest) if isinstance(records, Sequence) else records
    matches = guard.matches(rec)
    if matches and not force:
        what = label or _title_label(rec)
        raise DuplicateEntry(f"{what} looks like a duplicate of {match_ref(matches[0])}; "
                             f"nothing was written ({_hint(explained, 'it')})",
                             judged=[(what, matches)],
                             details=[f"{what} also looks like {match_ref(m)}"
                                      for m in matches[1:SHOWN_MATCHES]])
    return matches


def _hint(explained: bool, it: str) -> str:
    """What a refused duplicate's message suggests."""
    return ("" if explained else "--explain says why; ") + f"--force adds {it} anyway"


def match_ref(m: Match) -> str:
    """One match in a line: its key, line, what carried it and the probability
    (the fields' weights are ``--explain``'s to say)."""
    where = f"line {m.record.line}; " if m.record.line else ""
    return f"'{m.record.key}' ({where}{m.rule}, {m.score:.1f}%)"


def _title_label(rec: Record) -> str:
    from pubcli.text.latex import to_text

    return f"'{to_text(rec.title)}'"


#: With ``explain``, an entry that is no duplicate is shown beside the closest entries
#: (at most this many) whose match probability reaches EXPLAIN_FLOOR percent.
EXPLAIN_CLOSEST, EXPLAIN_FLOOR = 3, 1.0


def _guard(rec: Record, guard: Guard, plan: AddPlan, *, force: bool, label: str,
           explain: bool = False) -> None:
    """:func:`check_duplicates`; a forced duplicate is one warning (and its matches are
    kept in ``plan.judged`` for ``--explain``; with ``explain``, an entry that is no
    duplicate keeps the closest entries it was judged against there)."""
    matches = check_duplicates(rec, guard, force=force, label=label, explained=explain)
    if not matches and explain:
        plan.unmatched.append((label, rec))
    if matches:
        plan.judged.append((label, matches))
        others = f" (and {len(matches) - 1} more)" if len(matches) > 1 else ""
        plan.warnings.append(f"adding {label} anyway (--force): it looks like a duplicate "
                             f"of {match_ref(matches[0])}{others}")


# ------------------------------------------------------------------ pubcli add
def plan_add(records: Sequence[Record], opts: EntryOptions, config: Config, *,
             key: str | None = None, force: bool = False, allow_new: bool = False,
             prompted: bool = False, digest: str | None = None,
             guard: Guard | None = None, explain: bool = False) -> AddPlan:
    """The entry ``pubcli add`` makes from options, checked against ``records``.

    Its areas are resolved against the vocabulary (``allow_new`` accepts new
    ones); it is validated (``force`` accepts an unknown type); a duplicate is
    refused with :class:`DuplicateEntry` unless ``force``; it gets ``key`` or
    the scheme's key. ``prompted`` says the user was already asked for the
    missing fields (else the error for missing ones says how to give them).
    ``guard``: the duplicate guard to judge by, when the caller holds one (``sync``
    adding one entry after another); else one is made for ``records``. ``explain``:
    keep the closest entries an entry that is no duplicate was judged against in
    ``judged`` too (with their verdicts), for ``--explain``.
    """
    from pubcli.usecases.areas import choose
    from pubcli.schema.keys import taken_keys

    areas, warnings = choose(opts.areas, records, config, allow_new=allow_new)
    rec = build(replace(opts, areas=areas), force=force)
    validate(rec, force=force, hint="" if prompted else NOT_ASKED_HINT)
    plan = AddPlan([], warnings, guard=guard or guard_for(records, digest))
    assert plan.guard is not None
    _guard(rec, plan.guard, plan, force=force, label=_title_label(rec), explain=explain)
    plan.records.append(assign_key(rec, taken_keys(records), key))
    plan._explain_unmatched()
    return plan


def plan_add_bibtex(text: str, records: Sequence[Record], config: Config, *,
                    source: str = "-", areas: Sequence[str] = (), featured: bool = False,
                    force: bool = False, allow_new: bool = False,
                    strict: bool = False, digest: str | None = None,
                    explain: bool = False) -> AddPlan:
    """The entries ``pubcli add --from`` makes from the BibTeX ``text`` read from
    ``source`` ("-": stdin), all or none: a block that does not parse, an entry that
    cannot be written (:func:`validate`; with ``strict``, any invalid entry) or
    (unless ``force``) a duplicate of the library or of an earlier entry refuses the
    lot. What BibTeX only warns about (a missing required field...) is a warning
    naming the line. ``areas`` (as typed) and ``featured`` are added to every entry.
    Entries keep their keys as written when they can be cited and are free.
    ``explain``: as for :func:`plan_add`."""
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
    plan = AddPlan([], warnings, guard=guard_for(records, digest))
    assert plan.guard is not None
    refused: list[DuplicateEntry] = []  # the duplicates (not forced)
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
        label = f"{where}:{src.line}: '{rec.key}'"
        try:
            _guard(rec, plan.guard, plan, force=force, label=label, explain=explain)
        except DuplicateEntry as exc:  # each one named, after all are judged
            refused.append(exc)
        rec, old_key = keep_or_renew_key(rec, taken)
        if old_key is not None:
            plan.notes.append(f"{where}:{src.line}: {renewed_key_note(old_key, rec.key)}")
        plan.guard.add(rec)
        if plan.unmatched and plan.unmatched[-1][1] is not rec:
            plan.unmatched[-1] = (plan.unmatched[-1][0], rec)  # (the entry as kept)
        plan.records.append(rec)
    if len(refused) == 1:
        raise refused[0]
    if refused:
        judged = [one for exc in refused for one in exc.judged]
        raise DuplicateEntry(f"{len(refused)} of the {len(parsed.records)} entries look like "
                             f"duplicates; nothing was written ({_hint(explain, 'them')})",
                             judged=judged,
                             details=[f"{label} looks like a duplicate of {match_ref(ms[0])}"
                                      for label, ms in judged])
    plan._explain_unmatched()
    return plan
