"""pubcli areas: the research areas with their publication counts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from . import common


def areas_command(
    json_: bool = typer.Option(False, "--json", help="Print JSON: [{area, count, configured}]."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """List the research areas and how many publications each has.

    The areas of pubcli.toml come first, in their order (with 0 when unused),
    then the other areas found in the library. Piped, each line is
    "AREA<tab>COUNT". Areas match case-insensitively; rename one with
    'pubcli tag --rename OLD NEW'.

    Example:

        pubcli areas
    """
    from .. import areas as A
    from .. import config, store

    path = common.library_path(library)
    lib = store.load(path)
    common.report_problems(lib)
    cfg = config.load_config(path)
    rows = A.counts(lib.records, cfg.areas)
    out = sys.stdout
    if json_:
        out.write(json.dumps([{"area": r.name, "count": r.count, "configured": r.configured}
                              for r in rows], ensure_ascii=False, indent=2) + "\n")
    elif not rows:
        common.note(f"no research areas yet: none in {cfg.path or 'a pubcli.toml'} and no "
                    "entry has 'keywords'; file entries with 'pubcli tag KEY --add AREA --new'")
    elif common.stdout_is_terminal():
        from rich.console import Console
        from rich.table import Table

        table = Table(show_edge=False, header_style="bold")
        table.add_column("Area")
        table.add_column("Publications", justify="right")
        if cfg.areas:
            table.add_column("In config")
        for r in rows:
            cells = [r.name, str(r.count)]
            if cfg.areas:
                cells.append("yes" if r.configured else "no")
            table.add_row(*cells)
        Console(highlight=False).print(table)
    else:
        out.write("".join(f"{r.name}\t{r.count}\n" for r in rows))
    if cfg.areas:
        extra = [r.name for r in rows if not r.configured]
        if extra:
            common.warn(f"{len(extra)} area{'s' if len(extra) > 1 else ''} in the library "
                        f"{'are' if len(extra) > 1 else 'is'} not in the 'areas' of {cfg.path}: "
                        + ", ".join(repr(a) for a in extra))


def register(app: typer.Typer) -> None:
    app.command("areas")(areas_command)
