"""Wrapping on words at the terminal's width, never inside a key, a path or ``file:line``.

A line is a sequence of *atoms*: words, or pieces that must stay whole (a
``file:line``, a URL, a path with spaces, a quoted shell word). Lines break only
between atoms; an atom wider than the room left goes on a line of its own and
runs past the edge (the terminal folds it, but nothing is cut out of it).
Widths are terminal cells (:func:`pubcli.text.cells.cells`).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from pubcli.text.cells import cells


def words(text: str) -> list[str]:
    """The atoms of running text: its white-space separated words."""
    return text.split()


def fill(atoms: Sequence[str], width: int | None, *, first: str = "",
         rest: str | None = None, end: str = "") -> list[str]:
    """``atoms`` joined by spaces into lines of at most ``width`` cells (``None``: one
    line), the first starting with ``first``, the others with ``rest`` (default: as
    many spaces as ``first`` is wide). ``end`` is added to every line but the last
    (a shell's `` \\``), and counted in its width."""
    if rest is None:
        rest = " " * cells(first)
    if width is None or not atoms:
        return [first + " ".join(atoms)]
    lines: list[str] = []
    line, used, empty = first, cells(first), True
    tail = cells(end)
    for i, atom in enumerate(atoms):
        w = cells(atom)
        if empty:
            line, used, empty = line + atom, used + w, False
        elif used + 1 + w + (tail if i + 1 < len(atoms) else 0) <= width:
            line, used = f"{line} {atom}", used + 1 + w
        else:
            lines.append(line + end)
            line, used = rest + atom, cells(rest) + w
    lines.append(line)
    return lines


def hanging(label: str, atoms: Sequence[str], width: int | None, *,
            min_room: int = 20) -> list[str]:
    """``label`` then ``atoms`` wrapped under the first atom (a hanging indent), or,
    when that leaves fewer than ``min_room`` columns, under the label's own indent
    plus four."""
    if width is not None and width - cells(label) < min_room:
        indent = len(label) - len(label.lstrip()) + 4
        return fill(atoms, width, first=label, rest=" " * indent)
    return fill(atoms, width, first=label)


def shell_words(command: str) -> list[str]:
    """A command line's words as typed, a quoted word (spaces and all) kept as one:
    ``pubcli tag k --add "Systems and networking"`` has five."""
    out: list[str] = []
    word, quote = "", ""
    for c in command:
        if quote:
            word += c
            if c == quote:
                quote = ""
        elif c in "\"'":
            word += c
            quote = c
        elif c.isspace():
            if word:
                out.append(word)
            word = ""
        else:
            word += c
    if word:
        out.append(word)
    return out


def command_lines(command: str, width: int | None, indent: str) -> list[str]:
    """An example command, wrapped between its words (never inside quotes, and an
    option beside its value) with a trailing `` \\`` on each line but the last, so that
    it still pastes into a shell."""
    atoms: list[str] = []
    for word in shell_words(command):
        if atoms and (atoms[-1] in (">", ">>", "<", "|") or atoms[-1].startswith("-")
                      and " " not in atoms[-1] and not word.startswith(("-", ">", "|"))):
            atoms[-1] += " " + word
        else:
            atoms.append(word)
    return fill(atoms, width, first=indent, rest=indent + "    ", end=" \\")


def join(lines: Iterable[str]) -> str:
    return "\n".join(lines)


__all__ = ["cells", "words", "fill", "hanging", "shell_words", "command_lines", "join"]
