"""Rows of cells for a terminal or a pipe: one helper for every small table.

On a wide terminal: a rich table. On a narrow one: a block of "Header: value"
lines per row, so nothing is cut. Piped: one tab-separated line per row, no
padding and no ANSI codes. A report of many decisions (``import``) gets
:func:`fitted` on a terminal: one screen line per row, long cells cut with "…".
Cells are cleaned (:func:`pubcli.render.text.clean`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .text import one_line

NARROW = 60  # at or below this many columns a terminal gets stacked rows
RICH_ROW_LIMIT = 600  # more rows than this are printed as lines even on a terminal
GAP = "  "  # between the columns of :func:`fitted`
#: In :func:`fitted`, a column that is not flexible takes at most this share of the
#: width (and at least MIN_CELL columns); flexible ones at least MIN_CELL.
FIXED_SHARE, MIN_CELL = 1 / 3, 8


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


def fitted(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int, *,
           flexible: Mapping[str, float]) -> list[str]:
    """The header and each row as one screen line of at most ``width`` columns
    (wider only when even the narrowest cells do not fit): each cell takes its
    column's width, a longer one cut with "…". Columns not in ``flexible`` take their
    widest cell (at most FIXED_SHARE of the width); the ``flexible`` ones share the rest
    in proportion to their weights, none wider than its widest cell (what a narrow one
    leaves goes to the others)."""
    from rich.cells import cell_len

    table = [list(headers)] + [[one_line(c) for c in row] for row in rows]
    widest = [max(cell_len(r[n]) if n < len(r) else 0 for r in table)
              for n in range(len(headers))]
    cap = max(MIN_CELL, int(width * FIXED_SHARE))
    sizes = [w if h in flexible else min(w, cap) for h, w in zip(headers, widest, strict=True)]
    share = {n: flexible[h] for n, h in enumerate(headers) if h in flexible}
    left = width - len(GAP) * (len(headers) - 1) - sum(
        s for n, s in enumerate(sizes) if n not in share)
    # the columns that need least of their share first: what they leave goes on
    for n in sorted(share, key=lambda n: widest[n] / share[n]):
        fair = int(left * share[n] / sum(share.values()))
        sizes[n] = max(min(widest[n], fair), min(widest[n], MIN_CELL))
        left -= sizes[n]
        del share[n]
    return [_line(r, sizes, [h in flexible for h in headers]) for r in table]


def _line(row: Sequence[str], sizes: Sequence[int], flexible: Sequence[bool]) -> str:
    """One row of :func:`fitted`; a flexible cell followed only by empty ones runs on
    over their columns (the title of an item with no match takes its place)."""
    cells = [row[n] if n < len(row) else "" for n in range(len(sizes))]
    last = max((n for n, c in enumerate(cells) if c), default=0)
    widths = list(sizes[:last + 1])
    if flexible[last]:
        widths[last] += sum(len(GAP) + w for w in sizes[last + 1:])
    return GAP.join(_cut(c, w) for c, w in zip(cells, widths, strict=False)).rstrip()


def _cut(text: str, size: int) -> str:
    """``text`` padded or cut (ending "…") to ``size`` screen columns."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= size:
        return set_cell_size(text, size)
    return set_cell_size(text, max(size - 1, 0)) + "…"
