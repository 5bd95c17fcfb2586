"""Edits of an entry read from a file that rewrite its own text only.

:func:`patch_entry` edits an entry's text: a changed value replaces that value only, a
removed field takes its separator with it, a new field is added after the field it
follows (or after the last one) in the entry's own indentation style. New entries and
whole entries in a form are :mod:`.form`'s; what may be written, :mod:`.writable`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pubcli.errors import ValidationError
from pubcli.schema.model import Record

from .form import DEFAULT_FORM, Form, format_entry, format_value
from .read import Source
from .writable import _check_written_key, check_value


_FIELD_AT = re.compile(r"[\s,]*([^\s=]+)\s*=\s*")  # a field's name (no space or = in one)


def _locate_fields(raw: str, src: Source,
                   written: tuple[tuple[str, str], ...] | None) -> list[tuple[int, int, int]] | None:
    """(name start, value start, value end) for each ``written`` field, or None."""
    m = re.match(r"@\s*[^{(\s]+\s*[{(]\s*", raw)
    if not m:
        return None
    cursor = m.end()
    if not raw.startswith(src.key_written, cursor):
        return None
    cursor += len(src.key_written)
    if written is None:
        return None
    spans = []
    for name, value in written:
        fm = _FIELD_AT.match(raw, cursor)
        if not fm or fm.group(1) != name:
            return None
        vstart = fm.end()
        if not raw.startswith(value, vstart):
            return None
        spans.append((fm.start(1), vstart, vstart + len(value)))
        cursor = vstart + len(value)
    return spans


def patch_entry(raw: str, src: Source, old: Record, new: Record, macros: Mapping[str, str],
                *, indent: str = "  ", form: Form = DEFAULT_FORM) -> str:
    """Rewrite one entry's text for ``new``, changing as little as possible."""
    if new.key != old.key:
        _check_written_key(new.key)
    for name, value in new.fields.items():
        if old.fields.get(name) != value:
            check_value(new.key, name, value)
    written = src.written(raw) if not src.read_only else None  # read once, used twice
    spans = _locate_fields(raw, src, written) if not src.read_only else None
    if spans is None:
        if src.read_only:
            raise ValidationError(f"entry '{old.key}' (line {old.line}) has a {src.read_only}; "
                                  "fix it by hand before changing it with pubcli")
        return format_entry(new, indent=indent, newline=src.newline, form=form)
    nl = src.newline
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) on raw
    # key and type
    tm = re.match(r"@\s*([^{(\s]+)", raw)
    if tm and new.type != old.type:
        edits.append((tm.start(1), tm.end(1), new.type))
    if new.key != old.key:
        kpos = raw.find(src.key_written, tm.end() if tm else 0)
        edits.append((kpos, kpos + len(src.key_written), new.key))
    seen: set[str] = set()
    written = written or ()
    n = len(written)
    for i, ((name, _value_written), (nstart, vstart, vend)) in enumerate(zip(written, spans, strict=True)):
        lname = name.lower()
        first_time = lname not in seen
        seen.add(lname)
        if not first_time:
            continue
        if lname in new.fields:
            if new.fields[lname] != old.fields.get(lname):
                edits.append((vstart, vend, format_value(new.fields[lname], lname, form)))
        else:
            if i + 1 < n:
                edits.append((nstart, spans[i + 1][0], ""))
            elif i > 0:  # the last field: cut from the end of the last field kept
                j = i - 1
                while j > 0 and written[j][0].lower() not in new.fields:
                    j -= 1
                kept = written[j][0].lower() in new.fields
                edits.append((spans[j][2] if kept else spans[0][0], vend, ""))
            else:
                end = vend
                tail = re.match(r"\s*,", raw[end:])
                if tail:
                    end += tail.end()
                edits.append((nstart, end, ""))
    added = [(k, v) for k, v in new.fields.items() if k not in seen]
    if added:
        if spans:
            nstart0, vstart0, _ = spans[0]
            line_start = raw.rfind("\n", 0, nstart0) + 1
            ind = raw[line_start:nstart0] if raw[line_start:nstart0].isspace() else indent
            eq = raw[spans[0][0] + len(written[0][0]):vstart0]
            # a new field goes after the field it follows in ``new`` (update passes them in
            # the entry's order), when that one is written and another follows it
            index: dict[str, int] = {}
            for i, (name, _) in enumerate(written):
                index.setdefault(name.lower(), i)
            order = list(new.fields)
            placed: dict[int, list[tuple[str, str]]] = {}
            at_end = []
            kept_after = [any(w[0].lower() in new.fields for w in written[i + 1:])
                          for i in range(len(written))]
            for k, v in added:
                before = [f for f in order[:order.index(k)] if f in index]
                anchor = index[before[-1]] if before else None
                if anchor is not None and kept_after[anchor]:
                    placed.setdefault(anchor, []).append((k, v))
                else:
                    at_end.append((k, v))
            for anchor, fields in placed.items():
                comma = re.match(r"[ \t]*,", raw[spans[anchor][2]:])
                if comma is None:  # cannot happen: another field follows it
                    at_end.extend(fields)
                    continue
                at = spans[anchor][2] + comma.end()
                edits.append((at, at, "".join(f"{nl}{ind}{k}{eq}{format_value(v, k, form)},"
                                              for k, v in fields)))
            added = at_end
            last_end = spans[-1][2]
            trailing = re.match(r"[ \t]*,", raw[last_end:])
            if not added:
                pass
            elif trailing:
                at = last_end + trailing.end()
                text = "".join(f"{nl}{ind}{k}{eq}{format_value(v, k, form)}," for k, v in added)
            else:
                at = last_end
                text = "".join(f",{nl}{ind}{k}{eq}{format_value(v, k, form)}" for k, v in added)
            if added:
                edits.append((at, at, text))
        else:
            return format_entry(new, indent=indent, newline=nl, form=form)
    edits.sort(key=lambda e: (e[0], e[1]))
    out = []
    pos = 0
    for s, e, rep in edits:
        out.append(raw[pos:s])
        out.append(rep)
        pos = max(pos, e)
    out.append(raw[pos:])
    return "".join(out)


def detect_indent(text: str) -> str:
    m = re.search(r"\n([ \t]+)[A-Za-z][\w-]*\s*=", text[:20000])
    return m.group(1) if m else "  "
