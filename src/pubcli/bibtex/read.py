"""BibTeX text -> records, read by BibTeX's own rules (bibtex.web, BibTeX 0.99d): the
document walk; one command's text is :mod:`.command`'s.

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

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pubcli.local import gcpause
from pubcli.schema.model import Record

from .command import (
    _AT_LINE_RE,
    _ENTRY_FAST_RE,
    _FIELD_PAIRS_RE,
    _OPENS_RE,
    _SPECIAL,
    _W,
    _Command,
    _command,
    _Error,
    _evaluate,
    _fast_value,
    _one_token_values,
    _skip,
    written_fields,
)

#: Source.read_only for an entry without a key (``@article{,``): kept and reported.
KEYLESS = "no citation key"
#: how Source.read_only starts for an entry BibTeX does not read as one (it lies inside
#: a broken entry before it): shown, kept as written, never written into
UNREAD = "BibTeX does not read this entry"
#: how Source.read_only starts for an entry that writes a field twice
DUPLICATE = "duplicate field"


def duplicate_reason(names: Iterable[str]) -> str:
    """Source.read_only for an entry writing ``names`` twice: "duplicate field (a, b)"."""
    return f"{DUPLICATE} ({', '.join(sorted(names))})"


def duplicated_fields(read_only: str) -> tuple[str, ...]:
    """The fields an entry writes twice, from its Source.read_only (() for any other
    reason): the one reading of what :func:`duplicate_reason` wrote."""
    if not read_only.startswith(DUPLICATE + " ("):
        return ()
    return tuple(read_only[len(DUPLICATE) + 2:].rstrip(")").split(", "))


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


# ---------------------------------------------------------------- the document
def parse(text: str, *, fast: bool = True, macros: Mapping[str, str] | None = None) -> Parsed:
    """Parse a whole document (a str without BOM). Never raises on bad BibTeX.
    ``macros`` are @string values known before the text starts. ``fast`` reads the
    common field shapes with one regular expression (the same reading, tested)."""
    # Building 100k records trips the cyclic GC over and over, for nothing:
    # nothing here forms cycles. Pausing it halves the time on big files.
    with gcpause.paused():
        return _Reader(text, fast, macros).run()


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
        if text.find("@", start + 1, end) < 0:  # the common case, one C-level scan
            return None
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
        fast = self.fast
        entry_fast = _ENTRY_FAST_RE.match
        pairs = _FIELD_PAIRS_RE.findall
        while True:
            at = text.find("@", pos)
            if at < 0:
                break
            if fast:
                m = entry_fast(text, at)
                if m is not None and m.group(1).lower() not in _SPECIAL:
                    end = m.end()
                    self.ended(end)
                    if self.crossed(at, end) is None:
                        self.take_entry(at, end, m.group(1), m.group(2),
                                        pairs(text, m.end(2), end), None)
                        pos = end
                        continue
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
                    out.warnings.append((self.line_of(at), ("an '@' outside an entry starts a "
                                                            "command for BibTeX, which reports "
                                                            f"an error here: {err.message}")))
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
                out.warnings.append((self.line_of(at), (f"by BibTeX's count of braces, this "
                                     f"@{cmd.kind} runs on across the entries after it "
                                     "(a '}' missing?)")))
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

    def commented_out(self, start: int) -> str:
        text = self.text
        if start < self.comment_end:
            return ("inside @comment{...}, but BibTeX skips only the word @comment and "
                    "still reads this entry")
        if start == 0 or text[start - 1] in "\r\n":
            return ""
        line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
        if "%" in text[line_start:start]:
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
        if cmd.kind == "entry":
            self.take_entry(cmd.start, cmd.end, cmd.type_written, cmd.key, cmd.fields,
                            cmd.values)
            return
        shadowed = self.shadowed(cmd.start)
        if cmd.kind == "string" and not shadowed:
            why = self.commented_out(cmd.start)
            if why:  # BibTeX defines it all the same, and the entries after it use it
                self.out.warnings.append((self.line_of(cmd.start), "this @string is "
                                          + why.replace("this entry", "it")))
            self.define(cmd)

    def shadowed(self, start: int) -> bool:
        """Whether BibTeX reads no command starting at ``start`` (inside a broken entry
        before it, or after where it stopped reading)."""
        if start < self.shadow_end:
            return True
        if 0 <= self.stop_from <= start:
            self.shadow(len(self.text), f"{UNREAD}: it shares the file's last line with "
                                        "the entry before it, and BibTeX stops reading where "
                                        "that one ends; start it on a line of its own")
            return True
        return False

    def take_entry(self, start: int, end: int, type_written: str, key: str,
                   fields: Sequence[tuple[str, str]],
                   tokens: list[list[tuple[str, str]] | None] | None) -> None:
        """An entry read whole: its fields as written, with their tokens (None for one
        token read by _FIELD_RE; ``tokens`` None: every field so)."""
        out = self.out
        macros = out.macros
        written_as = fields
        text = self.text
        shadowed = (start < self.shadow_end or 0 <= self.stop_from <= start) \
            and self.shadowed(start)
        why = self.commented_out(start) if start < self.comment_end or \
            (start and text[start - 1] not in "\r\n") else ""
        if why:  # kept unread wherever it stands (after a broken entry, on the last line)
            self.fail(start, end, why)
            return
        line = self.line_of(start)
        values: dict[str, str] = {}
        dups: list[str] = []
        undefined: list[str] = []
        if tokens is None:  # every value one token: the common case, in one pass
            values = _one_token_values(fields, macros, undefined)
            if len(values) == len(fields):
                fields = ()  # read: skip the loop below
            else:  # a repeated field: the first value counts, read again in order
                values, undefined = {}, []
        for i, (name, written) in enumerate(fields):
            lname = name.lower()
            if lname in values:
                if lname not in dups:
                    dups.append(lname)
                continue
            toks = tokens[i] if tokens is not None else None
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
            read_only = duplicate_reason(dups)
        elif not key:
            read_only = KEYLESS
        for name in dict.fromkeys(undefined):
            out.warnings.append((line, (f"entry '{key}' uses the @string '{name}', which "
                                        "is not defined before it: BibTeX reads it as empty")))
        etype = type_written.lower()
        src = Source(start, end, etype, key, tuple(written_as), out.newline, read_only)
        out.records.append(Record.restore(key, etype, values, line, src))
