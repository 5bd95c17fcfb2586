"""What pubcli may write into a BibTeX file: the one rule for a value (balanced by
BibTeX's count of braces, every ``{`` and ``}``, backslash or not, so that BibTeX reads the
field back as meant and nothing after it), for a field name and for a key.
"""

from __future__ import annotations

import re
from pathlib import Path

from pubcli.errors import ValidationError

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


def _check_written_key(key: str) -> None:
    """The writer writes any key BibTeX reads back whole (``abnt-etal=2``, ``O'Hara_1999``:
    keys kept from a file); a key pubcli makes or a user gives passed :func:`check_key`."""
    if not READ_KEY_RE.match(key):
        check_key(key)  # raises, naming what a key may not hold
