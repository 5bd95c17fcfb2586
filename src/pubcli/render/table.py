"""Rows of cells for a terminal or a pipe: one helper for every small table.

On a wide terminal: a rich table. On a narrow one: a block of "Header: value"
lines per row, so nothing is cut. Piped: one tab-separated line per row, no
padding and no ANSI codes. Cells are cleaned (:func:`pubcli.render.text.clean`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .text import one_line

NARROW = 60  # at or below this many columns a terminal gets stacked rows
RICH_ROW_LIMIT = 600  # more rows than this are printed as lines even on a terminal


def piped(rows: Sequence[Sequence[str]]) -> str:
    """Tab-separated lines, one per row."""
    return "".join("\t".join(one_line(c) for c in row) + "\n" for row in rows)


def stacked(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """"Header: value" lines, a blank line between rows; empty cells left out."""
    width = max((len(h) for h in headers), default=0) + 1
    blocks = []
    for row in rows:
        blocks.append("".join(f"{h + ':':<{width}} {one_line(c)}\n"
                              for h, c in zip(headers, row, strict=False) if c))
    return "\n".join(blocks)


def rich_table(headers: Sequence[str], rows: Sequence[Sequence[str]], *,
               right: Sequence[str] = ()):
    """A rich Table (cells fold rather than being cut)."""
    from rich.table import Table

    table = Table(show_edge=False, header_style="bold")
    for h in headers:
        table.add_column(h, overflow="fold", justify="right" if h in right else "left")
    for row in rows:
        table.add_row(*(one_line(c) for c in row))
    return table
