"""pubcli add: one new entry from options (with prompts on a terminal) or from BibTeX."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, List, Optional

import typer

from . import common

# What the prompt asks for each required field.
PROMPT_LABELS = {
    "title": "Title",
    "author": "Authors (e.g. 'Ada Lovelace and Charles Babbage')",
    "year": "Year",
    "booktitle": "Conference or proceedings (booktitle)",
    "journal": "Journal",
    "institution": "Institution",
    "school": "School",
    "publisher": "Publisher",
    "chapter": "Chapter",
    "note": "Note",
}


def add_command(
    type_: Optional[str] = typer.Option(None, "--type", "-t",
                                        help="Entry type: inproceedings, article, techreport, "
                                             "misc... (default: inproceedings with --venue, "
                                             "else misc)."),
    title: Optional[str] = typer.Option(None, "--title", help="The title."),
    author: Optional[List[str]] = typer.Option(None, "--author",
                                               help="An author, 'First Last' or 'Last, First' "
                                                    "(repeatable, or 'A and B')."),
    year: Optional[str] = typer.Option(None, "--year", "-y", help="Year of publication (YYYY)."),
    month: Optional[str] = typer.Option(None, "--month", help="Month: name or number."),
    venue: Optional[str] = typer.Option(None, "--venue",
                                        help="Where it appeared; stored as booktitle, journal, "
                                             "institution, school... by type."),
    doi: Optional[str] = typer.Option(None, "--doi", help="DOI (10.xxxx/... or a doi.org URL)."),
    url: Optional[str] = typer.Option(None, "--url", help="A link to the paper."),
    area: Optional[List[str]] = typer.Option(None, "--area", "-a",
                                             help="A research area (repeatable)."),
    field: Optional[List[str]] = typer.Option(None, "--field", metavar="NAME=VALUE",
                                              help="Any other field (repeatable)."),
    key: Optional[str] = typer.Option(None, "--key",
                                      help="Citation key (default: lastname + year + first "
                                           "title word, made unique)."),
    featured: bool = typer.Option(False, "--featured", help="Mark it featured."),
    from_: Optional[str] = typer.Option(None, "--from", metavar="FILE.bib",
                                        help="Add the entries of a BibTeX file ('-': stdin)."),
    new: bool = typer.Option(False, "--new", help="Accept an area not in the vocabulary yet."),
    force: bool = typer.Option(False, "--force",
                               help="Add even if the type is unknown or it looks like a "
                                    "duplicate."),
    interactive: Optional[bool] = typer.Option(
        None, "--interactive/--no-interactive",
        help="Prompt for missing required fields (default: when stdin is a terminal)."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Print the BibTeX that would be appended; write nothing."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Add a publication to the library.

    From options, or from BibTeX with --from FILE.bib (or --from - for stdin).
    On a terminal, required fields that the options leave out are asked for.
    Before writing, the entry is checked against the library with the matcher
    of 'pubcli dedupe' (same DOI or arXiv id, or a close title with a shared
    author and year); a match is shown and the add refused unless --force.
    Only the new entry's text is appended to the file; its key is printed.

    Examples:

        pubcli add --title "Sparse Things" --author "Ada Lovelace" --year 2024

        pubcli add --type article --venue "J. Things" --interactive

        pubcli add --from paper.bib --area "Systems and networking"
    """
    from .. import areas as A
    from .. import bibtex, config, entries, store
    from ..errors import ValidationError

    record_opts = {"--type": type_, "--title": title, "--author": author, "--year": year,
                   "--month": month, "--venue": venue, "--doi": doi, "--url": url,
                   "--field": field, "--key": key}
    if from_ is not None:
        given = [name for name, v in record_opts.items() if v]
        if given:
            raise ValidationError(f"--from reads the entries from BibTeX; {given[0]} cannot be "
                                  "combined with it (only --area, --featured, --force and "
                                  "--dry-run can)")
        text = _read_from(from_)
    if interactive is None:
        interactive = _stdin_is_terminal()
    for a in area or []:
        A.clean(a)

    path = common.library_path(library)
    cfg = config.load_config(path)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        vocab = A.vocabulary(cfg.areas, lib.records) if area else []
        areas = []
        for a in area or []:
            got = A.resolve(a, vocab, allow_new=new, option="--area")
            if got.is_new and cfg.areas:
                common.warn(f"area {got.name!r} is not in the 'areas' of {cfg.path}")
            if got.name.casefold() not in {x.casefold() for x in areas}:
                areas.append(got.name)
        if from_ is not None:
            added = _from_bibtex(lib, from_, text, areas=areas, featured=featured, force=force)
        else:
            opts = entries.EntryOptions(type=type_, title=title, authors=list(author or []),
                                        year=year, month=month, venue=venue, doi=doi, url=url,
                                        areas=areas, fields=list(field or []),
                                        featured=featured)
            rec = _from_options(opts, force=force, interactive=interactive)
            _guard(rec, lib.records, force=force)
            from ..keys import taken_keys

            rec = entries.assign_key(rec, taken_keys(lib.records), key)
            added = [rec]
        for rec in added:
            lib.add(rec)
        indent = bibtex.detect_indent(lib.text)
    _report(path, added, dry_run, indent)


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _read_from(source: str) -> str:
    from ..importers import read_path

    if source == "-":
        return sys.stdin.read()
    return read_path(source)


