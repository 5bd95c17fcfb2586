"""``pubcli fmt``: the entries of a library in one canonical form, and nothing else touched.

:func:`plan` takes a loaded :class:`~pubcli.store.library.Library` and a
:class:`~pubcli.bibtex.Form` (``[fmt]`` of pubcli.toml) and returns a :class:`Plan`: the
entries whose text is not in the form, each with its new text, the white space between
entries that is not one blank line (or what the form says), and, with a sort, the runs
of entries put in order. Everything else (comments, ``@string``, ``@preamble``, blocks
pubcli cannot read) stays byte for byte; :func:`pubcli.store.rewrite` writes the plan.

An entry is rewritten by :func:`pubcli.bibtex.format_written`: what BibTeX reads from
it does not change except by what the form asks (month macros, page dashes, bare DOIs,
dropped fields, encoding, case protection). The plan says what BibTeX must read from the
new text (``Plan.expected``), and the store reads the text back before writing it;
read-only entries (a repeated field, no key, text BibTeX does not read) are left alone
and named.

Sorting moves entries only within a run of entries with nothing but white space between
them: a comment, an ``@string`` (which must come before the entries that use it) or an
unreadable block is a fence. A ``crossref`` parent stays after the entries that cite it
(BibTeX copies its fields only into entries before it).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from pubcli import bibtex
from pubcli.local import gcpause
from pubcli.bibtex.form import canonical_re, values_in_form
from pubcli.errors import NotFound, ValidationError
from pubcli.store.cache import written_of
from pubcli.store.library import Library
from pubcli.schema.model import Record

if TYPE_CHECKING:
    from pubcli.usecases.checks import Finding

SORTS = ("key", "year", "type")


class Change(NamedTuple):
    """One entry whose text the plan rewrites."""

    record: Record
    line: int
    old: str  # the entry's text now
    new: str  # its text in the form
    fields: tuple[str, ...]  # the fields whose reading changes (normalised or dropped)


@dataclass(frozen=True)
class Skipped:
    """An entry or block the plan leaves alone, and why."""

    line: int
    key: str | None
    reason: str


@dataclass
class Plan:
    changes: list[Change] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    # (start, end, new text) on the document's text, sorted, not overlapping: every entry
    # change, the white space between entries, sorted runs
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    spacing: list[int] = field(default_factory=list)  # lines of the entries after a gap
    # (whose white space is not the form's blank lines)
    moved: list[tuple[int, int]] = field(default_factory=list)  # (line, entries) per run
    # a sort reorders
    _expected: list[list[tuple[str, str, dict[str, str]]]] = field(default_factory=list)

    @property
    def expected(self) -> list[list[tuple[str, str, dict[str, str]]]]:
        """For each edit, (key, type, fields) of the entries in its new text, in order,
        as BibTeX must read them ([] for white space): what the store checks the text
        it writes against."""
        return self._expected

    @property
    def clean(self) -> bool:
        """The text is in the form already (skipped entries aside)."""
        return not self.edits

    def apply(self, text: str) -> str:
        out, pos = [], 0
        for start, end, new in self.edits:
            out.append(text[pos:start])
            out.append(new)
            pos = end
        out.append(text[pos:])
        return "".join(out)


def plan(library: Library, form: bibtex.Form, keys: list[str] | None = None,
         sort: str | None = None) -> Plan:
    """What ``pubcli fmt`` would change in ``library`` (nothing is written). ``keys``:
    only these entries (every entry with the key); ``sort`` ("key", "year", "type")
    overrides the form's."""
    with gcpause.paused():  # many small objects, no cycles (see pubcli.local.gcpause)
        return _plan(library, form, keys, sort)


