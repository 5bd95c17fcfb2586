"""BibTeX text -> records, read by BibTeX's own rules (bibtex.web, BibTeX 0.99d).

pubcli acts on what it reads (a ``tag`` writes into an entry's text, a ``remove``
cuts it out), so where an entry and each of its values end must be where BibTeX
says they end; the real ``bibtex`` program is the judge in the test suite
(``tests/bibtex_oracle.py``). The rules, each one a place where other parsers
(bibtexparser's splitter among them) part from BibTeX:

* Outside an entry everything is comment, and any ``@`` starts a command, on any
  column and after a ``%`` too: BibTeX has no comment character. ``@comment``
  skips only its own name, so an ``@`` inside ``@comment{...}`` starts a command.
* Inside a braced value every ``{`` and ``}`` counts, backslash or not: ``{a \\}
  b}`` ends after ``\\``. A quoted value ends at a ``"`` at brace depth 0, and a
  ``}`` at depth 0 inside it is an error ("Unbalanced braces").
* A value is tokens joined by ``#``: a braced or quoted string, a number (digits)
  or a macro name; an undefined macro reads as empty (with a warning).
* Type, field and macro names are identifiers: no white space or ``"#%'(),={}``,
  not starting with a digit, compared in lower case. A key runs to a ``,``, white
  space or (in a ``{`` entry) a ``}``: ``O'Hara_1999`` and ``a=b`` are keys.
* After an error BibTeX skips to the next ``@``.

What pubcli adds to BibTeX's reading is caution, never another reading:

* An entry BibTeX reports an error in is kept verbatim as a :class:`Failed`
  block, named by its line, and never written into.
* An entry whose text, by BibTeX's count, runs across a line that starts another
  entry (a missing ``}``: BibTeX reads the next entries as part of a value, or
  skips them) is kept as a failed block up to that line; the entries it runs
  across are read so that a user sees them, but marked read-only with the reason
  (BibTeX does not read them as entries), so no command writes into them.
* An entry commented out with ``%`` or inside ``@comment{...}`` is one BibTeX still
  reads while its author meant it gone: it is kept as a failed block and reported.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Mapping

from pubcli.local import gcpause
from pubcli.schema.model import Record
from pubcli.schema.values import MONTH_MACROS as _MONTH_ABBREVIATIONS
from pubcli.schema.values import MONTH_NAMES

#: the month macros every BibTeX style defines (jan -> January): the months' one home
#: is pubcli.schema.values
MONTH_MACROS = dict(zip(_MONTH_ABBREVIATIONS, MONTH_NAMES, strict=True))

#: Source.read_only for an entry without a key (``@article{,``): kept and reported.
KEYLESS = "no citation key"
#: how Source.read_only starts for an entry BibTeX does not read as one (it lies inside
#: a broken entry before it): shown, kept as written, never written into
UNREAD = "BibTeX does not read this entry"


@dataclass(slots=True)
class Source:
    """Where an entry sits in its document and how it was written."""

    start: int
    end: int
    type_written: str
    key_written: str
    # (name as written, value as written); None when not kept (the parse cache does not
    # store them): written() reads them again from the entry's text when needed
    fields: tuple[tuple[str, str], ...] | None
    newline: str = "\n"
    read_only: str = ""  # why the entry must not be patched (e.g. duplicate fields)

    def written(self, raw: str) -> tuple[tuple[str, str], ...] | None:
        """(name, value) as written in ``raw``, the entry's text: ``fields`` when kept,
        else read again from the text (see :func:`written_fields`)."""
        return self.fields if self.fields is not None else written_fields(raw)


@dataclass(slots=True)
class Failed:
    """A block pubcli does not read as an entry; kept verbatim in the file."""

    line: int
    start: int
    raw: str
    reason: str
    # BibTeX's reading of it runs to the end of the file (a value never closed):
    # anything appended to the file would be read as part of it
    open_to_end: bool = False


@dataclass(slots=True)
class Parsed:
    records: list[Record] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    macros: dict[str, str] = field(default_factory=dict)
    newline: str = "\n"


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
        end, tokens = _value(written, 0, "}", "a value")
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


# ---------------------------------------------------------------- the document
def parse(text: str, *, fast: bool = True, macros: Mapping[str, str] | None = None) -> Parsed:
    """Parse a whole document (a str without BOM). Never raises on bad BibTeX.
    ``macros`` are @string values known before the text starts. ``fast`` reads the
    common field shapes with one regular expression (the same reading, tested)."""
    # Building 100k records trips the cyclic GC over and over, for nothing:
    # nothing here forms cycles. Pausing it halves the time on big files.
    with gcpause.paused():
        return _Reader(text, fast, macros).run()


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


class _Reader:
    def __init__(self, text: str, fast: bool, macros: Mapping[str, str] | None) -> None:
        self.text = text
        self.fast = fast
        self.out = Parsed(newline="\r\n" if "\r\n" in text else "\n")
        if macros:
            self.out.macros.update(macros)
        self._pos = 0
        self._line = 0
        # entries starting before shadow_end are not read by BibTeX as entries
        self.shadow_end = -1
        self.shadow_why = ""
        self.comment_end = -1  # end of the braces of the last @comment (as biber reads it)
        self._newlines: list[int] | None = None
        self.stop_from = -1  # BibTeX reads no command starting at or after this
        # where the file's last line starts (a final line end ends it; it starts no other)
        # (BibTeX ends a line at every CR and every LF: a CRLF ends two, the second empty)
        end = len(text) - 1 if text[-1:] in ("\r", "\n") else len(text)
        self.last_line = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1

    def line_of(self, pos: int) -> int:
        """1-based line of ``pos`` (positions are asked in increasing order, mostly)."""
        if pos < self._pos:
            self._pos, self._line = 0, 0
        self._line += self.text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line + 1

    def crossed(self, start: int, end: int) -> int | None:
        """The '@' of the first entry opening at the start of a line strictly inside
        (start, end)."""
        text = self.text
        search = _AT_LINE_RE.search
        m = search(text, start, end)
        while m is not None:
            at = m.end() - 1
            if _OPENS_RE.match(text, at):
                return at
            m = search(text, m.end(), end)
        return None

    def run(self) -> Parsed:
        text, out = self.text, self.out
        n = len(text)
        pos = 0
        while True:
            at = text.find("@", pos)
            if at < 0:
                break
            try:
                cmd = _command(text, at, self.fast)
            except _Error as err:
                self.ended(err.pos)
                if err.command is not None and err.command.kind == "string":
                    self.define(err.command)
                resume = text.find("@", max(err.pos, at + 1))
                if resume < 0:
                    resume = n
                cut = self.crossed(at, err.pos) if err.opened else None
                if cut is not None:
                    self.fail(at, cut, f"{err.message}; by BibTeX's reading it runs on across "
                                       "the entries after it", open_to_end=err.open_to_end)
                    self.shadow(resume, f"{UNREAD}: it lies inside a broken entry before it "
                                        f"({err.message})")
                    pos = cut
                elif not err.opened:
                    # an '@' in comment text (an e-mail address, a handle): BibTeX reports
                    # an error and skips to the next '@'; no entry was begun
                    out.warnings.append((self.line_of(at), "an '@' outside an entry starts a "
                                                           "command for BibTeX, which reports "
                                                           f"an error here: {err.message}"))
                    pos = resume
                else:
                    self.fail(at, resume, err.message, open_to_end=err.open_to_end)
                    pos = resume
                continue
            self.ended(cmd.end)
            if cmd.kind == "comment":
                self.note_comment(cmd)
                pos = cmd.end
                continue
            cut = self.crossed(at, cmd.end)
            if cut is not None and cmd.kind != "entry":
                # BibTeX reads it whole; pubcli never writes into an @string or @preamble,
                # so it reads it as BibTeX does (the entries after it use the macro) and
                # only the entries it runs across are shown read-only
                self.take(cmd)
                out.warnings.append((self.line_of(at), f"by BibTeX's count of braces, this "
                                     f"@{cmd.kind} runs on across the entries after it "
                                     "(a '}' missing?)"))
                self.shadow(cmd.end, f"{UNREAD}: BibTeX reads it as part of the "
                                     f"@{cmd.kind} before it, which is not closed before it")
                pos = cut
                continue
            if cut is not None:
                what = (f"entry '{cmd.key}'" if cmd.kind == "entry" else f"this @{cmd.kind}")
                self.fail(at, cut, f"by BibTeX's count of braces, {what} does not end here but "
                                   "runs on across the entries after it (a '}' missing?)")
                self.shadow(cmd.end, f"{UNREAD}: BibTeX reads it as part of {what} before "
                                     "it, which is not closed before it")
                pos = cut
                continue
            self.take(cmd)
            pos = cmd.end
        return out

    def line_of_pos(self, pos: int) -> int:
        """1-based line of any ``pos`` (for messages; the index is built on first use)."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        return bisect.bisect_left(self._newlines, pos) + 1

    def ended(self, pos: int) -> None:
        """BibTeX's reading of a command ended at ``pos``: on the file's last line, BibTeX
        stops there (it checks for the end of the file only between commands, and the
        last line was read), so nothing after it on that line is read."""
        if pos >= self.last_line and self.stop_from < 0:
            self.stop_from = pos

    def shadow(self, end: int, why: str) -> None:
        if end > self.shadow_end:
            self.shadow_end, self.shadow_why = end, why

    def fail(self, start: int, end: int, reason: str, open_to_end: bool = False) -> None:
        raw = self.text[start:end].rstrip(_W)
        self.out.failed.append(Failed(self.line_of(start), start, raw, reason, open_to_end))

    def note_comment(self, cmd: _Command) -> None:
        """Where an @comment's braces end, as biber and bibtexparser read it: an entry
        inside is one BibTeX reads while its author meant it gone."""
        text = self.text
        pos = _skip(text, cmd.end)
        if pos < len(text) and text[pos] in "{(":
            close = "}" if text[pos] == "{" else ")"
            depth = 0
            for m in re.compile(r"[{}()]").finditer(text, pos):
                g = m.group()
                if close == "}" and g in "{}":
                    depth += 1 if g == "{" else -1
                elif close == ")" and g in "()":
                    depth += 1 if g == "(" else -1
                if depth == 0:
                    self.comment_end = max(self.comment_end, m.end())
                    return

    def commented_out(self, cmd: _Command) -> str:
        text = self.text
        if cmd.start < self.comment_end:
            return ("inside @comment{...}, but BibTeX skips only the word @comment and "
                    "still reads this entry")
        if cmd.start == 0 or text[cmd.start - 1] in "\r\n":
            return ""
        line_start = max(text.rfind("\n", 0, cmd.start), text.rfind("\r", 0, cmd.start)) + 1
        if "%" in text[line_start:cmd.start]:
            return ("commented out with '%', but BibTeX has no comment character and still "
                    "reads this entry; delete it, or remove its '@'")
        return ""

    def define(self, cmd: _Command) -> None:
        """The macro of an @string, as BibTeX defines it."""
        if cmd.start < self.shadow_end or 0 <= self.stop_from <= cmd.start:
            return  # BibTeX does not read it
        name, written = cmd.fields[0]
        tokens = cmd.values[0] or _fast_value(written)  # always read by _value()
        lname = name.lower()
        if ("m", lname) in tokens:  # BibTeX reads a macro's own name in its
            tokens = [t for t in tokens if t != ("m", lname)]  # definition as empty
        self.out.macros[lname] = _evaluate(tokens, self.out.macros)

    def take(self, cmd: _Command) -> None:
        out = self.out
        macros = out.macros
        shadowed = cmd.start < self.shadow_end
        if 0 <= self.stop_from <= cmd.start and not shadowed:
            shadowed = True
            self.shadow(len(self.text), f"{UNREAD}: it shares the file's last line with "
                                        "the entry before it, and BibTeX stops reading where "
                                        "that one ends; start it on a line of its own")
        if cmd.kind == "preamble":
            return
        if cmd.kind == "string":
            if shadowed:
                return
            why = self.commented_out(cmd)
            if why:  # BibTeX defines it all the same, and the entries after it use it
                out.warnings.append((self.line_of(cmd.start), "this @string is "
                                     + why.replace("this entry", "it")))
            self.define(cmd)
            return
        why = self.commented_out(cmd)
        if why:  # kept unread wherever it stands (after a broken entry, on the last line)
            self.fail(cmd.start, cmd.end, why)
            return
        line = self.line_of(cmd.start)
        values: dict[str, str] = {}
        dups: list[str] = []
        undefined: list[str] = []
        for (name, written), toks in zip(cmd.fields, cmd.values, strict=True):
            lname = name.lower()
            if lname in values:
                if lname not in dups:
                    dups.append(lname)
                continue
            if toks is None:
                c = written[0]
                if c == "{" or c == '"':
                    values[lname] = written[1:-1]
                    continue
                if "0" <= c <= "9":
                    values[lname] = written
                    continue
                toks = [("m", written.lower())]
            values[lname] = _evaluate(toks, macros, undefined)
        read_only = ""
        if shadowed:
            read_only = self.shadow_why
        elif dups:
            read_only = f"duplicate field ({', '.join(sorted(dups))})"
        elif not cmd.key:
            read_only = KEYLESS
        for name in dict.fromkeys(undefined):
            out.warnings.append((line, f"entry '{cmd.key}' uses the @string '{name}', which "
                                       "is not defined before it: BibTeX reads it as empty"))
        src = Source(cmd.start, cmd.end, cmd.type_written.lower(), cmd.key, tuple(cmd.fields),
                     out.newline, read_only)
        out.records.append(Record.restore(cmd.key, cmd.type_written.lower(), values, line,
                                          src))
