"""The safety properties of ``pubcli fmt`` on one text, with BibTeX as the judge
(shared by bench/bench_fmt.py and tests/test_fmt.py).

* :func:`check_text` formats a text in a form and reports: whether formatting the result
  again changes nothing (idempotent), whether everything between entries that is not
  white space (comments, ``@string``, ``@preamble``, unreadable blocks) is byte for byte
  the same, and, with the real ``bibtex`` (``tests/bibtex_oracle.py``), every entry whose
  reading changed in a field the plan does not name as normalised (or dropped).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import bibtex_oracle as oracle  # noqa: E402


def between(text: str, records) -> list[str]:
    """The text between entries (and before the first and after the last) that is not
    white space only, in order."""
    out, pos = [], 0
    for rec in sorted((r for r in records if r.source is not None),
                      key=lambda r: r.source.start):
        piece = text[pos:rec.source.start]
        if piece.strip(" \t\r\n"):
            out.append(piece)
        pos = max(pos, rec.source.end)
    if text[pos:].strip(" \t\r\n"):
        out.append(text[pos:])
    return out


def _stripped(pieces: list[str]) -> list[str]:
    # the white space at the two ends of a piece is the gap the form sets
    return [p.strip(" \t\r\n") for p in pieces]


def check_text(text: str, form, *, sort: str | None = None, use_oracle: bool = True) -> dict:
    from pubcli.usecases import fmt
    from pubcli import store
    from pubcli.store.save import rewrite_text

    lib = store.loads(text)
    plan = fmt.plan(lib, form, sort=sort)
    # what the store would write: read back and checked against the plan's readings
    new = rewrite_text(lib, plan.edits, plan.expected) if plan.edits else text
    assert new == plan.apply(text)
    lib2 = store.loads(new)
    again = fmt.plan(lib2, form, sort=sort)
    out = {
        "entries": len(lib.records),
        "changed": len(plan.changes),
        "skipped": len(plan.skipped),
        "bugs": [s for s in plan.skipped if "a bug" in s.reason],
        "idempotent": again.clean and again.apply(new) == new,
        "kept_between": _stripped(between(text, lib.records)) ==
        _stripped(between(new, lib2.records)),
        "new": new,
        "plan": plan,
        "reading_changed": [],
    }
    if use_oracle and plan.edits:
        out["reading_changed"] = reading_changes(text, new, plan)
    return out


def reading_changes(text: str, new: str, plan) -> list[str]:
    """Entries whose BibTeX reading differs between ``text`` and ``new`` in a way the
    plan does not name (a field it normalises or drops)."""
    before, after = oracle.read(text), oracle.read(new)
    allowed: dict[str, set[str]] = {}
    for c in plan.changes:
        allowed.setdefault(oracle._lower(c.record.key), set()).update(c.fields)
    a = {oracle._lower(e.key): e for e in before.entries}
    b = {oracle._lower(e.key): e for e in after.entries}
    out = []
    for k in a.keys() | b.keys():
        if k not in a or k not in b:
            out.append(f"{k}: {'gone' if k in a else 'new'}")
            continue
        ea, eb = a[k], b[k]
        if ea.type != eb.type:
            out.append(f"{k}: type {ea.type} -> {eb.type}")
        ok = allowed.get(k, set())
        for name in ea.fields.keys() | eb.fields.keys():
            if name in ok:
                continue
            if ea.fields.get(name) != eb.fields.get(name):
                out.append(f"{k}.{name}: {ea.fields.get(name)!r} -> {eb.fields.get(name)!r}")
    if not plan.moved:  # without a sort, BibTeX reads the entries in the same order
        if [oracle._lower(e.key) for e in before.entries] != \
                [oracle._lower(e.key) for e in after.entries]:
            out.append("the entries' order changed")
    return sorted(out)
