"""BibTeX text <-> pubcli records. The only module that imports bibtexparser.

:func:`parse` splits a document with bibtexparser 2's splitter and keeps, for
every entry, where its text sits in the document and how each field was
written. That is what lets the store write an unchanged file back byte for
byte and rewrite one entry without touching the others:

* :func:`patch_entry` edits an entry's own text: a changed value replaces that
  value only, a removed field takes its separator with it, a new field is added
  after the last one in the entry's own indentation style;
* :func:`format_entry` writes a new entry;
* text the splitter cannot read is never rewritten: it stays in the document as
  it was, and :func:`parse` reports it with its line.
"""

from __future__ import annotations

import gc
import logging
import re
from dataclasses import dataclass, field
from typing import Mapping

from .errors import ValidationError
from .model import Record

# bibtexparser logs every syntax error on the root of its logger tree; without
# a handler, Python would print them to stderr. pubcli reports them itself.
_log = logging.getLogger("bibtexparser")
_log.addHandler(logging.NullHandler())
_log.propagate = False

MONTH_MACROS = {
    "jan": "January", "feb": "February", "mar": "March", "apr": "April", "may": "May",
    "jun": "June", "jul": "July", "aug": "August", "sep": "September", "oct": "October",
    "nov": "November", "dec": "December",
}

def parser_version() -> str:
    """bibtexparser's version: what a cached parse depends on besides pubcli's own."""
    import bibtexparser

    return str(bibtexparser.__version__)


#: Source.read_only for an entry without a key (``@article{,``): kept and reported.
KEYLESS = "no citation key"

KEY_RE = re.compile(r"^[^\s,{}()\"'#%~\\=]+$")
FIELD_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_:.+-]*$")


@dataclass(slots=True)
class Source:
    """Where an entry sits in its document and how it was written."""

    start: int
    end: int
    type_written: str
    key_written: str
    fields: tuple[tuple[str, str], ...]  # (name as written, value as written)
    newline: str = "\n"
    read_only: str = ""  # why the entry must not be patched (e.g. duplicate fields)


@dataclass(slots=True)
class Failed:
    """A block the parser could not read; kept verbatim in the file."""

    line: int
    start: int
    raw: str
    reason: str


@dataclass(slots=True)
class Parsed:
    records: list[Record] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    macros: dict[str, str] = field(default_factory=dict)
    newline: str = "\n"


# ---------------------------------------------------------------- values
def _split_concat(raw: str) -> list[str] | None:
    """Split a field value on top-level ``#``; None when braces are unbalanced."""
    parts: list[str] = []
    depth = 0
    in_quote = False
    start = 0
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "\\" and i + 1 < n:
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return None
        elif c == '"' and depth == 0:
            in_quote = not in_quote
        elif c == "#" and depth == 0 and not in_quote:
            parts.append(raw[start:i].strip())
            start = i + 1
        i += 1
    if depth != 0 or in_quote:
        return None
    parts.append(raw[start:].strip())
    return parts


def evaluate(raw: str, macros: Mapping[str, str]) -> str:
    """The value of a field as BibTeX sees it: enclosing braces or quotes
    removed, ``#`` concatenation done, ``@string`` and month macros expanded.
    An unknown macro is kept as its name."""
    raw = raw.strip()
    if not raw:
        return ""
    first = raw[0]
    if "#" not in raw:
        if first == "{" and raw[-1] == "}":
            return raw[1:-1]
        if first == '"' and raw[-1] == '"' and len(raw) >= 2:
            return raw[1:-1]
        if raw.isdigit():
            return raw
    parts = _split_concat(raw)
    if parts is None:
        return raw
    out = []
    for part in parts:
        if len(part) >= 2 and part[0] == "{" and part[-1] == "}":
            out.append(part[1:-1])
        elif len(part) >= 2 and part[0] == '"' and part[-1] == '"':
            out.append(part[1:-1])
        elif part.isdigit():
            out.append(part)
        else:
            name = part.lower()
            if name in macros:
                out.append(macros[name])
            elif name in MONTH_MACROS:
                out.append(MONTH_MACROS[name])
            else:
                out.append(part)
    return "".join(out)


def braces_balanced(value: str) -> bool:
    depth = 0
    prev = ""
    for c in value:
        if c == "{" and prev != "\\":
            depth += 1
        elif c == "}" and prev != "\\":
            depth -= 1
            if depth < 0:
                return False
        prev = c
    return depth == 0


# ---------------------------------------------------------------- parsing
# The splitter of bibtexparser walks every brace, comma and newline in Python,
# which costs about a second per 10k entries. pubcli cuts the document where
# a block starts at the beginning of a line (the splitter itself restarts
# there: an unfinished block is closed at such an "@", so the pieces split
# exactly as the whole document would) and reads each piece with a regular
# expression when it is one plain entry; any other piece (comments, @string,
# @preamble, parentheses, escaped braces, broken syntax...) goes to the
# splitter. tests/test_bibtex.py checks both paths give the same result.

