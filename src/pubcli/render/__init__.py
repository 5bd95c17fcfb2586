"""Presentation: what the terminal, a pipe or a CI log gets (never prints itself).

* :mod:`.text`: :func:`clean`, the one sanitiser every text output uses, and
  the CSV and JSON cell rules;
* :mod:`.listing`: the layouts and machine formats of ``pubcli list``;
* :mod:`.entry`: one entry in full (``pubcli show``);
* :mod:`.table`: small tables that fit a wide terminal, a narrow one or a pipe;
* :mod:`.changes`: what a write did or would do, in words;
* :mod:`.wrap`: lines wrapped on words at a terminal's width, never inside a key or a path;
* :mod:`.ci`: GitHub workflow annotations;
* :mod:`.duplicates`: duplicate groups and match explanations (``pubcli dedupe``).

The names below are loaded on first use, so importing :mod:`pubcli.render.text`
at start-up costs nothing more.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a reader, mypy and "go to definition" see: the same names as _HOME
    from .ci import github_annotation, shown_path
    from .listing import (as_bibtex, as_csv, as_json, as_keys, fits_table, heading, lines,
                          plain, record_dict, stacked, tables)
    from .text import clean, csv_cell, json_safe, one_line

_HOME = {
    "github_annotation": "ci", "shown_path": "ci",
    "as_bibtex": "listing", "as_csv": "listing", "as_json": "listing", "as_keys": "listing",
    "fits_table": "listing", "heading": "listing", "lines": "listing", "plain": "listing",
    "record_dict": "listing", "stacked": "listing", "tables": "listing",
    "clean": "text", "csv_cell": "text", "json_safe": "text", "one_line": "text",
}

__all__ = [
    "as_bibtex",
    "as_csv",
    "as_json",
    "as_keys",
    "clean",
    "csv_cell",
    "fits_table",
    "github_annotation",
    "heading",
    "json_safe",
    "lines",
    "one_line",
    "plain",
    "record_dict",
    "shown_path",
    "stacked",
    "tables",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
