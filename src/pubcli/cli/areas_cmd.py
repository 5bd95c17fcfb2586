"""pubcli areas: the research areas with their publication counts."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from . import common


class AreasFormat(str, Enum):
    text = "text"
    json = "json"


def areas_command(
    format: AreasFormat = typer.Option(
        AreasFormat.text, "--format", "-f",
        help="text: a table on a terminal, 'AREA<tab>COUNT' lines when piped; "
             "json: [{area, count, configured}]."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """List the research areas and how many publications each has.

    The areas of pubcli.toml come first, in their order (with 0 when unused),
    then the other areas found in the library. Piped, each line is
    "AREA<tab>COUNT". Areas match case-insensitively; rename one with
    'pubcli tag --rename OLD NEW'.

    Examples:

        pubcli areas

        pubcli areas --format json
    """
    from pubcli.usecases import areas as A
    from pubcli.local import config
    from pubcli import store

    path = common.library_path(library)
    lib = store.load(path)
    common.report_problems(lib)
    cfg = config.load_config(path)
    rows = A.counts(lib.records, cfg.areas)
    if format is AreasFormat.json:
        sys.stdout.write(_json(rows))
    elif not rows:
        common.note(f"no research areas yet: none in {cfg.path or 'a pubcli.toml'} and no "
                    "entry has 'keywords'; file entries with 'pubcli tag KEY --add AREA --new'")
    else:
        headers = ["Area", "Publications"] + (["In config"] if cfg.areas else [])
        common.print_rows(headers, [[r.name, str(r.count)]
                                    + (["yes" if r.configured else "no"] if cfg.areas else [])
                                    for r in rows], right=("Publications",), piped_columns=2)
    extra = [r.name for r in rows if not r.configured] if cfg.areas else []
    if extra:
        common.warn(f"{len(extra)} area{'s' if len(extra) > 1 else ''} in the library "
                    f"{'are' if len(extra) > 1 else 'is'} not in the 'areas' of {cfg.path}: "
                    + ", ".join(repr(a) for a in extra))


def _json(rows) -> str:
    import json

    from ..render import json_safe

    return json_safe(json.dumps([{"area": r.name, "count": r.count, "configured": r.configured}
                                 for r in rows], ensure_ascii=False, indent=2)) + "\n"


def register(app: typer.Typer) -> None:
    app.command("areas")(areas_command)