def _from_options(opts, *, force: bool, interactive: bool,
                  ask: Callable[[str, str | None], str] | None = None):
    """Build the record; on a terminal, prompt for what is missing."""
    from .. import entries
    from ..errors import ValidationError

    rec = entries.build(opts, force=force)
    missing = entries.missing_fields(rec.type, rec.fields)
    if missing and interactive:
        ask = ask or _ask
        if opts.type is None:
            opts.type = _ask_type(ask, rec.type, force)
            rec = entries.build(opts, force=force)
        extra: list[str] = []
        for spec in entries.missing_fields(rec.type, rec.fields):
            name = spec.split("|")[0]
            value = _ask_field(ask, name)
            if name == "author":
                opts.authors = [value]
            elif name == "title":
                opts.title = value
            elif name == "year":
                opts.year = value
            else:
                extra.append(f"{name}={value}")
        opts.fields = list(opts.fields) + extra
        rec = entries.build(opts, force=force)
    missing = entries.missing_fields(rec.type, rec.fields)
    if missing:
        names = ", ".join(entries.describe(s) for s in missing)
        hint = "" if interactive else " (give them as options, or run on a terminal to be asked)"
        raise ValidationError(f"@{rec.type} needs {names}{hint}; nothing was written")
    entries.validate(rec, force=force)
    return rec


def _ask(label: str, default: str | None) -> str:
    from rich.console import Console
    from rich.markup import escape
    from rich.prompt import Prompt

    from ..errors import PubcliError

    console = Console(stderr=True, highlight=False)
    try:
        if default is None:
            return Prompt.ask(escape(label), console=console)
        return Prompt.ask(escape(label), console=console, default=default)
    except EOFError:
        raise PubcliError(f"no answer for '{label}' (input ended); nothing was written") \
            from None


def _ask_type(ask, default: str, force: bool) -> str:
    from .. import entries
    from ..errors import ValidationError

    while True:
        answer = ask("Entry type", default).strip() or default
        try:
            return entries.check_type(answer, force=force)
        except ValidationError as exc:
            common.note(exc.message)


def _ask_field(ask, name: str) -> str:
    from .. import entries
    from ..errors import ValidationError

    label = PROMPT_LABELS.get(name, name.capitalize())
    while True:
        answer = " ".join(ask(label, None).split())
        if not answer:
            common.note(f"{name} is required")
            continue
        if name == "year":
            try:
                return entries.check_year(answer)
            except ValidationError as exc:
                common.note(exc.message)
                continue
        return answer


def _guard(rec, records, *, force: bool, label: str | None = None) -> None:
    """Refuse ``rec`` when the dedupe matcher finds it in ``records`` (unless forced)."""
    from ..dedupe import find_matches
    from ..errors import DuplicateError
    from ..latex import to_text

    matches = find_matches(rec, records)
    if not matches:
        return
    what = label or f"'{to_text(rec.title)}'"
    for m in matches[:5]:
        where = f" (line {m.record.line})" if m.record.line else ""
        common.warn(f"{what} matches '{m.record.key}'{where}: {to_text(m.record.title)} "
                    f"[{m.rule}; {', '.join(m.evidence)}]")
    if force:
        common.warn(f"adding {what} anyway (--force)")
        return
    best = matches[0]
    raise DuplicateError(f"{what} looks like a duplicate of '{best.record.key}' "
                         f"({', '.join(best.evidence[:2]) or best.rule}); nothing was written "
                         "(use --force to add it anyway)")


def _from_bibtex(lib, source: str, text: str, *, areas: list[str], featured: bool,
                 force: bool) -> list:
    from .. import bibtex, entries
    from ..errors import ParseError, ValidationError
    from ..keys import taken_keys
    from ..model import Record

    where = "<stdin>" if source == "-" else source
    parsed = bibtex.parse(text[1:] if text.startswith("\ufeff") else text)
    if parsed.failed:
        f = parsed.failed[0]
        raise ParseError(f"could not read this entry: {f.reason}; nothing was written",
                         path=where, line=f.line)
    if not parsed.records:
        raise ValidationError(f"{where}: no BibTeX entries found; nothing was written")
    taken = taken_keys(lib.records)
    pool = list(lib.records)
    out = []
    for src in parsed.records:
        rec = Record(src.key, src.type, dict(src.fields))
        rec = entries.apply_extras(rec, areas, featured)
        try:
            entries.validate(rec, force=force)
        except ValidationError as exc:
            raise ValidationError(exc.message, path=where, line=src.line,
                                  field=exc.field) from None
        _guard(rec, pool, force=force, label=f"{where}:{src.line}: '{rec.key}'")
        rec, old_key = entries.keep_or_renew_key(rec, taken)
        if old_key is not None:
            common.note(f"{where}:{src.line}: the key '{old_key}' is taken; "
                        f"the entry is added as '{rec.key}'")
        pool.append(rec)
        out.append(rec)
    return out


def _report(path, added: list, dry_run: bool, indent: str) -> None:
    from .. import bibtex

    if dry_run:
        sys.stdout.write("".join(bibtex.format_entry(r, indent=indent) + "\n\n"
                                 for r in added).rstrip("\n") + "\n")
        common.note(f"dry run: would append {len(added)} entr"
                    f"{'y' if len(added) == 1 else 'ies'} to {path}; nothing was written")
        return
    sys.stdout.write("".join(f"{r.key}\n" for r in added))
    common.note(f"added {', '.join(r.key for r in added)} to {path}")


def register(app: typer.Typer) -> None:
    app.command("add")(add_command)
