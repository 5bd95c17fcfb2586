"""Records -> BibTeX text: new entries, and edits that rewrite one entry's own text.

* :func:`patch_entry` edits an entry's text: a changed value replaces that value
  only, a removed field takes its separator with it, a new field is added after
  the last one in the entry's own indentation style;
* :func:`format_entry` writes a new entry in a :class:`Form` (``[fmt]`` of pubcli.toml;
  by default the layout pubcli has always written), :func:`format_written` rewrites an
  entry read from a file in a form (``pubcli fmt``), keeping what BibTeX reads;
* :func:`writable` is the one rule for a value pubcli writes: balanced by BibTeX's
  count of braces (every ``{`` and ``}``, backslash or not), so that BibTeX reads
  the field back as meant and nothing after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, NamedTuple

from ..errors import ValidationError
from pubcli.schema.model import Record
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


@dataclass(frozen=True)
class Form:
    """How pubcli writes an entry: the canonical form of ``pubcli fmt`` and the form in
    which add, import, update and sync write new entries and fields (``[fmt]`` in
    pubcli.toml, read by :func:`pubcli.local.config.load_config`). The defaults are the
    layout pubcli has always written.

    Layout (never changes what BibTeX reads): ``indent`` (None: the file's own),
    ``quotes`` (values in ``"..."`` rather than ``{...}`` where BibTeX reads it the
    same), ``align`` (``=`` in one column), ``trailing_comma``, ``order`` (these fields
    first, in this order; the others after them as written), ``lowercase`` (field names
    and entry types), ``blank_lines`` between entries (None: kept), ``sort``.
    Normalisations (what BibTeX reads changes, as configured): ``months`` (a month as
    its macro ``jan``), ``pages`` (ranges with ``--``), ``bare_doi`` (no resolver
    prefix), ``drop`` (fields removed), ``encoding`` ("latex": Unicode letters as LaTeX
    accents, "unicode": the other way, "": neither), ``protect`` ("acronyms": the
    words of a title a style would lower-case are braced).
    """

    indent: str | None = None
    quotes: bool = False
    align: bool = False
    trailing_comma: bool = True
    order: tuple[str, ...] = ()
    lowercase: bool = True
    blank_lines: int | None = 1
    sort: str = ""  # "", "key", "year" or "type"
    months: bool = True
    pages: bool = False
    bare_doi: bool = False
    drop: tuple[str, ...] = ()
    encoding: str = ""  # "", "latex" or "unicode"
    protect: str = ""  # "" or "acronyms"


DEFAULT_FORM = Form()
SORTS = ("key", "year", "type")
ENCODINGS = ("latex", "unicode")
PROTECTS = ("acronyms",)
#: fields that are not text (links, identifiers, keys, pubcli's areas): no encoding
_NOT_TEXT = frozenset({"doi", "eprint", "file", "pdf", "isbn", "issn", "keywords", "crossref",
                       "xdata", "ids", "related", "key", "slides", "code", "video", "poster"})
#: the fields whose words protect = "acronyms" braces (the titles styles lower-case)
TITLE_FIELDS = ("title", "subtitle", "titleaddon")
# a page range: two page numbers (letters and digits, one digit at least) joined by a
# hyphen, en or em dash in any of their spellings
_PAGE_RANGE = re.compile(r"(?<![\w-])([A-Za-z]*[0-9][0-9A-Za-z.]*?)[ \t]*(?:-{1,3}|\u2013|\u2014|"
                         r"\\textendash(?:\{\}|\b)[ \t]*)[ \t]*([A-Za-z]*[0-9][0-9A-Za-z]*)(?![\w-])")


def normalise(name: str, value: str, form: Form = DEFAULT_FORM) -> str:
    """A field's value (LaTeX, as read) in ``form``: the page range, DOI, encoding and
    case protection the form asks for (the month macro is :func:`format_value`'s).
    Idempotent: normalising a normalised value gives it back."""
    if form.pages and name == "pages":
        value = _dashed(value)
    if form.bare_doi and name == "doi":
        from pubcli.schema.values import parse_doi

        doi = parse_doi(value)
        if doi is not None and braces_balanced(doi):
            value = doi
    if form.encoding and not (name in _NOT_TEXT or name.startswith("url")):
        from pubcli.text import encode

        value = encode.to_latex(value) if form.encoding == "latex" else \
            encode.to_unicode(value)
    if form.protect and name in TITLE_FIELDS:
        from pubcli.text.encode import protect_case

        value = protect_case(value)
    return value


def in_form(fields: Mapping[str, str], form: Form = DEFAULT_FORM) -> dict[str, str]:
    """The fields of a new entry as ``form`` writes them: normalised
    (:func:`normalise`), dropped fields left out. The store gives a new record these
    fields before writing it, so the library in memory says what the file says."""
    if form == DEFAULT_FORM:
        return dict(fields)
    drop = set(form.drop)
    return {k: normalise(k, v, form) for k, v in fields.items() if k not in drop}


def _dashed(value: str) -> str:
    return _PAGE_RANGE.sub(r"\1--\2", value)


def month_macro(value: str) -> str | None:
    """The standard macro (``may``) for a month written ``May``, ``may``, ``May.`` or
    ``5``; None when the value is not one month so written."""
    if value in _MONTH_MACRO_OF:
        return _MONTH_MACRO_OF[value]
    from pubcli.schema.values import parse_month

    v = value.strip().lower().rstrip(".")
    n = parse_month(v) if len(v) < 10 else None
    if n is None:
        return None
    abbr = list(MONTH_MACROS)[n - 1]
    return abbr if v.isdigit() or v in (abbr, MONTH_MACROS[abbr].lower()) else None


def _check_written_key(key: str) -> None:
    """The writer writes any key BibTeX reads back whole (``abnt-etal=2``, ``O'Hara_1999``:
    keys kept from a file); a key pubcli makes or a user gives passed :func:`check_key`."""
    if not READ_KEY_RE.match(key):
        check_key(key)  # raises, naming what a key may not hold


def format_value(value: str, name: str = "", form: Form = DEFAULT_FORM) -> str:
    """A value as written in a file: ``{...}`` (or ``"..."`` in a form with quotes
    where BibTeX reads it the same), or the standard macro for a month ("May" ->
    ``may``, which every BibTeX style turns into its own month name)."""
    if name == "month" and form.months and value in _MONTH_MACRO_OF:
        return _MONTH_MACRO_OF[value]
    value = writable(value)
    if form.quotes and _quotable(value):
        return '"' + value + '"'
    return "{" + value + "}"


def _quotable(value: str) -> bool:
    """Whether ``"value"`` reads as ``{value}``: no ``"`` outside braces."""
    depth = 0
    for m in _BRACE_OR_QUOTE.finditer(value):
        g = m.group()
        if g == '"':
            if depth == 0:
                return False
        else:
            depth += 1 if g == "{" else -1
    return True


_BRACE_OR_QUOTE = re.compile(r'[{}"]')


def _field_lines(items: list[tuple[str, str]], indent: str, form: Form) -> list[str]:
    """``name = value`` lines (values already written), aligned and comma'd as asked."""
    width = max((len(n) for n, _ in items), default=0) if form.align else 0
    out = []
    for i, (name, written) in enumerate(items):
        comma = "," if form.trailing_comma or i + 1 < len(items) else ""
        out.append(f"{indent}{name.ljust(width)} = {written}{comma}")
    return out


def ordered(names: list[str], form: Form) -> list[int]:
    """Indices of ``names`` in the form's order: the ones ``form.order`` lists first,
    in its order, then the others as they come."""
    if not form.order:
        return list(range(len(names)))
    rank = {n: i for i, n in enumerate(form.order)}
    return sorted(range(len(names)), key=lambda i: rank.get(names[i].lower(), len(rank)))


def format_entry(record: Record, *, indent: str = "  ", newline: str = "\n",
                 form: Form = DEFAULT_FORM) -> str:
    """A new entry in ``form`` (by default the conventional layout: one field per line,
    ``name = {value}``). ``indent`` is the file's, unless the form sets one."""
    _check_written_key(record.key)
    indent = form.indent if form.indent is not None else indent
    items = []
    for name, value in in_form(record.fields, form).items():
        check_value(record.key, name, value)
        items.append((name, format_value(value, name, form)))
    items = [items[i] for i in ordered([n for n, _ in items], form)]
    lines = [f"@{record.type}{{{record.key},", *_field_lines(items, indent, form), "}"]
    return newline.join(lines)


class Rewritten(NamedTuple):
    """An entry in a form (:func:`rewrite_written`): its text, and the fields whose
    reading the form changes (name -> the new value; None for a dropped field)."""

    text: str
    changed: dict[str, str | None]


def format_written(raw: str, src: Source, form: Form, macros: Mapping[str, str],
                   indent: str = "  ", newline: str = "\n") -> str | None:
    """An entry read from a file, ``raw`` its text, rewritten in ``form`` (see
    :func:`rewrite_written`); None when it cannot be."""
    done = rewrite_written(raw, src, form, macros, indent, newline)
    return done.text if done is not None else None


def rewrite_written(raw: str, src: Source, form: Form, macros: Mapping[str, str],
                    indent: str = "  ", newline: str = "\n") -> Rewritten | None:
    """An entry read from a file, ``raw`` its text, rewritten in ``form``: what each
    value reads as is kept (macros, ``#`` concatenations and numbers as written, a
    quoted value braced or a braced one quoted where BibTeX reads it the same), except
    the normalisations the form asks for (:func:`normalise`, the month macro, dropped
    fields); the key as written. None when the entry cannot be rewritten (read-only,
    or not one entry BibTeX reads whole)."""
    from .read import read_entry

    if src.read_only:
        return None
    if src.fields is not None:  # as the reader found them in this text
        fields: tuple[tuple[str, str], ...] = src.fields
        values: tuple[list[tuple[str, str]] | None, ...] = tuple(
            None if _single(w) else _SEVERAL for _, w in fields)
        type_written = _type_as_written(raw)
    else:
        entry = read_entry(raw)
        if entry is None or entry.end != len(raw):
            return None
        fields, values, type_written = entry.fields, entry.values, entry.type_written
    indent = form.indent if form.indent is not None else indent
    drop = form.drop
    lower = form.lowercase
    plain = not (form.quotes or form.pages or form.bare_doi or form.encoding or form.protect)
    changed: dict[str, str | None] = {}
    items: list[tuple[str, str]] = []
    for (name, written), tokens in zip(fields, values):
        lname = name.lower()
        if drop and lname in drop:
            changed.setdefault(lname, None)
            continue
        c = written[0]
        if tokens is None and c == "{" and plain and lname != "month":
            items.append((lname if lower else name, written))  # the common case
            continue
        one = tokens is None and c in '{"' or tokens is not None and len(tokens) == 1 \
            and tokens[0][0] == "{"
        if one:
            value = written[1:-1] if tokens is None else tokens[0][1]
            new, reading = _string_value(lname, value, form, macros)
            if reading != value and lname not in changed:
                changed[lname] = reading
        elif lname == "month" and form.months and tokens is None and c not in "0123456789" \
                and written.lower() in MONTH_MACROS and written.lower() not in macros:
            new = written.lower()
        else:
            new = written  # a number, a macro, a concatenation: as written
        items.append((lname if lower else name, new))
    if form.order:
        items = [items[i] for i in ordered([n for n, _ in items], form)]
    etype = src.type_written.lower() if lower else type_written
    key = src.key_written
    opener, closer = ("{", "}") if "}" not in key else ("(", ")")
    lines = [f"@{etype}{opener}{key},", *_field_lines(items, indent, form), closer]
    return Rewritten(newline.join(lines), changed)


def canonical_re(form: Form, indent: str, newline: str) -> re.Pattern[str] | None:
    """A pattern that matches (from its ``@``) an entry :func:`rewrite_written` leaves
    exactly as it is, for the common layouts: a fast way past the entries already in
    the form. It may miss some (they go the long way); with the value normalisations
    of the form (pages, DOIs, encoding, protection), ask :func:`values_in_form` too.
    None for forms it does not cover (quotes, alignment, a field order)."""
    if form.quotes or form.align or form.order:
        return None
    ind = re.escape(form.indent if form.indent is not None else indent)
    nl = re.escape(newline)
    ident = (r"(?![0-9])[^A-Z\x00-\x20\x7f\"#%'(),={}]+" if form.lowercase
             else r"(?![0-9])[^\x00-\x20\x7f\"#%'(),={}]+")
    macro = r"(?![0-9])[^\x00-\x20\x7f\"#%'(),={}]+"
    nested = r"[^{}]*+"
    for _ in range(4):
        nested = r"(?:[^{}]++|\{" + nested + r"\})*+"
    value = r"(?:\{" + nested + r"\}|[0-9]++|" + macro + ")"
    guard = ""
    if form.drop:
        guard += "(?!(?i:" + "|".join(map(re.escape, form.drop)) + ") = )"
    if form.months:
        # a month written {May} or as a macro in capitals (JAN) is not in the form
        guard += (r"(?!(?i:month) = (?:\{\s*(?:[A-Za-z]{3,9}\.?|[0-9]{1,2})\s*\}|"
                  r"[^{\"0-9,\r\n]*[A-Z]))")
    one = ind + guard + ident + " = " + value
    if form.trailing_comma:
        body = "(?:" + nl + one + ",)*+"
    else:
        body = "(?:(?:" + nl + one + ",)*+" + nl + one + ")?"
    return re.compile("@" + ident + r"\{[^,}\x00-\x20\x7f]++," + body + nl + r"\}")


#: the fields each value normalisation of a form can change
_NORMALISED = {"pages": ("pages",), "bare_doi": ("doi",), "protect": TITLE_FIELDS}


def values_in_form(fields: Mapping[str, str], form: Form) -> bool:
    """Whether :func:`normalise` leaves every value of ``fields`` as it is."""
    if form.encoding:
        return all(normalise(k, v, form) == v for k, v in fields.items())
    for option, names in _NORMALISED.items():
        if getattr(form, option):
            for name in names:
                v = fields.get(name)
                if v is not None and normalise(name, v, form) != v:
                    return False
    return True


_SEVERAL = [("#", ""), ("#", "")]  # the tokens of a value that is not one token
_NUMBER = re.compile(r"[0-9]+")


def _single(written: str) -> bool:
    """Whether a value as written is one token: a braced or quoted string, a number or a
    macro name (not a ``#`` concatenation)."""
    c = written[0]
    if c == "{" or c == '"':
        inner = written[1:-1]
        if "{" not in inner and "}" not in inner:
            return c == "{" or '"' not in inner
        return braces_balanced(inner) and (c == "{" or _quotable(inner))
    if "0" <= c <= "9":
        return _NUMBER.fullmatch(written) is not None
    return IDENT_RE.fullmatch(written) is not None


def _type_as_written(raw: str) -> str:
    m = re.match(r"@[ \t\r\n]*([^{(\s]+)", raw)
    return m.group(1).rstrip() if m else ""


def _string_value(name: str, value: str, form: Form,
                  macros: Mapping[str, str]) -> tuple[str, str]:
    """One string value (its text between the delimiters) in ``form``: as written, and
    what BibTeX reads from it."""
    if name == "month" and form.months:
        abbr = month_macro(value)
        if abbr is not None and abbr not in macros:
            return abbr, MONTH_MACROS[abbr]
    new = normalise(name, value, form)
    if new != value and not braces_balanced(new):
        new = value
    if form.quotes and _quotable(new):
        return '"' + new + '"', new
    return "{" + new + "}", new


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
    for i, ((name, value_written), (nstart, vstart, vend)) in enumerate(zip(written, spans)):
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
