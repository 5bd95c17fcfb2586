"""Reading input that is not the library: a file named on the command line, or stdin.

Shared by ``add --from`` (:mod:`pubcli.usecases.adding`) and ``import``
(:mod:`pubcli.usecases.importing`), which sit above it and never import each other's helpers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from pubcli.errors import PubcliError


def source_label(source: str) -> str:
    """How messages name an input: its path, or "<stdin>" for "-"."""
    return "<stdin>" if source == "-" else source


def read_input(source: str, stdin: TextIO) -> str:
    """The text of the file ``source`` (UTF-8), or all of ``stdin`` for "-"; without
    a byte-order mark."""
    if source == "-":
        return stdin.read().removeprefix("\ufeff")
    from pubcli.store import read_text

    if not source.strip():
        raise PubcliError("the file name is empty")
    return read_text(Path(source))[1]