def _plan(library: Library, form: bibtex.Form, keys: list[str] | None,
          sort: str | None) -> Plan:
    sort = form.sort if sort is None else sort
    if sort and sort not in SORTS:
        raise ValidationError(f"unknown sort '{sort}' (one of {', '.join(SORTS)})")
    if sort and keys:
        raise ValidationError("sorting puts the whole file in order: give no keys with it")
    out = Plan()
    text = library.text
    nl = library.newline
    indent = form.indent if form.indent is not None else bibtex.detect_indent(text)
    selected = _selected(library, keys)
    new_text: dict[int, str] = {}  # id(record) -> its text in the form, when not its own
    for f in library.failed:
        out.skipped.append(Skipped(f.line, None, f"a block pubcli cannot read: "
                                                 f"{f.reason}"))
    changed_of: dict[int, dict[str, str | None]] = {}
    fast = canonical_re(form, indent, nl)
    # how every entry in the form ends: a cheap test before the pattern
    tail = ("," if form.trailing_comma else "") + nl + "}"
    plain = not (form.pages or form.bare_doi or form.encoding or form.protect)
    macros = library.macros
    rewrite = bibtex.rewrite_written
    match = fast.match if fast is not None else None
    ends_in_form = text.endswith
    changes = out.changes
    unread: set[int] = set()  # id(record) of the entries BibTeX does not read as one
    # each edit with what BibTeX must read from its new text (see Plan.expected)
    edits: list[tuple[tuple[int, int, str], list[tuple[str, str, dict[str, str]]]]] = []
    moving = bool(sort) and keys is None  # runs may move: their edits come after this loop
    for rec in library.records:
        src = rec.source
        if src is None or (selected is not None and id(rec) not in selected):
            continue
        if src.read_only:
            out.skipped.append(Skipped(rec.line, rec.key, src.read_only))
            continue
        start, end = src.start, src.end
        if match is not None and ends_in_form(tail, start, end):
            m = match(text, start)
            if m is not None and m.end() == end and (plain or values_in_form(rec.fields, form)):
                continue  # in the form already
        raw = text[start:end]
        done = rewrite(raw, src, form, macros, indent, nl, written_of(src))
        if done is None:
            unread.add(id(rec))
            out.skipped.append(Skipped(rec.line, rec.key, "BibTeX does not read its text as "
                                                          "one entry"))
            continue
        if done.text != raw:
            changed = done.changed
            changes.append(Change(rec, rec.line, raw, done.text, tuple(changed)))
            if not moving:  # the entry's own edit
                edits.append(((start, end, done.text),
                              [(rec.key, rec.type, _reading(rec.fields, changed)
                                if changed else rec.fields)]))
                continue
            new_text[id(rec)] = done.text
            if changed:
                changed_of[id(rec)] = changed
    in_runs: set[int] = set()
    gap = nl * ((form.blank_lines if form.blank_lines is not None else 1) + 1)
    if moving:
        for run in _runs(library, text):
            order = _sorted(run, sort)
            if order == run or any(id(r) in unread for r in run):
                if form.blank_lines is not None:
                    _gaps(run, text, gap, edits, out.spacing)
                continue
            out.moved.append((run[0].line, sum(a is not b for a, b in zip(order, run, strict=True))))
            start, end = run[0].source.start, run[-1].source.end  # type: ignore[union-attr]
            between = [gap if form.blank_lines is not None
                       else text[a.source.end:b.source.start]  # type: ignore[union-attr]
                       for a, b in zip(run, run[1:], strict=False)]
            joined = _text_in_form(order[0], new_text, text)
            for sep, rec in zip(between, order[1:], strict=False):
                joined += sep + _text_in_form(rec, new_text, text)
            edits.append(((start, end, joined),
                          [(r.key, r.type, _reading(r.fields, changed_of.get(id(r))))
                           for r in order]))
            in_runs.update(id(r) for r in run)
        for c in changes:  # the entries outside the runs that move: their own edits
            rec = c.record
            if id(rec) not in in_runs:
                src = rec.source
                assert src is not None
                edits.append(((src.start, src.end, c.new),
                              [(rec.key, rec.type, _reading(rec.fields, changed_of.get(id(rec))))]))
    elif form.blank_lines is not None and keys is None:
        _gaps(library.records, text, gap, edits, out.spacing)
    edits.sort(key=_span)  # (no two edits of one span: the order of (start, end))
    out.edits = [e for e, _ in edits]
    out._expected = [x for _, x in edits]
    out.skipped.sort(key=lambda s: s.line)
    return out


_span = operator.itemgetter(0)  # an edit's (start, end, new text)


