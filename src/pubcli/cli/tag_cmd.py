"""pubcli tag: add, remove or rename research areas; set the featured marker."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Tuple

import typer

from . import common


def tag_command(
    keys: Optional[List[str]] = typer.Argument(None, metavar="[KEY]...",
                                               help="Citation keys of the entries to change."),
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
                             help="Accept an area that is not in the vocabulary yet."),
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
    suggestion when it is close to one, unless --new. Only the changed entries'
    text is rewritten. Each changed entry is printed on stdout.

    Examples:

        pubcli tag wang2024zero --add "Systems and networking"

        pubcli tag --search "deep learning" --year 2015.. --add "Artificial intelligence" --all

        pubcli tag --rename "Hardware and devices" "Hardware"

        pubcli tag yan2016serf --featured
    """
    from .. import areas as A
    from .. import config, store
    from ..errors import ValidationError

    keys = list(keys or [])
    add = list(add or [])
    remove = list(remove or [])
    filters = common.build_filters(area, type_, year, author, search)
    if rename is not None:
        if keys or add or remove or featured is not None or not filters.is_empty() or all_:
            raise ValidationError("--rename works on the whole library; give it alone "
                                  "(with --new or --dry-run if needed)")
    elif not (add or remove or featured is not None):
        raise ValidationError("nothing to do: give --add AREA, --remove AREA, --rename OLD NEW, "
                              "--featured or --not-featured")
    if keys and (all_ or not filters.is_empty()):
        raise ValidationError("give KEYs or filters with --all, not both")
    for name in add + remove:
        A.clean(name, what="area")

    path = common.library_path(library)
    cfg = config.load_config(path)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        if rename is not None:
            changes = _rename(lib, cfg.areas, rename[0], rename[1], allow_new=new)
        else:
            targets = _select(lib, keys, filters, all_=all_, dry_run=dry_run)
            vocab = A.vocabulary(cfg.areas, lib.records) if add else []
            to_add = _unique([A.resolve(a, vocab, allow_new=new, option="--add").name
                              for a in add])
            known = list(cfg.areas) + A.library_areas(lib.records) if remove else []
            to_remove = _unique([A.resolve(a, known, option="--remove").name for a in remove])
            both = {a.casefold() for a in to_add} & {a.casefold() for a in to_remove}
            if both:
                raise ValidationError(f"area {sorted(both)[0]!r} is both added and removed")
            changes = []
            for rec in targets:
                out = A.edit(rec, to_add, to_remove) or rec
                if featured is not None:
                    out = A.set_featured(out, featured) or out
                if out is not rec:
                    changes.append((rec, out))
            if cfg.areas and new:
                configured = {a.casefold() for a in cfg.areas}
                for a in to_add:
                    if a.casefold() not in configured:
                        common.warn(f"area {a!r} is not in the 'areas' of {cfg.path}; add it "
                                    "there to give it a place in lists and pages")
        for old, rec in changes:
            lib.replace(old.key, rec)
        _report(changes, dry_run)


def _unique(names: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for n in names:
        if n.casefold() not in seen:
            seen.add(n.casefold())
            out.append(n)
    return out


def _select(lib, keys: list[str], filters, *, all_: bool, dry_run: bool) -> list:
    from ..errors import NotFound, ValidationError
    from ..grouping import select

    if keys:
        out = []
        folded = None
        for key in keys:
            rec = lib.get(key)
            if rec is None:
                if folded is None:
                    folded = {r.key.casefold(): r for r in lib.records}
                rec = folded.get(key.casefold())
            if rec is None:
                raise NotFound(f"no entry with key '{key}'{_key_hint(key, lib)}; "
                               "nothing was changed", path=lib.path)
            if all(rec is not r for r in out):
                out.append(rec)
        return out
    if filters.is_empty() and not all_:
        raise ValidationError("name the entries by KEY, or select them with --search, --year, "
                              "--type, --area or --author plus --all (--all alone: every entry)")
    chosen = select(lib.records, filters)
    if not all_ and not dry_run:
        raise ValidationError(f"the filters select {len(chosen)} "
                              f"entr{'y' if len(chosen) == 1 else 'ies'}; add --all to change "
                              "them (or --dry-run to see them first)")
    return chosen


def _key_hint(key: str, lib) -> str:
    from rapidfuzz import process

    best = process.extractOne(key, lib.keys(), score_cutoff=80)
    return f" (did you mean '{best[0]}'?)" if best else ""


def _rename(lib, config_areas: list[str], old: str, new: str, *, allow_new: bool) -> list:
    from .. import areas as A
    from ..errors import ValidationError
    from ..latex import fold

    old = A.clean(old, what="area")
    new = A.clean(new, what="area")
    used = A.find_used(old, lib.records)
    if used is None:
        known = A.library_areas(lib.records)
        close = A.suggest(old, known)
        hint = f"; did you mean {close!r}?" if close else ""
        raise ValidationError(f"--rename: no entry has the area {old!r}{hint}")
    vocab = A.vocabulary(config_areas, lib.records)
    if not allow_new and not any(fold(v) == fold(new) for v in vocab):
        others = [v for v in vocab if fold(v) != fold(used)]
        close = A.suggest(new, others)
        if close is not None:
            raise ValidationError(f"--rename: {new!r} is close to the existing area {close!r}; "
                                  f"did you mean {close!r}? (pass --new to use {new!r})")
    changes = []
    for rec in lib.records:
        out = A.rename(rec, used, new)
        if out is not None:
            changes.append((rec, out))
    if any(fold(a) == fold(used) for a in config_areas) and fold(used) != fold(new):
        common.warn(f"{lib.path}: renamed {used!r} to {new!r}; the 'areas' list in the config "
                    f"still has {used!r}: edit it there too")
    return changes


def _describe(old, new) -> str:
    parts = []
    if old.areas != new.areas:
        parts.append(f"areas: {', '.join(old.areas) or '-'} -> {', '.join(new.areas) or '-'}")
    if old.featured != new.featured or ("featured" in old.fields) != ("featured" in new.fields):
        parts.append(f"featured: {'yes' if old.featured else 'no'} -> "
                     f"{'yes' if new.featured else 'no'}")
    return "; ".join(parts)


def _report(changes: list, dry_run: bool) -> None:
    out = sys.stdout
    out.write("".join(f"{new.key}: {_describe(old, new)}\n" for old, new in changes))
    n = len(changes)
    what = f"{n} entr{'y' if n == 1 else 'ies'}"
    if dry_run:
        common.note(f"dry run: would change {what}; nothing was written")
    elif n:
        common.note(f"changed {what}")
    else:
        common.note("nothing to change: the entries already read that way")


def register(app: typer.Typer) -> None:
    app.command("tag")(tag_command)
