"""One command of a BibTeX text (``@type{...}``) read as the ``bibtex`` program reads it
(bibtex.web, BibTeX 0.99d): the lexical classes, a value's tokens and what they evaluate
to, an entry's fields as written. :mod:`.read` walks a whole document with these and
applies the rules that span commands (see there); :func:`read_entry` reads one entry's
text, :func:`read_plain` a text of entries in the common shapes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pubcli.schema.values import MONTH_MACROS as _MONTH_ABBREVIATIONS
from pubcli.schema.values import MONTH_NAMES

#: the month macros every BibTeX style defines (jan -> January): the months' one home
#: is pubcli.schema.values
MONTH_MACROS = dict(zip(_MONTH_ABBREVIATIONS, MONTH_NAMES, strict=True))

# ---------------------------------------------------------------- the lexical classes
_W = " \t\r\n"  # BibTeX's white space (a line end is white space between tokens)
_ID = r"[^ \t\r\n\"#%'(),={}\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
IDENT_RE = re.compile(r"(?![0-9])" + _ID + "+")
_WS_RE = re.compile(r"[ \t\r\n]*")
_KEY_BRACE_RE = re.compile(r"[^,} \t\r\n]*")
_KEY_PAREN_RE = re.compile(r"[^, \t\r\n]*")
_BRACE_RE = re.compile(r"[{}]")
_QUOTE_RE = re.compile(r'[{}"]')
_DIGITS_RE = re.compile(r"[0-9]+")
# an entry (or @string/@preamble) opening at the start of a line: where a reader that
# lost its way would expect the next entry, and where pubcli's caution looks
# the common head of an entry, for speed: @type{key then white space
_ENTRY_HEAD_RE = re.compile(r"@[ \t\r\n]*((?![0-9])" + _ID + r"+)[ \t\r\n]*\{[ \t\r\n]*"
                            r"([^,} \t\r\n]*)[ \t\r\n]*")
_SPECIAL = frozenset({"comment", "string", "preamble"})
_AT_LINE_RE = re.compile(r"[\r\n][ \t]*@")
# an entry type as people write them (BibTeX itself takes more: "@of\\{" is one to it)
_OPENS_RE = re.compile(r"@[ \t]*[A-Za-z][A-Za-z0-9_:.+-]*[ \t\r\n]*[{(]")


def _nested(depth: int) -> str:
    inner = r"[^{}]*+"
    for _ in range(depth):
        inner = r"(?:[^{}]++|\{" + inner + r"\})*+"
    return inner


# One field in the common shapes, for speed: name = {value with braces nested up to 5
# deep} | "value without braces" | 1999 | macro, then the separator. Anything else
# (concatenation, deeper braces, braces in quotes, broken text) goes to _value().
_FIELD_RE = re.compile(
    r"[ \t\r\n]*((?![0-9])" + _ID + r"+)[ \t\r\n]*=[ \t\r\n]*"
    r"(\{" + _nested(5) + r"\}|\"[^\"{}]*+\"|[0-9]++|(?![0-9])" + _ID + r"+)[ \t\r\n]*([,})])")


_FAST_VALUE = (r"(?:\{" + _nested(5) + r"\}|\"[^\"{}]*+\"|[0-9]++|(?![0-9])" + _ID + r"+)")
# A whole entry in the common shapes, for speed: the head of _ENTRY_HEAD_RE, then fields
# each one token of _FIELD_RE's shapes, a trailing comma or not, the closing '}'. The
# fields of a match are _FIELD_PAIRS_RE's matches in it, in order (only white space lies
# between one field's value and the next comma, so no match starts inside a value).
_ENTRY_FAST_RE = re.compile(
    _ENTRY_HEAD_RE.pattern + r"(?:,[ \t\r\n]*(?![0-9])" + _ID + r"+[ \t\r\n]*=[ \t\r\n]*"
    + _FAST_VALUE + r"[ \t\r\n]*)*+(?:,[ \t\r\n]*)?\}")
_FIELD_PAIRS_RE = re.compile(r",[ \t\r\n]*((?![0-9])" + _ID + r"+)[ \t\r\n]*=[ \t\r\n]*("
                             + _FAST_VALUE + ")")


class _Error(Exception):
    """A syntax error at ``pos``, as BibTeX would report it."""

    def __init__(self, pos: int, message: str, open_to_end: bool = False,
                 opened: bool = True) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message
        self.open_to_end = open_to_end
        self.opened = opened  # the command's '{' or '(' was read: an entry was begun
        self.command: _Command | None = None  # an @string read whole before the error


@dataclass(slots=True)
class _Command:
    kind: str  # "entry", "string", "preamble", "comment"
    start: int
    end: int
    type_written: str = ""
    key: str = ""
    fields: list[tuple[str, str]] = field(default_factory=list)  # as written
    # tokens per field; None for one token read by _FIELD_RE (see _fast_value)
    values: list[list[tuple[str, str]] | None] = field(default_factory=list)
    open_delim: str = "{"


def _skip(text: str, pos: int) -> int:
    return _WS_RE.match(text, pos).end()  # type: ignore[union-attr]


def _value(text: str, pos: int, close: str, what: str) -> tuple[int, list[tuple[str, str]]]:
    """Read a field value at ``pos``: its end and its tokens, ("{", text) for a braced or
    quoted string, ("#", digits) for a number, ("m", name) for a macro."""
    n = len(text)
    tokens: list[tuple[str, str]] = []
    while True:
        if pos >= n:
            raise _Error(pos, f"the file ends where the value of {what} should be",
                         open_to_end=True)
        c = text[pos]
        if c == "{":
            depth = 1
            for m in _BRACE_RE.finditer(text, pos + 1):
                depth += 1 if m.group() == "{" else -1
                if depth == 0:
                    tokens.append(("{", text[pos + 1:m.start()]))
                    pos = m.end()
                    break
            else:
                raise _Error(n, f"the value of {what} is never closed: a '{{' has no "
                                "matching '}' before the end of the file", open_to_end=True)
        elif c == '"':
            depth = 0
            for m in _QUOTE_RE.finditer(text, pos + 1):
                g = m.group()
                if g == "{":
                    depth += 1
                elif g == "}":
                    if depth == 0:
                        raise _Error(m.start(), f"unbalanced braces in the quoted value of "
                                                f"{what}: a '}}' with no '{{' before it")
                    depth -= 1
                elif depth == 0:
                    tokens.append(("{", text[pos + 1:m.start()]))
                    pos = m.end()
                    break
            else:
                raise _Error(n, f"the quoted value of {what} is never closed before the end "
                                "of the file", open_to_end=True)
        elif "0" <= c <= "9":
            d = _DIGITS_RE.match(text, pos)
            assert d is not None
            tokens.append(("#", d.group()))
            pos = d.end()
        else:
            name = IDENT_RE.match(text, pos)
            if name is None:
                raise _Error(pos, f"expected a value for {what} ('{{', '\"', a number or an "
                                  f"@string name), found {text[pos]!r}")
            tokens.append(("m", name.group().lower()))
            pos = name.end()
        after = _skip(text, pos)
        if after < n and text[after] == "#":
            pos = _skip(text, after + 1)
            continue
        return pos, tokens


def _command(text: str, at: int, fast: bool) -> _Command:
    """Read the command whose ``@`` is at ``at``, as BibTeX does; raise _Error."""
    n = len(text)
    if fast:
        h = _ENTRY_HEAD_RE.match(text, at)
        if h is not None and h.group(1).lower() not in _SPECIAL:
            type_written, key = h.groups()
            return _fields(text, _Command("entry", at, at, type_written, key), h.end(), "}",
                           fast)
    pos = _skip(text, at + 1)
    m = IDENT_RE.match(text, pos)
    if m is None:
        raise _Error(pos, "an '@' not followed by an entry type", opened=False)
    type_written = m.group()
    etype = type_written.lower()
    pos = m.end()
    if etype == "comment":
        return _Command("comment", at, pos, type_written)
    pos = _skip(text, pos)
    if pos >= n or text[pos] not in "{(":
        raise _Error(pos, f"'@{type_written}' is not followed by '{{' or '('", opened=False)
    open_delim = text[pos]
    close = "}" if open_delim == "{" else ")"
    pos = _skip(text, pos + 1)
    if etype in ("string", "preamble"):
        cmd = _Command(etype, at, pos, type_written, open_delim=open_delim)
        if etype == "string":
            m = IDENT_RE.match(text, pos)
            if m is None:
                raise _Error(pos, "an @string without a name", open_to_end=pos >= n)
            name = m.group()
            pos = _skip(text, m.end())
            if pos >= n or text[pos] != "=":
                raise _Error(pos, f"expected '=' after the @string name '{name}'",
                             open_to_end=pos >= n)
            pos = _skip(text, pos + 1)
        else:
            name = ""
        vstart = pos
        pos, tokens = _value(text, pos, close, f"@{etype}" + (f" '{name}'" if name else ""))
        cmd.fields.append((name, text[vstart:pos]))
        cmd.values.append(tokens)
        pos = _skip(text, pos)
        if pos >= n or text[pos] != close:
            err = _Error(pos, f"expected '{close}' to end the @{etype}", open_to_end=pos >= n)
            err.command = cmd  # BibTeX has defined the macro by then: see _Reader.run
            raise err
        cmd.end = pos + 1
        return cmd
    m = (_KEY_BRACE_RE if close == "}" else _KEY_PAREN_RE).match(text, pos)
    assert m is not None
    cmd = _Command("entry", at, pos, type_written, m.group(), open_delim=open_delim)
    return _fields(text, cmd, _skip(text, m.end()), close, fast)


def _fields(text: str, cmd: _Command, pos: int, close: str, fast: bool) -> _Command:
    """Read an entry's fields from ``pos`` (after its key) to its closing delimiter."""
    n = len(text)
    what_key = f"entry '{cmd.key}'"
    fields, values = cmd.fields, cmd.values
    match_field = _FIELD_RE.match
    while True:
        if pos >= n:
            raise _Error(pos, f"{what_key} is not closed before the end of the file (a "
                              f"missing '{close}'?)", open_to_end=True)
        c = text[pos]
        if c == close:
            cmd.end = pos + 1
            return cmd
        if c != ",":
            raise _Error(pos, f"{what_key}: expected ',' or '{close}', found {c!r} (a missing "
                              "comma, or a '}' inside a value?)")
        if fast:
            f = match_field(text, pos + 1)
            if f is not None:
                name, written, sep = f.groups()
                if sep == "," or sep == close:
                    fields.append((name, written))
                    values.append(None)  # a single token: see _fast_value
                    pos = f.start(3)
                    continue
        pos = _skip(text, pos + 1)
        if pos < n and text[pos] == close:
            continue
        m = IDENT_RE.match(text, pos)
        if m is None:
            raise _Error(pos, f"{what_key}: expected a field name, found "
                              f"{text[pos]!r}" if pos < n else f"{what_key} is not closed "
                              "before the end of the file", open_to_end=pos >= n)
        name = m.group()
        pos = _skip(text, m.end())
        if pos >= n or text[pos] != "=":
            raise _Error(pos, f"{what_key}: expected '=' after the field name '{name}'",
                         open_to_end=pos >= n)
        pos = _skip(text, pos + 1)
        vstart = pos
        pos, tokens = _value(text, pos, close, f"'{name}' in {what_key}")
        cmd.fields.append((name, text[vstart:pos]))
        cmd.values.append(tokens)
        pos = _skip(text, pos)