def _gaps(records: list[Record], text: str, gap: str,
          edits: list[tuple[tuple[int, int, str], list]], spacing: list[int]) -> None:
    """The edits that make the white space between two entries of a run (only white
    space between them, neither read-only: :func:`_runs`) the form's ``gap``."""
    prev = None
    size = len(gap)
    for rec in records:
        src = rec.source
        if src is None or src.read_only:
            prev = None
            continue
        if prev is not None:
            s, e = prev.end, src.start
            if not (e - s == size and text.startswith(gap, s)) \
                    and not text[s:e].strip(" \t\r\n"):
                edits.append(((s, e, gap), []))
                spacing.append(rec.line)
        prev = src


def _text_in_form(rec: Record, new_text: dict[int, str], text: str) -> str:
    got = new_text.get(id(rec))
    if got is not None:
        return got
    src = rec.source
    assert src is not None
    return text[src.start:src.end]


def _reading(fields: dict[str, str], changed: dict[str, str | None] | None) -> dict[str, str]:
    """What BibTeX reads from an entry once rewritten: ``fields`` with the form's changes."""
    if not changed:
        return fields
    return {k: changed.get(k, v) for k, v in fields.items()  # type: ignore[misc]
            if k not in changed or changed[k] is not None}


def findings(plan: Plan, sort: str = "") -> list[Finding]:
    """What ``pubcli fmt --check`` reports, one finding per entry or gap not in the form,
    in file order (for :func:`pubcli.render.ci.findings`)."""
    from pubcli.usecases.checks import Finding

    out = []
    for c in plan.changes:
        what = f" (normalises {', '.join(c.fields)})" if c.fields else ""
        out.append(Finding(c.line, c.record.key, None, "fmt",
                           f"entry '{c.record.key}' is not in the canonical form{what}"))
    for line in plan.spacing:
        out.append(Finding(line, None, None, "fmt-spacing",
                           "the white space before this entry is not the form's blank lines"))
    for line, n in plan.moved:
        out.append(Finding(line, None, None, "fmt-order",
                           f"the entries from here are not in {sort or 'the form'}'s order "
                           f"({n} would move)"))
    out.sort(key=lambda f: f.line)
    return out


def _selected(library: Library, keys: list[str] | None) -> set[int] | None:
    if keys is None:
        return None
    chosen: set[int] = set()
    for key in keys:
        found = library.find(key)
        if not found:
            raise NotFound(f"no entry with key '{key}'", path=library.path)
        chosen.update(id(r) for r in found)
    return chosen


def _runs(library: Library, text: str) -> list[list[Record]]:
    """Runs of entries with only white space between them (read-only ones break runs)."""
    runs: list[list[Record]] = []
    prev: Record | None = None
    for rec in library.records:
        src = rec.source
        if src is None or src.read_only:
            prev = None
            continue
        if prev is not None and not text[prev.source.end:src.start].strip(" \t\r\n"):  # type: ignore[union-attr]
            runs[-1].append(rec)
        else:
            runs.append([rec])
        prev = rec
    return [r for r in runs if len(r) > 1]


def _sorted(run: list[Record], sort: str) -> list[Record]:
    if sort == "key":
        order = sorted(run, key=lambda r: r.key.casefold())
    elif sort == "year":  # newest first; no year last
        order = sorted(run, key=lambda r: (-(r.year or -10**6), r.key.casefold()))
    else:
        order = sorted(run, key=lambda r: (r.type, r.key.casefold()))
    return _parents_last(order)


def _parents_last(order: list[Record]) -> list[Record]:
    """Move each entry another one names in ``crossref`` after the last one naming it."""
    by_key = {r.key.casefold(): r for r in order}
    children: dict[int, list[Record]] = {}
    for r in order:
        parent = by_key.get(r.fields.get("crossref", "").strip().casefold())
        if parent is not None and parent is not r:
            children.setdefault(id(parent), []).append(r)
    if not children:
        return order
    out = [r for r in order if id(r) not in children]
    pending = [r for r in order if id(r) in children]
    for _ in range(len(pending) + 1):  # parents of parents: settle in a few passes
        rest = []
        for p in pending:
            kids = children[id(p)]
            if all(any(k is x for x in out) for k in kids):
                last = max(i for i, x in enumerate(out) if any(k is x for k in kids))
                out.insert(last + 1, p)
            else:
                rest.append(p)
        pending = rest
        if not pending:
            break
    return out + pending