def _nested_braces(depth: int) -> str:
    atom = r"[^{}\\@]++|\\[^{}\\@]"
    inner = f"(?:{atom})*+"
    for _ in range(depth):
        inner = f"(?:{atom}|\\{{{inner}\\}})*+"
    return inner


_BRACED = r"\{" + _nested_braces(6) + r"\}"
_QUOTED = r'"(?:[^"{}\\@]++|\\[^"{}\\@])*+"'
_BARE = r"[A-Za-z0-9_.:+/-]++"
_PIECE = f"(?:{_BRACED}|{_QUOTED}|{_BARE})"
_FAST_HEAD = re.compile(r"@(\w+)[ \t]*\{\s*([^\s,{}()\"=@#%\\]+)\s*,")
_FAST_FIELD = re.compile(
    r"\s*([A-Za-z0-9_:.+/-]+)\s*=\s*(" + _PIECE + r"(?:\s*#\s*" + _PIECE + r")*+)\s*(,|(?=\}))")
_FAST_END = re.compile(r"\s*\}")
_BLOCK_AT_LINE_START = re.compile(r"\n[^\S\n]*(@\w*[ \t]*[{(])")
_SPECIAL_TYPES = frozenset({"comment", "string", "preamble"})
_SENTINEL = "@comment{}"


def _fast_entry(text: str, start: int, stop: int):
    """(type, key, fields, end) when text[start:stop] is one plain entry
    followed by comment text without "@"; None when the splitter must read it."""
    m = _FAST_HEAD.match(text, start, stop)
    if not m or m.group(1).lower() in _SPECIAL_TYPES:
        return None
    pos = m.end()
    fields = []
    names = set()
    match_field = _FAST_FIELD.match
    while True:
        f = match_field(text, pos, stop)
        if f is None:
            break
        name = f.group(1)
        if name in names:
            return None
        names.add(name)
        fields.append((name, f.group(2)))
        pos = f.end()
        if f.group(3) != ",":
            break
    e = _FAST_END.match(text, pos, stop)
    if e is None or "@" in text[e.end():stop]:
        return None
    return m.group(1).lower(), m.group(2), fields, e.end()


def _regions(text: str) -> list[int]:
    starts = [0]
    starts += [m.start(1) for m in _BLOCK_AT_LINE_START.finditer(text)]
    return starts


def parse(text: str, *, fast: bool = True, macros: Mapping[str, str] | None = None) -> Parsed:
    """Parse a whole document (a str without BOM). Never raises on bad BibTeX.
    ``macros`` are @string values known before the text starts."""
    # Building 100k records trips the cyclic GC over and over, for nothing:
    # nothing here forms cycles. Pausing it halves the time on big files.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, fast, macros)
    finally:
        if was_enabled:
            gc.enable()


def _parse(text: str, fast: bool, macros: Mapping[str, str] | None) -> Parsed:
    newline = "\r\n" if "\r\n" in text else "\n"
    out = Parsed(newline=newline)
    if macros:
        out.macros.update(macros)
    if not fast:
        _parse_with_splitter(text, 0, 0, out)
        return out
    starts = _regions(text)
    starts.append(len(text))
    line = 0
    slow_from = None  # start of a run of pieces for the splitter
    slow_line = 0
    records = out.records
    macros = out.macros
    for i in range(len(starts) - 1):
        start, stop = starts[i], starts[i + 1]
        got = _fast_entry(text, start, stop) if text.startswith("@", start) else None
        if got is None:
            if slow_from is None:
                slow_from, slow_line = start, line
        else:
            if slow_from is not None:
                # The "@comment{}" makes an unfinished block end the way it does in
                # the whole document ("unexpected block start"), not at end of file.
                _parse_with_splitter(text[slow_from:start] + _SENTINEL, slow_from, slow_line,
                                     out)
                slow_from = None
            etype, key, fields_written, end = got
            values: dict[str, str] = {}
            for name, value in fields_written:
                values[name.lower()] = evaluate(value, macros)
            src = Source(start, end, etype, key, tuple(fields_written), newline, "")
            records.append(Record(key, etype, values, line + 1, src))
        line += text.count("\n", start, stop)
    if slow_from is not None:
        _parse_with_splitter(text[slow_from:], slow_from, slow_line, out)
    return out


