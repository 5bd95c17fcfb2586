"""Records -> BibTeX text: new entries, and edits that rewrite one entry's own text.

* :func:`patch_entry` edits an entry's text: a changed value replaces that value
  only, a removed field takes its separator with it, a new field is added after
  the last one in the entry's own indentation style;
* :func:`format_entry` writes a new entry;
* :func:`writable` is the one rule for a value pubcli writes: balanced by BibTeX's
  count of braces (every ``{`` and ``}``, backslash or not), so that BibTeX reads
  the field back as meant and nothing after it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping

from ..errors import ValidationError
from ..model import Record
from .read import IDENT_RE, MONTH_MACROS, Source

# A key pubcli gives an entry (add --key, rename): one BibTeX reads whole and LaTeX can
# \cite: no white space or control characters, none of , { } ( ) " # % ~ \\ = $ & ^.
# Keys read from a file are kept as written whenever BibTeX reads them (see READ_KEY_RE).
KEY_RE = re.compile(r"^[^\s,{}()\"#%~\\=$&^\x00-\x1f\x7f]+$")
#: what BibTeX reads as the key of a ``{`` entry (up to a comma, white space or '}'),
#: without control characters
READ_KEY_RE = re.compile(r"^[^,}\s\x00-\x1f\x7f]+$")
#: a key kept as written from a file: BibTeX reads it whole and LaTeX's \\cite takes it
#: (no '%', which comments out the rest of the line, no '#', '~', '\\', '{' or '}')
CITABLE_KEY_RE = re.compile(r"^[^,{}%#~\\\s\x00-\x1f\x7f]+$")
# a field name pubcli writes: a BibTeX identifier in ASCII (JabRef's __markedentry too)
FIELD_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_:.+-]*$")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def braces_balanced(value: str) -> bool:
    """Whether BibTeX reads ``{value}`` as this value and nothing more: every brace
    counts, escaped or not (``\\}`` closes a group for BibTeX)."""
    depth = 0
    for m in _BRACES.finditer(value):
        depth += 1 if m.group() == "{" else -1
        if depth < 0:
            return False
    return depth == 0


_BRACES = re.compile(r"[{}]")
_ESCAPED_OR_BARE = re.compile(r"\\\\|\\[{}]|[{}]")
_AT_LINE = re.compile(r"[ \t\r\n]*[\r\n][ \t]*(?=@)")


def writable(value: str) -> str:
    """``value`` (LaTeX) as pubcli writes it, meaning the same to LaTeX and read whole by
    BibTeX: an escaped brace without a partner (``\\}`` in a title from a web service)
    becomes ``\\textbraceright{}`` / ``\\textbraceleft{}``, and a line starting with
    ``@`` is joined to the line before (BibTeX reads the break as a space either way; a
    reader that lost its way restarts at such a line). A bare brace without a partner
    is refused by :func:`check_value`."""
    if "\n" in value or "\r" in value:
        value = _AT_LINE.sub(" ", value)
    if braces_balanced(value):
        return value
    tokens = list(_ESCAPED_OR_BARE.finditer(value))
    # escaped braces pair up within one group of bare braces (LaTeX's groups); the
    # bare ones must pair up by themselves, or check_value refuses the value
    frames: list[list[int]] = [[]]  # per open bare group: its unpaired escaped '{'
    fix: set[int] = set()
    for i, m in enumerate(tokens):
        t = m.group()
        if t == "{":
            frames.append([])
        elif t == "}":
            if len(frames) > 1:
                fix.update(frames.pop())
        elif t == "\\{":
            frames[-1].append(i)
        elif t == "\\}":
            if frames[-1]:
                frames[-1].pop()
            else:
                fix.add(i)
    for frame in frames:
        fix.update(frame)
    if not fix:
        return value
    out, pos = [], 0
    for i in sorted(fix):
        m = tokens[i]
        out.append(value[pos:m.start()])
        out.append("\\textbraceleft{}" if m.group().endswith("{") else "\\textbraceright{}")
        pos = m.end()
    out.append(value[pos:])
    return "".join(out)


def check_value(key: str, name: str, value: str, *, path: str | Path | None = None,
                line: int | None = None) -> None:
    """Refuse a field pubcli cannot write so that BibTeX reads it back as meant (the one
    rule add, edit, import, update and sync ask): a BibTeX field name, braces that
    pair up once :func:`writable` has fixed escaped ones, no control characters."""
    entry = f"entry '{key}': " if key else ""
    if not FIELD_NAME_RE.match(name):
        raise ValidationError(f"{entry}'{name}' is not a valid BibTeX field name",
                              path=path, line=line, field=name)
    if not braces_balanced(writable(value)):
        raise ValidationError(f"{entry}unbalanced braces in the value {value!r} "
                              "(BibTeX counts every brace; write a literal one as "
                              "\\{ and \\} in pairs, or \\textbraceleft{} and "
                              "\\textbraceright{})", path=path, line=line, field=name)
    if _CONTROL_RE.search(value):
        raise ValidationError(f"{entry}the value of '{name}' contains a control "
                              "character", path=path, line=line, field=name)


def check_key(key: str) -> None:
    """Refuse a key pubcli would give an entry that BibTeX or LaTeX cannot cite."""
    if not key or not KEY_RE.match(key):
        shown = _CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", key)
        raise ValidationError(f"'{shown}' is not a valid BibTeX key (no spaces, control "
                              "characters, commas, braces, parentheses, quotes, "
                              "'#', '%', '~', '\\', '=', '$', '&' or '^')")


_MONTH_MACRO_OF = {full: abbr for abbr, full in MONTH_MACROS.items()}


def format_value(value: str, name: str = "") -> str:
    """A value as written in a file: ``{...}``, or the standard macro for a month
    ("May" -> ``may``, which every BibTeX style turns into its own month name)."""
    if name == "month" and value in _MONTH_MACRO_OF:
        return _MONTH_MACRO_OF[value]
    return "{" + writable(value) + "}"


def _check_written_key(key: str) -> None:
    """The writer writes any key BibTeX reads back whole (``abnt-etal=2``, ``O'Hara_1999``:
    keys kept from a file); a key pubcli makes or a user gives passed :func:`check_key`."""
    if not READ_KEY_RE.match(key):
        check_key(key)  # raises, naming what a key may not hold


def format_entry(record: Record, *, indent: str = "  ", newline: str = "\n") -> str:
    """A new entry in the conventional layout: one field per line, ``name = {value}``."""
    _check_written_key(record.key)
    lines = [f"@{record.type}{{{record.key},"]
    for name, value in record.fields.items():
        check_value(record.key, name, value)
        lines.append(f"{indent}{name} = {format_value(value, name)},")
    lines.append("}")
    return newline.join(lines)


def _locate_fields(raw: str, src: Source) -> list[tuple[int, int, int]] | None:
    """(name start, value start, value end) for each written field, or None."""
    m = re.match(r"@\s*[^{(\s]+\s*[{(]\s*", raw)
    if not m:
        return None
    cursor = m.end()
    if not raw.startswith(src.key_written, cursor):
        return None
    cursor += len(src.key_written)
    written = src.written(raw)
    if written is None:
        return None
    spans = []
    for name, value in written:
        fm = re.compile(r"[\s,]*(" + re.escape(name) + r")\s*=\s*").match(raw, cursor)
        if not fm:
            return None
        vstart = fm.end()
        if not raw.startswith(value, vstart):
            return None
        spans.append((fm.start(1), vstart, vstart + len(value)))
        cursor = vstart + len(value)
    return spans


def patch_entry(raw: str, src: Source, old: Record, new: Record, macros: Mapping[str, str],
                *, indent: str = "  ") -> str:
    """Rewrite one entry's text for ``new``, changing as little as possible."""
    if new.key != old.key:
        _check_written_key(new.key)
    for name, value in new.fields.items():
        if old.fields.get(name) != value:
            check_value(new.key, name, value)
    spans = _locate_fields(raw, src) if not src.read_only else None
    if spans is None:
        if src.read_only:
            raise ValidationError(f"entry '{old.key}' (line {old.line}) has a {src.read_only}; "
                                  "fix it by hand before changing it with pubcli")
        return format_entry(new, indent=indent, newline=src.newline)
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
    written = src.written(raw) or ()
    n = len(written)
    for i, ((name, value_written), (nstart, vstart, vend)) in enumerate(zip(written, spans)):
        lname = name.lower()
        first_time = lname not in seen
        seen.add(lname)
        if not first_time:
            continue
        if lname in new.fields:
            if new.fields[lname] != old.fields.get(lname):
                edits.append((vstart, vend, format_value(new.fields[lname], lname)))
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
                edits.append((at, at, "".join(f"{nl}{ind}{k}{eq}{format_value(v, k)},"
                                              for k, v in fields)))
            added = at_end
            last_end = spans[-1][2]
            trailing = re.match(r"[ \t]*,", raw[last_end:])
            if not added:
                pass
            elif trailing:
                at = last_end + trailing.end()
                text = "".join(f"{nl}{ind}{k}{eq}{format_value(v, k)}," for k, v in added)
            else:
                at = last_end
                text = "".join(f",{nl}{ind}{k}{eq}{format_value(v, k)}" for k, v in added)
            if added:
                edits.append((at, at, text))
        else:
            return format_entry(new, indent=indent, newline=nl)
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