def _tokens_of(written: str) -> list[tuple[str, str]]:
    """The tokens of a value as written (it was read by _command, so it is well formed)."""
    try:
        _, tokens = _value(written, 0, "}", "a value")
    except _Error:
        return [("{", written)]
    return tokens


def _evaluate(tokens: list[tuple[str, str]], macros: Mapping[str, str],
              undefined: list[str] | None = None) -> str:
    if len(tokens) == 1 and tokens[0][0] != "m":
        return tokens[0][1]
    out = []
    for kind, text in tokens:
        if kind != "m":
            out.append(text)
        elif text in macros:
            out.append(macros[text])
        elif text in MONTH_MACROS:
            out.append(MONTH_MACROS[text])
        else:
            # BibTeX reads it as empty and warns; pubcli shows the name (a reader sees
            # what was meant) and reports it (see Parsed.warnings)
            if undefined is not None:
                undefined.append(text)
            out.append(text)
    return "".join(out)


def _macro(name: str, macros: Mapping[str, str], undefined: list[str]) -> str:
    """The value of a macro (lower case) used alone: :func:`_evaluate` of one token."""
    if name in macros:
        return macros[name]
    if name in MONTH_MACROS:
        return MONTH_MACROS[name]
    undefined.append(name)
    return name


def _one_token_values(fields: Sequence[tuple[str, str]], macros: Mapping[str, str],
                      undefined: list[str]) -> dict[str, str]:
    """The values of fields (name, written) each one token, as BibTeX reads them; a
    repeated name keeps its last value (the caller compares the lengths)."""
    return {name.lower(): (written[1:-1] if (c := written[0]) == "{" or c == '"'
                           else written if "0" <= c <= "9"
                           else _macro(written.lower(), macros, undefined))
            for name, written in fields}


