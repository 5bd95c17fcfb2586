"""The pandoc program: found, checked and run here, nowhere else.

pandoc's citeproc (the Haskell ``citeproc`` library, CSL 1.0.2) formats every
styled reference pubcli writes. :func:`find` looks for ``pandoc`` on ``PATH``
first, then for the binary that the ``pypandoc-binary`` wheel carries (the
``styles`` extra: ``pip install "pubcli[styles]"``). No pandoc, no styled output:
:class:`PandocMissing` says in one line how to get it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple
from collections.abc import Sequence

from ..errors import PubcliError

MIN_VERSION = (2, 11)  # citeproc built in (--citeproc) from 2.11 on
HOW_TO_GET = ('citation styles need pandoc >= 2.11: pip install "pubcli[styles]" '
              "(or apt-get install pandoc, brew install pandoc)")


class PandocMissing(PubcliError):
    """No usable pandoc: not on PATH, not in the pypandoc-binary wheel, or too old."""


class PandocFailed(PubcliError):
    """pandoc ran and failed (a style it cannot read, an internal error)."""


class Pandoc(NamedTuple):
    path: str
    identity: str  # path, size and modification time: what a cache of its output keys on

    @property
    def version(self) -> tuple[int, ...]:
        return _checked_version(self.path)


def _wheel_binary() -> str | None:
    """The pandoc inside the pypandoc-binary wheel (``pypandoc/files/pandoc``)."""
    from importlib.util import find_spec

    try:
        spec = find_spec("pypandoc")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for name in ("pandoc", "pandoc.exe"):
            path = Path(folder) / "files" / name
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
    return None


def _version(path: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=30, check=False).stdout
    except OSError:
        return None
    m = re.match(r"pandoc(?:\.exe)?\s+(\d+(?:\.\d+)*)", out)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


@lru_cache(maxsize=1)
def find() -> Pandoc:
    """The pandoc to use: ``$PUBCLI_PANDOC``, else ``pandoc`` on PATH, else the wheel's.
    Cheap (no process is started): its version is checked when it first runs."""
    wanted = os.environ.get("PUBCLI_PANDOC")
    candidates = [wanted] if wanted else [shutil.which("pandoc"), _wheel_binary()]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            st = os.stat(path)
            return Pandoc(path, f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}")
    raise PandocMissing(HOW_TO_GET)


@lru_cache(maxsize=8)
def _checked_version(path: str) -> tuple[int, ...]:
    version = _version(path)
    if version is None:
        raise PandocMissing(f"{HOW_TO_GET} ({path} does not run)")
    if version[:2] < MIN_VERSION:
        raise PandocMissing(f"{HOW_TO_GET} ({path} is {'.'.join(map(str, version))})")
    return version


def run(args: Sequence[str], stdin: str, *, timeout: float = 600) -> str:
    """pandoc ``args`` reading ``stdin``; its standard output (UTF-8 text)."""
    return run_bytes(args, stdin, timeout=timeout).decode("utf-8")


def run_bytes(args: Sequence[str], stdin: str, *, timeout: float = 600,
              env: dict[str, str] | None = None) -> bytes:
    """pandoc ``args`` reading ``stdin``; its standard output as bytes (a .docx)."""
    exe = find()
    exe.version  # noqa: B018 - too old: one line saying so, before any work
    try:
        p = subprocess.run([exe.path, *args], input=stdin.encode("utf-8"), capture_output=True,
                           timeout=timeout, check=False,
                           env={**os.environ, **env} if env else None)
    except subprocess.TimeoutExpired:
        raise PandocFailed(f"pandoc took longer than {timeout:.0f} s") from None
    except OSError as exc:
        raise PandocMissing(f"{HOW_TO_GET} ({exe.path}: {exc.strerror or exc})") from None
    if p.returncode != 0:
        why = " ".join(p.stderr.decode("utf-8", "replace").split())[:300]
        raise PandocFailed(f"pandoc failed: {why or f'exit status {p.returncode}'}")
    return p.stdout


__all__ = ["Pandoc", "PandocMissing", "PandocFailed", "find", "run", "run_bytes", "HOW_TO_GET"]
