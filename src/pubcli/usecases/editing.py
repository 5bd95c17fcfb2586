"""Everyday edits of single entries: find, show, edit, set fields, remove, rename.

The core of ``pubcli show``, ``edit``, ``remove`` and ``rename``: plain functions
on a :class:`~pubcli.store.library.Library` that never print, prompt or exit.

Entries are addressed by identity. A reference is a citation key, or
``KEY@LINE`` (the entry of that key starting on that line) when a key is used
by more than one entry, which real files do; a bare key used twice is refused,
naming both lines. Every change goes through ``Library.replace``/``remove``, so
the store rewrites only the changed entries' text.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence

from pubcli.usecases import refs
from pubcli.schema.keys import split_keys
from pubcli.schema import values
from pubcli.errors import LibraryChanged, ValidationError
from pubcli.store.library import Library, read_only_reason
from pubcli.schema.model import Record

IDS_FIELD = "ids"  # biblatex: other keys this entry answers to


# ------------------------------------------------------------------ finding
def resolve(lib: Library, ref: str) -> Record:
    """The one entry ``ref`` names: a key, ``KEY@LINE`` or a unique prefix (:mod:`pubcli.usecases.refs`)."""
    return refs.resolve(lib.records, ref, path=lib.path)


def editable(lib: Library, ref: str) -> Record:
    """The entry ``ref`` names, when pubcli may rewrite its text (not one with a field
    written twice, or without a key: those are fixed by hand)."""
    rec = resolve(lib, ref)
    why = read_only_reason(rec)
    if why:
        raise ValidationError(f"entry '{rec.key}' has a {why}; pubcli leaves its text alone, "
                              "so fix it in the file by hand", path=lib.path, line=rec.line)
    return rec


def resolve_many(lib: Library, names: Sequence[str]) -> list[Record]:
    """Each entry named once, in the order named."""
    return refs.resolve_many(lib.records, names, path=lib.path)


def relocate(lib: Library, records: Sequence[Record]) -> list[Record]:
    """The same entries in ``lib``, a fresh load under the lock, when they are unchanged
    since ``records`` were read (before an editor session or a question)."""
    out = []
    for rec in records:
        now = lib.locate(rec)
        if now is None:
            raise LibraryChanged(f"entry '{rec.key}' changed while pubcli was waiting for you; "
                                 "nothing was written (run the command again)",
                                 path=lib.path, line=rec.line or None)
        out.append(now)
    return out


def where(lib: Library, rec: Record) -> str:
    """``FILE:LINE`` of an entry."""
    return f"{lib.path}:{rec.line}" if rec.line else str(lib.path)


# ------------------------------------------------------------------ the text of an entry
def entry_text(lib: Library, rec: Record) -> str:
    """The entry's text as it stands in the file."""
    from pubcli.store import source_text

    return source_text(lib, rec)


def text_after(lib: Library, new: Record) -> str:
    """The text the next save will write for ``new`` (already put in ``lib``): the
    store's own preview, so a diff or a dry run shows exactly what will land."""
    from pubcli.store import preview

    return next(text for rec, text in preview(lib) if rec is new)


def diff(lib: Library, old: Record, new: Record) -> str:
    """A unified diff of the entry's text (``old`` replaced by ``new`` in ``lib``),
    labelled with the file and line."""
    before = entry_text(lib, old).replace("\r\n", "\n").splitlines(keepends=True)
    after = text_after(lib, new).replace("\r\n", "\n").splitlines(keepends=True)
    label = where(lib, old)
    lines = difflib.unified_diff(before, after, f"{label} (before)", f"{label} (after)")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def parse_entry(text: str, lib: Library, old: Record) -> Record:
    """Read the edited text of ``old``: exactly one entry, well formed. Errors name
    the line in the library where the edited line would be."""
    from pubcli import bibtex

    parsed = bibtex.parse(text, macros=lib.macros)
    base = max(old.line, 1) - 1 - _leading_lines(text)
    if parsed.failed:
        f = parsed.failed[0]
        braces = unbalanced_brace(text)
        if braces is not None:
            raise ValidationError(f"the edited entry does not parse: {braces.describe(base)}",
                                  path=lib.path, line=base + braces.line)
        raise ValidationError(f"the edited entry does not parse: {f.reason}",
                              path=lib.path, line=base + f.line)
    if len(parsed.records) != 1:
        raise ValidationError(f"the edited text holds {len(parsed.records)} entries; keep "
                              "exactly one", path=lib.path, line=old.line)
    new = parsed.records[0]
    why = new.source.read_only if new.source is not None else ""
    if why:
        raise ValidationError(f"the edited entry has a {why}", path=lib.path,
                              line=base + new.line)
    check_entry(new, lib, old)
    return Record(new.key, new.type, new.fields, old.line, old.source)


