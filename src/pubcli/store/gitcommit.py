"""Commit a write of the library in its git repository (opt-in: ``pubcli --git`` or
``git = true`` in pubcli.toml), with the command that wrote it as the message.

Only the library file is committed (``git commit -- FILE``): whatever else is
staged stays staged.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..errors import WriteError


def commit(path: Path, message: str) -> None:
    """``git add`` and ``git commit`` the file at ``path``; a failure is a
    :class:`WriteError` that says the file itself was written."""
    real = path.resolve()
    folder = real.parent

    def git(*args: str) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(["git", "-C", str(folder), *args], capture_output=True,
                                  text=True, stdin=subprocess.DEVNULL, check=False)
        except OSError as exc:
            raise WriteError(f"the file was written, but git could not run "
                             f"({exc.strerror or exc}); nothing was committed",
                             path=path) from None

    if git("rev-parse", "--is-inside-work-tree").stdout.strip() != "true":
        raise WriteError("the file was written, but it is not in a git repository (git = "
                         "true or --git); nothing was committed", path=path)
    for args in (("add", "--", real.name), ("commit", "-q", "-m", message, "--", real.name)):
        done = git(*args)
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip().splitlines()
            raise WriteError(f"the file was written, but 'git {args[0]}' failed"
                             + (f": {why[-1]}" if why else "") + "; nothing was committed",
                             path=path)
