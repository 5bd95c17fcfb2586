"""Where an export may be written: never over the library or any BibTeX file.

An export replaces its target whole, so a slip such as ``-o lib.bib`` (or a
symlink, a hard link, ``sub/../lib.bib``) would turn the library into a web
page. :func:`write` refuses those before anything is written and otherwise
replaces the target atomically with :func:`pubcli.store.atomic_write`.
"""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Iterable

from ..errors import WriteError

PROTECTED_SUFFIXES = (".bib",)


def refusal(output: Path, library: Path | None) -> str | None:
    """Why ``output`` must not be written (None when it may be)."""
    if not os.path.lexists(output):
        return None
    real = Path(os.path.realpath(output))
    if library is not None and os.path.exists(library):
        try:
            if os.path.samefile(real, library):
                return "is the library itself; give another file name such as index.html"
        except OSError:
            pass
    if real.exists() and any(p.suffix.lower() in PROTECTED_SUFFIXES for p in (output, real)):
        return "is a BibTeX file (.bib); an export never replaces one"
    return None


def write(output: Path, data: bytes | Iterable[bytes], *, library: Path | None = None) -> None:
    """Write ``data`` (bytes, or chunks as they are made) to ``output`` atomically
    (folders created), unless it is the
    library or an existing ``.bib`` file: then :class:`WriteError`, nothing written."""
    from .. import store

    why = refusal(output, library)
    if why:
        raise WriteError(f"{why}; nothing was written", path=output)
    if output.is_dir():
        raise WriteError("is a folder; give a file name such as index.html", path=output)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"cannot create the folder: {exc.strerror or exc}",
                         path=output.parent) from None
    store.atomic_write(output, data)
