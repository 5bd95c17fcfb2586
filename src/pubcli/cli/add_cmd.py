"""pubcli add: one new entry from options (with prompts on a terminal) or from BibTeX."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import typer

from . import common

def add_command(
    identifier: str | None = typer.Argument(
        None, metavar="[ID_OR_URL]",
        help="Fetch the entry for a DOI, arXiv id or ISBN, or a doi.org / arxiv.org URL."),
    type_: str | None = typer.Option(None, "--type", "-t",
                                        help="Entry type: inproceedings, article, techreport, "
                                             "misc... (default: inproceedings with --venue, "
                                             "else misc)."),
    title: str | None = typer.Option(None, "--title", help="The title."),
    author: list[str] | None = typer.Option(None, "--author",
                                               help="An author, 'First Last' or 'Last, First' "
                                                    "(repeatable, or 'A and B')."),
    year: str | None = typer.Option(None, "--year", "-y", help="Year of publication (YYYY)."),
    month: str | None = typer.Option(None, "--month", help="Month: name or number."),
    venue: str | None = typer.Option(None, "--venue",
                                        help="Where it appeared; stored as booktitle, journal, "
                                             "institution, school... by type."),
    doi: str | None = typer.Option(None, "--doi",
                                      help="DOI (10.xxxx/... or a doi.org URL); alone (without "
                                           "--title/--author) the entry is fetched from it."),
    arxiv: str | None = typer.Option(None, "--arxiv", help="Fetch the entry from arXiv."),
    isbn: str | None = typer.Option(None, "--isbn", help="Fetch the entry from Open Library."),
    url: str | None = typer.Option(None, "--url", help="A link to the paper."),
    area: list[str] | None = typer.Option(None, "--area", "-a",
                                             help="A research area (repeatable)."),
    field: list[str] | None = typer.Option(None, "--field", metavar="NAME=VALUE",
                                              help="Any other field (repeatable)."),
    key: str | None = typer.Option(None, "--key",
                                      help="Citation key (default: lastname + year + first "
                                           "title word, made unique)."),
    featured: bool = typer.Option(False, "--featured", help="Mark it featured."),
    from_: str | None = typer.Option(None, "--from", metavar="FILE.bib",
                                        help="Add the entries of a BibTeX file ('-': stdin)."),
    new: bool = typer.Option(False, "--new", help="Accept an area not in the vocabulary yet."),
    strict: bool = typer.Option(False, "--strict",
                                help="With --from: refuse entries BibTeX only warns about "
                                     "(a missing required field...) instead of adding them "
                                     "with a warning."),
    force: bool = typer.Option(False, "--force",
                               help="Add even if the type is unknown or it looks like a "
                                    "duplicate."),
    interactive: bool | None = typer.Option(
        None, "--interactive/--no-interactive",
        help="Prompt for missing required fields (default: when stdin is a terminal)."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Print the BibTeX that would be appended; write nothing."),
    explain: bool = typer.Option(False, "--explain", "--verbose",
                                 help="Show the full evidence behind the duplicate decision: "
                                      "each field's weight and what it rests on (for a new "
                                      "entry, against the closest entries)."),
    library: Path | None = common.LibraryOpt,
) -> None:
    """Add a publication to the library.

    From options, or from BibTeX with --from FILE.bib (or --from - for stdin).
    On a terminal, required fields that the options leave out are asked for.
    Before writing, the entry is checked against the library with the matcher
    of 'pubcli dedupe' (same DOI or arXiv id, or a close title with a shared
    author and year); a match is shown in one line and the add refused unless
    --force; --explain shows each field's weight behind the decision.
    Only the new entry's text is appended to the file; its key is printed.
    Entries from --from keep their keys as written; what BibTeX only warns
    about (a missing field) is a warning with its line (--strict refuses).

    Given a DOI, an arXiv id or an ISBN (or a doi.org / arxiv.org URL), the
    entry is fetched from Crossref or doi.org, arXiv or Open Library; other
    options given override what was fetched. See 'pubcli sync' for whole lists.

    Examples:

        pubcli add --doi 10.1145/3394486.3406703 --area "Artificial intelligence"

        pubcli add https://arxiv.org/abs/2101.06840 --dry-run

        pubcli add --title "Sparse Things" --author "Ada Lovelace" --year 2024

        pubcli add --title "Sparse Things" --author "A. Lovelace" --year 2024 --explain

        pubcli add --type article --venue "J. Things" --interactive

        pubcli add --from paper.bib --area "Systems and networking"
    """
    from pubcli.local import config
    from pubcli.usecases import adding as entries, importing as importers
    from pubcli.usecases import newentry
    from pubcli import store
    from ..errors import ValidationError
    from . import dialogues

    record_opts = {"--type": type_, "--title": title, "--author": author, "--year": year,
                   "--month": month, "--venue": venue, "--doi": doi, "--url": url,
                   "--field": field, "--key": key, "--arxiv": arxiv, "--isbn": isbn,
                   "ID_OR_URL": identifier}
    given = [name for name, v in record_opts.items() if v]
    if from_ is not None and given:
        raise ValidationError(f"--from reads the entries from BibTeX; {given[0]} cannot be "
                              "combined with it (only --area, --featured, --force, "
                              "--strict and --dry-run can)")
    path = common.library_path(library)
    cfg = config.load_config(path)
    if from_ is not None:
        dialogues.say_when_reading_a_terminal(from_, "paste BibTeX, end with Ctrl-D")
        text = importers.read_input(from_, sys.stdin)
        make_plan = partial(entries.plan_add_bibtex, text, source=from_, areas=area or [],
                            featured=featured, force=force, allow_new=new, strict=strict,
                            explain=explain)
    else:
        opts = newentry.EntryOptions(type=type_, title=title, authors=list(author or []),
                                    year=year, month=month, venue=venue, doi=doi, url=url,
                                    areas=list(area or []), fields=list(field or []),
                                    featured=featured)
        from ..online.ids import to_fetch

        ident = to_fetch(identifier, doi=doi, arxiv=arxiv, isbn=isbn, manual=bool(title or author))
        if ident is not None:
            from ..online import lookup

            from ..online.http import Client

            client = Client.from_environment()
            common.note_contact(client)
            opts, fetched_notes = lookup.options_for(*ident, given=opts, client=client)
            for line in fetched_notes:
                common.note(line)
        prompted = dialogues.stdin_is_terminal() if interactive is None else interactive
        if prompted and newentry.missing_required(opts, force=force):
            opts = dialogues.ask_missing_fields(opts, force=force)
            if not opts.areas:  # a conversation was started: the areas belong in it
                opts = _ask_areas(opts, path, cfg, allow_new=new)
        make_plan = partial(entries.plan_add, opts=opts, key=key, force=force, allow_new=new,
                            prompted=prompted, explain=explain)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        try:
            plan = make_plan(lib.records, config=cfg, digest=lib.document.digest)
        except entries.DuplicateEntry as exc:
            if explain:
                _explain(exc.judged)
            raise
        if explain:
            _explain(plan.judged)
        for line in plan.warnings:
            common.warn(line)
        for line in plan.notes:
            common.note(line)
        for rec in plan.records:
            lib.add(rec)
    if not dry_run:
        plan.written(lib.document.digest, lib.records)
    _report(lib, plan.records, dry_run)


def _explain(judged) -> None:
    from pubcli.render import duplicates

    text = duplicates.explanations(judged)
    if text:
        sys.stderr.write(text)


def _ask_areas(opts, path: Path, cfg, *, allow_new: bool):
    """The interactive add's question for areas, when there is a vocabulary to name."""
    from dataclasses import replace

    from pubcli import store
    from pubcli.usecases import areas as A

    from . import dialogues

    known = A.vocabulary(cfg.areas, [] if cfg.areas else store.load(path).records)
    if not known:
        return opts
    names = dialogues.ask_areas(known, lambda n: A.resolve(n, known, allow_new=allow_new,
                                                           option="area").name)
    return replace(opts, areas=names)


def _report(lib, added: list, dry_run: bool) -> None:
    from .. import store

    if dry_run:  # the text the real write would append, newlines and all
        nl = lib.newline
        sys.stdout.write((nl + nl).join(text for _, text in store.preview(lib)) + nl)
        common.note(f"dry run: would append {len(added)} entr"
                    f"{'y' if len(added) == 1 else 'ies'} to {lib.path}; nothing was written")
        return
    sys.stdout.write("".join(f"{r.key}\n" for r in added))
    common.note(f"added {', '.join(r.key for r in added)} to {lib.path}")


def register(app: typer.Typer) -> None:
    app.command("add")(add_command)
