"""pubcli tag: add, remove or rename research areas; set the featured marker."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Tuple

import typer

from . import common


def tag_command(
    keys: Optional[List[str]] = typer.Argument(
        None, metavar="[KEY]...",
        help="Citation keys of the entries to change (KEY@LINE picks one of several entries "
             "with that key)."),
    add: Optional[List[str]] = typer.Option(None, "--add", metavar="AREA",
                                            help="Add this research area (repeatable)."),
    remove: Optional[List[str]] = typer.Option(None, "--remove", metavar="AREA",
                                               help="Remove this research area (repeatable)."),
    rename: Optional[Tuple[str, str]] = typer.Option(
        None, "--rename", metavar="OLD NEW",
        help="Rename an area in every entry of the library (merges into NEW if present)."),
    featured: Optional[bool] = typer.Option(None, "--featured/--not-featured",
                                            help="Set or clear the featured marker."),
    new: bool = typer.Option(False, "--new",
                             help="Accept an area that is not in the vocabulary yet, and "
                                  "add it to the 'areas' list of pubcli.toml."),
    all_: bool = typer.Option(False, "--all",
                              help="Confirm a change to every entry the filters select "
                                   "(alone: every entry)."),
    area: Optional[List[str]] = typer.Option(None, "--area", "-a",
                                             help="Select entries in this area (repeatable)."),
    type_: Optional[List[str]] = common.TypeOpt,
    year: Optional[str] = common.YearOpt,
    author: Optional[List[str]] = common.AuthorOpt,
    search: Optional[str] = common.SearchOpt,
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Show what would change; write nothing."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """File entries under research areas, or mark them featured.

    Name entries by KEY, or select them with the filters of 'list' (--search,
    --year, --type, --area, --author) and confirm with --all. Areas come from
    the 'areas' list in pubcli.toml (else those already in the library) and
    match case-insensitively; a name that is not there is refused, with a
    suggestion when it is close to one, unless --new, which also adds it to the
    'areas' list of pubcli.toml (comments and layout kept). --rename also renames
    the area in that list. Only
    the changed entries' text is rewritten. Each changed entry is printed on
    stdout.

    Examples:

        pubcli tag wang2024zero --add "Systems and networking"

        pubcli tag --search "deep learning" --year 2015.. --add "Artificial intelligence" --all

        pubcli tag --rename "Hardware and devices" "Hardware"

        pubcli tag yan2016serf --featured
    """
    from pubcli.usecases import areas as A
    from pubcli.local import config
    from pubcli import store
    from ..render import changes as say

    filters = common.build_filters(area, type_, year, author, search)
    path = common.library_path(library)
    cfg = config.load_config(path)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        plan = A.plan_tag(lib.records, cfg, keys=keys or [], filters=filters, add=add or [],
                          remove=remove or [], featured=featured, rename=rename,
                          allow_new=new, confirm_all=all_, preview=dry_run,
                          path=path)
        for old, rec in plan.changes:
            lib.replace(old, rec)
    if plan.config_rename and not dry_run:
        config.rename_area(cfg, *plan.config_rename)
    listed = plan.config_add if dry_run else config.add_areas(cfg, plan.config_add)
    for line in plan.warnings:
        common.warn(line)
    sys.stdout.write(say.tag_changes(plan.changes))
    if plan.config_rename:
        common.note(f"{'would rename' if dry_run else 'renamed'} {plan.config_rename[0]!r} to "
                    f"{plan.config_rename[1]!r} in the 'areas' of {cfg.path}")
    if listed:
        common.note(f"{'would add' if dry_run else 'added'} "
                    + ", ".join(repr(a) for a in listed)
                    + f" to the 'areas' of {cfg.path} (its comments and layout kept)")
    common.note(say.outcome(len(plan.changes), dry_run, verb="change",
                            none="nothing to change: the entries already read that way"))


def register(app: typer.Typer) -> None:
    app.command("tag")(tag_command)