_FIELD_START_RE = re.compile(r"[ \t]*[A-Za-z_][\w:.+-]*[ \t]*=")
_COUNT = "BibTeX counts every brace, after a backslash too"


@dataclass(frozen=True)
class Unbalanced:
    """Where an entry's braces do not balance (lines 1-based, in the text checked):
    a ``}`` that closes nothing (``extra``), or the ``{`` on ``line`` left open, with
    the line of a field read as part of its value (``swallowed``) when there is one."""

    line: int
    extra: bool = False
    swallowed: int | None = None

    def describe(self, base: int = 0) -> str:
        """The reason, with ``base`` lines before the text (its place in the library)."""
        if self.extra:
            return f"the '}}' on line {base + self.line} closes no '{{' ({_COUNT})"
        if self.swallowed is not None:
            return (f"the '{{' on line {base + self.line} is never closed: the field on line "
                    f"{base + self.swallowed} is read as part of its value ({_COUNT})")
        return f"the '{{' on line {base + self.line} is never closed ({_COUNT})"


def unbalanced_brace(text: str) -> Unbalanced | None:
    """Where the braces of an entry's text do not balance, by BibTeX's count (every
    ``{`` and ``}`` from the ``@`` on counts, after a backslash or not, in a quoted value
    too). Names a ``}`` that closes nothing, else the ``{`` left open: the value a field
    line starts in when there is one (the usual slip: ``year = {2019,``), else the
    innermost one."""
    start = text.find("@")
    if start < 0:
        return None
    line = text.count("\n", 0, start) + 1
    open_at: list[int] = []  # the line of each open brace
    swallowed: tuple[int, int] | None = None  # (value's line, field's line), the first
    at_line_start = False
    for i in range(start, len(text)):
        c = text[i]
        if at_line_start and swallowed is None and len(open_at) >= 2 \
                and _FIELD_START_RE.match(text, i):
            swallowed = (open_at[-1], line)
        at_line_start = False
        if c == "{":
            open_at.append(line)
        elif c == "}":
            if not open_at:
                return Unbalanced(line, extra=True)
            open_at.pop()
        elif c == "\n":
            line += 1
            at_line_start = True
    if not open_at:
        return None
    if swallowed is not None:
        return Unbalanced(swallowed[0], swallowed=swallowed[1])
    return Unbalanced(open_at[-1])


def checked_text(text: str, lib: Library, old: Record) -> str:
    """``text`` when it is an acceptable edit of ``old`` (see :func:`parse_entry`)."""
    parse_entry(text, lib, old)
    return text


def _leading_lines(text: str) -> int:
    """Lines before the entry's ``@`` (a comment the user typed above it)."""
    at = text.find("@")
    return text.count("\n", 0, at) if at > 0 else 0


def check_entry(new: Record, lib: Library, old: Record) -> None:
    """Refuse what cannot be written: a bad new key, type or field name, unbalanced
    braces, a key another entry has. What the entry already had as BibTeX read it (a
    key, JabRef's ``__markedentry``) is not refused again: only what changes is checked."""
    from pubcli import bibtex
    from pubcli.usecases.newentry import check_type

    if new.key != old.key:  # a key BibTeX read is kept as written
        bibtex.check_key(new.key)
    check_type(new.type, force=True)
    for name, value in new.fields.items():
        if old.fields.get(name) != value:  # an unchanged field keeps its text as written
            bibtex.check_value(new.key, name, value, path=lib.path, line=old.line)
    if new.key.casefold() != old.key.casefold() and lib.has_key(new.key):
        other = next(r for r in lib.records if r.key.casefold() == new.key.casefold())
        raise ValidationError(f"the key '{new.key}' is already used on line {other.line}",
                              path=lib.path, line=old.line)


def new_findings(old: Record, new: Record) -> list[str]:
    """What ``pubcli check`` would newly say about ``new`` (shown as warnings)."""
    from pubcli.usecases.checks import check_record

    before = {(f.code, f.field) for f in check_record(old)}
    return [f.message for f in check_record(new) if (f.code, f.field) not in before]


# ------------------------------------------------------------------ changes
@dataclass
class Change:
    """One entry as it was and as it becomes; ``notes`` are warnings for the user."""

    old: Record
    new: Record
    notes: list[str] = field(default_factory=list)


