"""The form pubcli writes entries in (``[fmt]`` of pubcli.toml, ``pubcli fmt``).

* :class:`Form` says how: layout (indent, delimiters, alignment, commas, field order, case)
  and the normalisations that change what BibTeX reads (months, pages, DOIs, dropped
  fields, encoding, case protection), each as configured;
* :func:`format_entry` writes a new entry in a form (by default the layout pubcli has
  always written), :func:`rewrite_written` rewrites an entry read from a file in one,
  keeping what BibTeX reads but for what the form changes (and says it changes);
* :func:`canonical_re` and :func:`values_in_form` find the entries already in a form
  cheaply (``pubcli fmt --check``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from pubcli.schema.model import Record

from .command import (_ENTRY_FAST_RE, _FIELD_PAIRS_RE, _SPECIAL, IDENT_RE, MONTH_MACROS,
                      read_entry)
from .read import Source
from .writable import _check_written_key, braces_balanced, check_value, writable

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
    if form.align:
        width = max((len(n) for n, _ in items), default=0)
        out = [f"{indent}{name.ljust(width)} = {written}," for name, written in items]
    else:
        out = [f"{indent}{name} = {written}," for name, written in items]
    if out and not form.trailing_comma:
        out[-1] = out[-1][:-1]
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
                    indent: str = "  ", newline: str = "\n",
                    as_written: tuple[tuple[str, str], ...] | None = None
                    ) -> Rewritten | None:
    """An entry read from a file, ``raw`` its text, rewritten in ``form``: what each
    value reads as is kept (macros, ``#`` concatenations and numbers as written, a
    quoted value braced or a braced one quoted where BibTeX reads it the same), except
    the normalisations the form asks for (:func:`normalise`, the month macro, dropped
    fields); the key as written. ``as_written``: its fields as written when known (else
    ``src.fields``, else they are read from ``raw``). None when the entry cannot be
    rewritten (read-only, or not one entry BibTeX reads whole)."""
    if src.read_only:
        return None
    lower = form.lowercase
    if as_written is None:
        as_written = src.fields
    values: tuple[list[tuple[str, str]] | None, ...] | None = None  # None: one token each
    if as_written is not None:  # as the reader found them in this text
        fields: tuple[tuple[str, str], ...] = as_written
        # one token unless a '#' joins several (a '#' inside braces or quotes asks)
        single = "#" not in raw  # every value one token
        if not single:
            values = tuple(None if "#" not in w or _single(w) else _SEVERAL for _, w in fields)
        type_written = src.type_written if lower else _type_as_written(raw)
    elif (m := _ENTRY_FAST_RE.match(raw)) is not None and m.end() == len(raw) \
            and m.group(1).lower() not in _SPECIAL:
        # the common shapes, every value one token: read_entry's fast reading, inline
        fields = tuple(_FIELD_PAIRS_RE.findall(raw, m.end(2), m.end()))
        type_written, single = m.group(1), True
    else:
        entry = read_entry(raw)
        if entry is None or entry.end != len(raw):
            return None
        fields, values, type_written = entry.fields, entry.values, entry.type_written
        single = all(v is None for v in values)
    indent = form.indent if form.indent is not None else indent
    changed: dict[str, str | None] = {}
    etype = src.type_written.lower() if lower else type_written
    key = src.key_written
    opener, closer = ("{", "}") if "}" not in key else ("(", ")")
    head = f"@{etype}{opener}{key},"
    plain = not (form.quotes or form.pages or form.bare_doi or form.encoding or form.protect)
    if plain and single and lower and not (form.order or form.align or form.drop):
        # the common case: lines made at once, a braced value that is not a month, or a
        # number, as written
        lines = []
        for name, written in fields:
            lname = name.lower()
            c = written[0]
            lines.append(f"{lname} = {written}" if c == "{" and lname != "month"
                         or "0" <= c <= "9"
                         else f"{lname} = "
                              f"{_value_in_form(lname, written, None, form, macros, changed)}")
        if not lines:
            return Rewritten(head + newline + closer, changed)
        sep = "," + newline + indent
        return Rewritten(head + newline + indent + sep.join(lines)
                         + ("," if form.trailing_comma else "") + newline + closer, changed)
    pairs: Iterable[tuple[tuple[str, str], list[tuple[str, str]] | None]] = zip(
        fields, values if values is not None else (None,) * len(fields), strict=True)
    if form.drop:
        drop = form.drop
        kept = []
        for pair in pairs:
            lname = pair[0][0].lower()
            if lname in drop:
                changed.setdefault(lname, None)
            else:
                kept.append(pair)
        pairs = kept
    if plain and not (form.order or form.align):
        lines = [f"{indent}{lname if lower else name} = {written},"
                 if (lname := name.lower()) != "month" and tokens is None and written[0] == "{"
                 else f"{indent}{lname if lower else name} = "
                      f"{_value_in_form(lname, written, tokens, form, macros, changed)},"
                 for (name, written), tokens in pairs]
        if lines and not form.trailing_comma:
            lines[-1] = lines[-1][:-1]
        return Rewritten(newline.join([head, *lines, closer]), changed)
    items = []
    for (name, written), tokens in pairs:
        lname = name.lower()
        items.append((lname if lower else name,
                      _value_in_form(lname, written, tokens, form, macros, changed)))
    if form.order:
        items = [items[i] for i in ordered([n for n, _ in items], form)]
    return Rewritten(newline.join([head, *_field_lines(items, indent, form), closer]), changed)


def _value_in_form(lname: str, written: str, tokens: list[tuple[str, str]] | None, form: Form,
                   macros: Mapping[str, str], changed: dict[str, str | None]) -> str:
    """One value as written (``tokens``: its tokens, None for one token) in ``form``; a
    reading it changes goes into ``changed`` (the first one of a name)."""
    c = written[0]
    if tokens is None and c in '{"' or tokens is not None and len(tokens) == 1 \
            and tokens[0][0] == "{":
        value = written[1:-1] if tokens is None else tokens[0][1]
        new, reading = _string_value(lname, value, form, macros)
        if reading != value and lname not in changed:
            changed[lname] = reading
        return new
    if lname == "month" and form.months and tokens is None and c not in "0123456789" \
            and written.lower() in MONTH_MACROS and written.lower() not in macros:
        return written.lower()
    return written  # a number, a macro, a concatenation: as written


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
