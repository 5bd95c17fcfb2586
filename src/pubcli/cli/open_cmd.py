"""pubcli open: an entry's PDF, DOI, URL, code... in the platform's opener."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import typer

from . import common


def open_command(
    key: str = typer.Argument(..., metavar="KEY",
                              help="The entry's key (a unique prefix will do; KEY@LINE "
                                   "picks one of several entries with the same key)."),
    what: Optional[str] = typer.Option(None, "--what", metavar="WHAT",
                                       help="What to open: file, pdf, doi, url, arxiv, code, "
                                            "slides, video... (default: the first of file, "
                                            "pdf, doi, url, arxiv the entry has)."),
    print_: bool = typer.Option(False, "--print",
                                help="Print the address instead of opening it."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Open an entry's file, PDF, DOI, URL or code with the system's opener
    (xdg-open, open, or the Windows shell).

    A local file comes from the 'file' field (as JabRef and Zotero write it),
    relative to the library's folder; links from doi, url, eprint and the
    url_pdf / url_code / pdf / code fields. Without a display (an SSH session,
    a container) nothing is started: the address is printed and the command
    exits 2.

    Examples:

        pubcli open wang2024zero

        pubcli open wang2024 --what pdf

        pubcli open wang2024zero --what doi --print
    """
    from pubcli.usecases import opening, refs
    from pubcli import store

    path = common.library_path(library)
    lib = store.load(path)
    common.report_problems(lib)
    rec = refs.resolve(lib.records, key, path=path)
    target = opening.choose(rec, path.resolve().parent, what, path=path)
    if print_:
        common.echo(target.address + "\n")
        return
    _launch(target.address)
    common.note(f"opened the {target.what} of '{rec.key}': {target.address}")


def _launch(address: str) -> None:
    """Hand ``address`` to the platform's opener, detached; refuse without a display."""
    from ..errors import PubcliError

    if sys.platform == "win32":  # pragma: no cover - not run on the test machines
        os.startfile(address)  # type: ignore[attr-defined]
        return
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    if sys.platform != "darwin" and not (os.environ.get("DISPLAY")
                                         or os.environ.get("WAYLAND_DISPLAY")):
        _print_instead(address)
        raise PubcliError("no display to open it on ($DISPLAY and $WAYLAND_DISPLAY are "
                          "unset); the address is printed above")
    try:
        subprocess.Popen([opener, address], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    except OSError as exc:
        _print_instead(address)
        raise PubcliError(f"cannot start {opener} ({exc.strerror or exc}); the address is "
                          "printed above") from None


def _print_instead(address: str) -> None:
    common.echo(address + "\n")
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command("open")(open_command)