def _parse_with_splitter(text: str, offset: int, line_offset: int, out: Parsed) -> None:
    """Read ``text`` (which starts at ``offset``/``line_offset`` in the document)
    with bibtexparser's splitter and append what it finds to ``out``."""
    # imported here: a clean file never needs it, and it costs start-up time
    from bibtexparser import model as _bm
    from bibtexparser.splitter import Splitter

    lib = Splitter(text).split()
    macros = out.macros
    newline = out.newline
    cursor = 0
    line_at_cursor = 0  # 0-based line number (within text) at ``cursor``
    for block in lib.blocks:
        raw = block.raw or ""
        start_line = block.start_line or 0
        if isinstance(block, _bm.DuplicateBlockKeyBlock):
            # a second entry (or @string) with a taken key: pubcli keeps it as a record
            # and reports the duplicate key itself (store.load), whichever path read it;
            # a second @string redefines the macro, as in BibTeX
            block = block.ignore_error_block
        if isinstance(block, (_bm.ImplicitComment, _bm.ExplicitComment, _bm.Preamble)):
            continue
        if isinstance(block, _bm.String):
            macros[block.key.lower()] = evaluate(block.value, macros)
            continue
        if isinstance(block, _bm.ParsingFailedBlock) and not isinstance(
                block, _bm.DuplicateFieldKeyBlock):
            error = getattr(block, "error", None)
            reason = getattr(error, "abort_reason", None) or str(error or "unreadable block")
            if reason.startswith("Unexpected block start"):
                reason = ("the block is not closed before the next line starting with '@' "
                          "(a missing '}' or '\"'?)")
            pos = text.find(raw, cursor) if raw else -1
            while pos >= 0 and line_at_cursor + text.count("\n", cursor, pos) < start_line:
                pos = text.find(raw, pos + 1)  # an earlier entry may start with the same text
            out.failed.append(Failed(line_offset + start_line + 1,
                                     offset + pos if pos >= 0 else -1, raw, reason.strip()))
            continue
        read_only = ""
        if isinstance(block, _bm.DuplicateFieldKeyBlock):
            entry = block.ignore_error_block
            dups = ", ".join(sorted(block.duplicate_keys))
            read_only = f"duplicate field ({dups})"
            out.warnings.append((line_offset + start_line + 1,
                                 f"entry '{entry.key}' has a duplicate field ({dups}); "
                                 "the first value is used"))
        else:
            entry = block
        if not read_only and not entry.key.strip():
            read_only = KEYLESS
        raw = entry.raw or ""
        # The entry's text is the first occurrence of its raw text at or after
        # the previous entry's end that starts on the line the splitter gives.
        pos = text.find(raw, cursor)
        line = line_at_cursor
        while pos >= 0:
            line = line_at_cursor + text.count("\n", cursor, pos)
            if line >= start_line:
                break
            pos = text.find(raw, pos + 1)
        if pos < 0:  # cannot happen for splitter output; the text stays, report it
            out.failed.append(Failed(line_offset + start_line + 1, -1, raw,
                                     "entry could not be located"))
            continue
        line_at_cursor, cursor = line, pos
        fields_written = tuple((f.key, f.value) for f in entry.fields)
        values: dict[str, str] = {}
        for name, value in fields_written:
            lname = name.lower()
            if lname not in values:
                values[lname] = evaluate(value, macros)
        src = Source(offset + pos, offset + pos + len(raw), entry.entry_type, entry.key,
                     fields_written, newline, read_only)
        out.records.append(Record(entry.key, entry.entry_type, values,
                                  line_offset + line + 1, src))


# ---------------------------------------------------------------- writing
def _check_value(key: str, name: str, value: str) -> None:
    if not FIELD_NAME_RE.match(name):
        raise ValidationError(f"entry '{key}': '{name}' is not a valid BibTeX field name",
                              field=name)
    if not braces_balanced(value):
        raise ValidationError(f"entry '{key}': unbalanced braces in the value {value!r}",
                              field=name)


def check_key(key: str) -> None:
    if not key or not KEY_RE.match(key):
        raise ValidationError(f"'{key}' is not a valid BibTeX key (no spaces, commas, braces, "
                              "quotes, '#', '%', '~', '\\' or '=')")


_MONTH_MACRO_OF = {full: abbr for abbr, full in MONTH_MACROS.items()}


def format_value(value: str, name: str = "") -> str:
    """A value as written in a file: ``{...}``, or the standard macro for a month
    ("May" -> ``may``, which every BibTeX style turns into its own month name)."""
    if name == "month" and value in _MONTH_MACRO_OF:
        return _MONTH_MACRO_OF[value]
    return "{" + value + "}"


def format_entry(record: Record, *, indent: str = "  ", newline: str = "\n") -> str:
    """A new entry in the conventional layout: one field per line, ``name = {value}``."""
    check_key(record.key)
    lines = [f"@{record.type}{{{record.key},"]
    for name, value in record.fields.items():
        _check_value(record.key, name, value)
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
    spans = []
    for name, value in src.fields:
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
    check_key(new.key)
    for name, value in new.fields.items():
        if old.fields.get(name) != value:
            _check_value(new.key, name, value)
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
    n = len(src.fields)
    for i, ((name, value_written), (nstart, vstart, vend)) in enumerate(zip(src.fields, spans)):
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
                while j > 0 and src.fields[j][0].lower() not in new.fields:
                    j -= 1
                kept = src.fields[j][0].lower() in new.fields
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
            eq = raw[spans[0][0] + len(src.fields[0][0]):vstart0]
            last_end = spans[-1][2]
            trailing = re.match(r"[ \t]*,", raw[last_end:])
            if trailing:
                at = last_end + trailing.end()
                text = "".join(f"{nl}{ind}{k}{eq}{format_value(v, k)}," for k, v in added)
            else:
                at = last_end
                text = "".join(f",{nl}{ind}{k}{eq}{format_value(v, k)}" for k, v in added)
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