def _fast_value(written: str) -> list[tuple[str, str]]:
    c = written[0]
    if c == "{" or c == '"':
        return [("{", written[1:-1])]
    if "0" <= c <= "9":
        return [("#", written)]
    return [("m", written.lower())]


def evaluate(raw: str, macros: Mapping[str, str]) -> str:
    """The value of a field as BibTeX sees it: enclosing braces or quotes removed,
    ``#`` concatenation done, ``@string`` and month macros expanded. An undefined
    macro is kept as its name (BibTeX reads it as empty and warns)."""
    raw = raw.strip(_W)
    if not raw:
        return ""
    return _evaluate(_tokens_of(raw), macros)



# ---------------------------------------------------------------- entries
@dataclass(frozen=True, slots=True)
class EntryText:
    """One entry's text as BibTeX reads it: the type and fields as written, each field's
    tokens (None for a single token), and where the entry's text ends."""

    type_written: str
    key: str
    fields: tuple[tuple[str, str], ...]
    values: tuple[list[tuple[str, str]] | None, ...]
    end: int


def read_entry(raw: str) -> EntryText | None:
    """The entry whose ``@`` comes first in ``raw``; None when BibTeX reports an error in
    it or it is not an entry (an @string, @preamble or @comment)."""
    at = raw.find("@")
    if at < 0:
        return None
    m = _ENTRY_FAST_RE.match(raw, at)
    if m is not None and m.group(1).lower() not in _SPECIAL:
        fields = tuple(_FIELD_PAIRS_RE.findall(raw, m.end(2), m.end()))
        return EntryText(m.group(1), m.group(2), fields, (None,) * len(fields), m.end())
    try:
        cmd = _command(raw, at, True)
    except _Error:
        return None
    if cmd.kind != "entry":
        return None
    return EntryText(cmd.type_written, cmd.key, tuple(cmd.fields), tuple(cmd.values), cmd.end)


