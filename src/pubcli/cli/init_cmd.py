"""pubcli init: create an empty library and its pubcli.toml."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from . import common

HEADER = ("% Publication list managed with pubcli.\n"
          "% Research areas are stored in `keywords`, comma-separated; "
          "`featured = {true}` marks featured items.\n")


def init_command(
    path: Path = typer.Argument(Path("data/library.bib"), help="Where to create the library."),
    owner: Optional[str] = typer.Option(None, "--owner", help="Your name, as in author lists."),
    role: Optional[str] = typer.Option(None, "--role", help="Your role, for exported pages."),
    area: Optional[List[str]] = typer.Option(None, "--area", "-a",
                                             help="A research area (repeatable; order kept)."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Say what would be created; write nothing."),
) -> None:
    """Create an empty library (data/library.bib) and a pubcli.toml beside it.

    Also writes a .gitignore there for pubcli's lock file, unless one exists.
    Refuses to overwrite an existing library or config.

    Examples:

        pubcli init --owner "Ada Lovelace" --area "Artificial intelligence"

        pubcli init papers/refs.bib --dry-run
    """
    from pubcli.local import config
    from ..errors import PubcliError, ValidationError
    from ..store import atomic_write

    if str(path).strip() == "":
        raise ValidationError("the library path is empty")
    cfg_path = path.parent / config.CONFIG_NAME
    for p in (path, cfg_path):
        if p.exists():
            raise ValidationError(f"{p} already exists; nothing was changed")
    for a in area or []:
        if "," in a or ";" in a:
            raise ValidationError(f"area {a!r} contains a separator (',' or ';')",
                                  field="--area")
    ignore = path.parent / ".gitignore"
    if dry_run:
        made = [path, cfg_path] + ([] if ignore.exists() else [ignore])
        common.note(f"dry run: would create {', '.join(map(str, made))}; nothing was written")
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PubcliError(f"cannot create the folder: {exc.strerror}", path=path.parent) from None
    atomic_write(path, HEADER.encode("utf-8"))
    if not ignore.exists():  # the lock file and any temp file a crash left behind
        atomic_write(ignore, b"# written by pubcli init\n.*.lock\n.*.pubcli-tmp\n")
    try:
        config.write_config(cfg_path, owner, role, list(area or []))
    except OSError as exc:
        raise PubcliError(f"cannot write: {exc.strerror}", path=cfg_path) from None
    common.note(f"created {path} and {cfg_path}")


def register(app: typer.Typer) -> None:
    app.command("init")(init_command)