def edit_text(lib: Library, old: Record, text: str) -> Change | None:
    """Apply the edited text of ``old``; None when it reads the same."""
    new = parse_entry(text, lib, old)
    if new == old:
        return None
    lib.replace(old, new)
    return Change(old, new, new_findings(old, new))


def parse_assignment(item: str) -> tuple[str, str]:
    """``FIELD=VALUE`` -> (field, value), the name lower-cased and checked."""
    from pubcli.usecases.newentry import parse_field_option

    try:
        return parse_field_option(item)
    except ValidationError as exc:
        raise ValidationError(exc.message.replace("--field", "--set")) from None


def set_fields(lib: Library, old: Record, sets: Sequence[str] = (),
               unsets: Sequence[str] = ()) -> Change | None:
    """``--set FIELD=VALUE`` and ``--unset FIELD`` on one entry; None when nothing changes.
    An empty VALUE is refused (use --unset); unsetting a field it lacks is refused."""
    fields = dict(old.fields)
    for item in sets:
        name, value = parse_assignment(item)
        if not value:
            raise ValidationError(f"--set {name}= gives an empty value; use --unset {name}")
        fields[name] = value
    for name in unsets:
        lname = name.strip().lower()
        if lname not in fields:
            raise ValidationError(f"--unset: entry '{old.key}' has no field '{lname}'",
                                  path=lib.path, line=old.line)
        del fields[lname]
    new = old.copy(fields=fields)
    check_entry(new, lib, old)
    # a value typed on the command line passes the rules add applies (pubcli.schema.values)
    given = {parse_assignment(item)[0] for item in sets}
    for name, _, why in values.field_problems({k: v for k, v in fields.items() if k in given}):
        raise ValidationError(f"--set: {why}; nothing was written", path=lib.path,
                              line=old.line, field=name)
    if new == old:
        return None
    lib.replace(old, new)
    return Change(old, new, new_findings(old, new))


def remove(lib: Library, refs: Sequence[str | Record]) -> list[Record]:
    """Remove the entries ``refs`` name (keys, ``KEY@LINE`` or the records themselves;
    all found first: nothing is removed when one is missing)."""
    targets = [r for r in refs if isinstance(r, Record)] + resolve_many(
        lib, [r for r in refs if isinstance(r, str)])
    for rec in targets:
        lib.remove(rec)
    return targets


def rename(lib: Library, ref: str, new_key: str, *, keep_ids: bool = True) -> Change:
    """Give the entry ``ref`` the key ``new_key``; the old key goes into biblatex's
    ``ids`` (unless ``keep_ids`` is False) so documents citing it still compile.
    Entries that cite the old key through ``crossref``/``xdata`` are named in the
    notes (they are not changed: only this entry's text is)."""
    from pubcli import bibtex

    old = editable(lib, ref)
    new_key = new_key.strip()
    bibtex.check_key(new_key)
    if new_key == old.key:
        raise ValidationError(f"the entry is already called '{new_key}'", path=lib.path,
                              line=old.line)
    fields = dict(old.fields)
    if keep_ids:
        ids = split_keys(fields.get(IDS_FIELD, ""))
        ids = [i for i in ids if i.casefold() != new_key.casefold()]
        if old.key.casefold() not in {i.casefold() for i in ids} \
                and old.key.casefold() != new_key.casefold():
            ids.append(old.key)
        if ids:
            fields[IDS_FIELD] = ", ".join(ids)
        else:
            fields.pop(IDS_FIELD, None)
    new = old.copy(key=new_key, fields=fields)
    check_entry(new, lib, old)
    notes = [f"{where(lib, r)}: entry '{r.key}' refers to '{old.key}' in {name}; "
             + ("biber finds it through ids" if keep_ids else "update it by hand")
             for r in lib.records if r is not old
             for name in ("crossref", "xdata")
             if old.key.casefold() in {k.casefold() for k in split_keys(r.fields.get(name, ""))}]
    lib.replace(old, new)
    return Change(old, new, notes)


def distinct_pairs_after_rename(library_path: str | os.PathLike[str], old_key: str,
                                new_key: str) -> list[tuple[str, str]]:
    """The "not duplicates" pairs that name ``old_key``, written with ``new_key``
    (to add to the file so the decision survives the rename)."""
    from pubcli.usecases import distinct

    old = old_key.casefold()
    return [(new_key, b if a == old else a) for a, b in sorted(distinct.load(library_path))
            if old in (a, b)]


def remember_distinct(library_path: str | os.PathLike[str],
                      pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    from pubcli.usecases import distinct

    return distinct.add(library_path, list(pairs))
