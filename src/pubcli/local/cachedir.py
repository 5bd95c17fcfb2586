"""Where pubcli keeps its private files (parse and display caches, the key index for
completion, the undo journal), and the one rule for trusting them: the folder and
the file belong to the user and nobody else can write them.

Import-light on purpose: shell completion reads the key index without loading the
store (see :mod:`pubcli.usecases.complete`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def cache_dir() -> Path:
    """``$PUBCLI_CACHE_DIR``, else ``$XDG_CACHE_HOME/pubcli``, else ``~/.cache/pubcli``."""
    base = os.environ.get("PUBCLI_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base else Path.home() / ".cache"
    return root / "pubcli" if not os.environ.get("PUBCLI_CACHE_DIR") else root


def cache_file(path: str | os.PathLike[str], suffix: str = ".marshal") -> Path:
    """The private file with ``suffix`` that belongs to the library at ``path``."""
    name = hashlib.sha1(os.path.realpath(path).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir() / f"{name}{suffix}"


def disabled() -> bool:
    return bool(os.environ.get("PUBCLI_NO_CACHE"))


def private(p: Path, *, is_dir: bool) -> bool:
    """True when ``p`` belongs to us and nobody else can write it."""
    try:
        st = p.lstat()
    except OSError:
        return False
    if is_dir and not stat.S_ISDIR(st.st_mode):
        return False
    if not is_dir and not stat.S_ISREG(st.st_mode):
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not (st.st_mode & 0o022)


def make_private_dir() -> Path | None:
    """The cache folder, created private if missing; None when it is not ours."""
    cdir = cache_dir()
    try:
        cdir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return cdir if private(cdir, is_dir=True) else None