def written_fields(raw: str) -> tuple[tuple[str, str], ...] | None:
    """(name as written, value as written) of the one entry ``raw``; None if it is not
    one readable entry."""
    entry = read_entry(raw)
    return entry.fields if entry is not None else None



def type_written(raw: str) -> str | None:
    """The type of the entry whose text ``raw`` is, as written (what the reader keeps as
    ``Source.type_written``); None when ``raw`` does not open with an entry's head."""
    m = _ENTRY_HEAD_RE.match(raw)
    return m.group(1) if m is not None else None


def read_plain(text: str, macros: Mapping[str, str] | None = None
               ) -> list[tuple[str, str, dict[str, str]]] | None:
    """(key, type, fields) of each entry of ``text``, as :func:`parse` reads them, when
    ``text`` holds only entries in the common shapes (the whole-entry pattern: one token
    per field), each on lines of its own, without a repeated field, an undefined macro or
    an '@' inside; None otherwise (then ask :func:`parse`). The store's read-back of the
    entries ``pubcli fmt`` writes: the same reading without records, lines or sources."""
    macros = macros or {}
    out: list[tuple[str, str, dict[str, str]]] = []
    append = out.append
    match, pairs = _ENTRY_FAST_RE.match, _FIELD_PAIRS_RE.findall
    find = text.find
    pos = 0
    while True:
        at = find("@", pos)
        if at < 0:
            return None if text[pos:].strip(_W) else out  # comment text: parse() judges
        if at != pos:
            gap = text[pos:at]
            if gap.strip(_W) or (pos and "\n" not in gap and "\r" not in gap):
                return None  # comment text, or two commands on one line: parse() judges
        elif pos:
            return None  # two commands on one line
        m = match(text, at)
        if m is None:
            return None
        etype, key = m.group(1, 2)
        if not key or (etype := etype.lower()) in _SPECIAL:
            return None
        end = m.end()
        if find("@", at + 1, end) >= 0:
            return None  # it may run across another entry: parse() judges
        fields = pairs(text, m.end(2), end)
        values: dict[str, str] = {}
        for name, written in fields:  # each one token, as _one_token_values reads them
            c = written[0]
            if c == "{" or c == '"':
                values[name.lower()] = written[1:-1]
            elif "0" <= c <= "9":
                values[name.lower()] = written
            else:
                macro = written.lower()
                if macro in macros:
                    values[name.lower()] = macros[macro]
                elif macro in MONTH_MACROS:
                    values[name.lower()] = MONTH_MACROS[macro]
                else:
                    return None  # an undefined macro: parse() warns
        if len(values) != len(fields):
            return None  # a repeated field
        append((key, etype, values))
        pos = end
