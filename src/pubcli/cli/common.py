"""Pieces every command shares: options, library resolution, output helpers."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable

import typer

from pubcli.local import config
from ..render.text import clean

if TYPE_CHECKING:
    from pubcli.store import Library, Listing
    from pubcli.usecases.grouping import Filters

LibraryOpt = typer.Option(None, "--library", "-l", metavar="PATH",
                          help="The .bib file (default: $PUBCLI_LIBRARY, else data/library.bib "
                               "found from here upward).")


def library_path(explicit: Path | None) -> Path:
    """The library: the command's ``-l``, else the root's (``pubcli -l PATH CMD``), else
    $PUBCLI_LIBRARY or data/library.bib found upward."""
    if explicit is None:
        from ._click import get_current_context

        ctx = get_current_context(silent=True)
        root = ctx.find_root() if ctx is not None else None
        if root is not None and isinstance(root.obj, dict):
            explicit = root.obj.get("library")
    return config.find_library(explicit)


def warn(message: str) -> None:
    sys.stderr.write(f"warning: {clean(message)}\n")


def note(message: str) -> None:
    sys.stderr.write(f"{clean(message)}\n")


def report_problems(lib: Library | Listing) -> None:
    """Tell the user (on stderr) about blocks kept verbatim and other load problems."""
    problems = lib.problems
    for shown, p in enumerate(problems):
        if shown == 20:
            warn(f"{lib.path}: {len(problems) - 20} more problems; run 'pubcli check'")
            break
        warn(f"{lib.path}:{p.line}: {p.message}")


def is_terminal(stream: Any, *, override: bool = False) -> bool:
    """Is ``stream`` a terminal? The one test every command asks. With ``override``
    (what is rendered on stdout), ``TTY_COMPATIBLE=1``/``0`` decides when set, as rich
    reads it; a prompt, a pager, a progress bar and the line after ``^C`` need a real one."""
    if override:
        forced = os.environ.get("TTY_COMPATIBLE")
        if forced in {"0", "1"}:
            return forced == "1"
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def stdout_is_terminal() -> bool:
    """Is stdout a terminal (``TTY_COMPATIBLE`` overrides: :func:`is_terminal`)?"""
    return is_terminal(sys.stdout, override=True)


def terminal_width() -> int:
    """The terminal's width in columns ($COLUMNS first, as rich and click read it)."""
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def print_rows(headers: list[str], rows: list[list[str]], *, right: tuple[str, ...] = (),
               piped_columns: int | None = None) -> None:
    """Small tables: rich on a wide terminal, stacked on a narrow one, tab-separated
    when piped (the first ``piped_columns`` only; see :mod:`pubcli.render.table`)."""
    from ..render import table

    if not stdout_is_terminal() or len(rows) > table.RICH_ROW_LIMIT:
        sys.stdout.write(table.piped([r[:piped_columns] for r in rows]))
    elif terminal_width() <= table.NARROW:
        sys.stdout.write(table.stacked(headers, rows))
    else:
        from rich.console import Console

        Console(highlight=False).print(table.rich_table(headers, rows, right=right))


def color_enabled() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return stdout_is_terminal() and os.environ.get("TERM") != "dumb"


def bold_style():
    """Bold in ANSI on a colour terminal, else nothing."""
    if color_enabled():
        return lambda s: f"\x1b[1m{s}\x1b[0m"
    return lambda s: s


def build_filters(area: list[str] | None, type_: list[str] | None, year: str | None,
                  author: list[str] | None, search: str | None, *,
                  known_areas: list[str] | None = None) -> Filters:
    """The filters of list, export and tag. An ``--area`` or ``--type`` that names
    nothing known is refused when the filters are applied (grouping.check_filters)."""
    from pubcli.usecases.grouping import Filters, parse_year_range  # not on every command's path

    return Filters(areas=list(area or []), types=list(type_ or []),
                   years=parse_year_range(year) if year else None,
                   authors=list(author or []), search=search or None,
                   known_areas=list(known_areas or []))


# Filter options, shared by list, export and tag.
AreaOpt = typer.Option(None, "--area", "-a", help="Only this research area (repeatable).")
TypeOpt = typer.Option(None, "--type", "-t",
                       help="Only this entry type, e.g. inproceedings, or a group name such as "
                            "'Technical reports' (repeatable).")
YearOpt = typer.Option(None, "--year", "-y", metavar="YYYY[..YYYY]",
                       help="Only this year or range: 2015, 2015..2020, 2015.., ..2020.")
AuthorOpt = typer.Option(None, "--author",
                         help="Only entries with this author or editor: 'Bubeck, S.', "
                              "'S. Bubeck' and 'Sébastien Bubeck' find the same person; one "
                              "word matches names containing it (case- and "
                              "accent-insensitive; repeatable).")
SearchOpt = typer.Option(None, "--search", "-s",
                         help="Only entries whose title, authors or venue contain all these "
                              "words (case- and accent-insensitive).")


NoPagerOpt = typer.Option(False, "--no-pager",
                          help="Do not page a long listing on a terminal (the pager is "
                               "$PAGER, else 'less -FRX').")


def page(text: str) -> None:
    """Write ``text`` to stdout, through a pager when stdout is a terminal and the text is
    taller than it (as git does: $PAGER, else ``less -FRX``; PAGER=cat or an empty
    PAGER turns it off). Without a pager program the text is written as it is."""
    import shlex
    import shutil
    import subprocess

    try:
        real_terminal = is_terminal(sys.stdout)  # a pager needs one (TTY_COMPATIBLE is not one)
    except (AttributeError, ValueError):
        real_terminal = False
    if not (real_terminal and text.count("\n") >= shutil.get_terminal_size().lines):
        sys.stdout.write(text)
        return
    pager = os.environ.get("PAGER")
    cmd = shlex.split(pager) if pager is not None else ["less", "-FRX"]
    if not cmd or cmd == ["cat"] or shutil.which(cmd[0]) is None:
        sys.stdout.write(text)
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    sys.stdout.flush()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.write(text)
        return
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode("utf-8", "surrogateescape"))
        proc.stdin.close()
    except BrokenPipeError:  # the reader quit the pager early
        pass
    while True:
        try:
            proc.wait()
            break
        except KeyboardInterrupt:  # Ctrl-C belongs to the pager while it runs
            continue


def echo(text: str) -> None:
    """Text for stdout (a diff, a listing), cleaned of control characters."""
    if text:
        sys.stdout.write(clean(text))


def write_bytes(chunks: Iterable[bytes]) -> None:
    """UTF-8 data for stdout (a JSON listing), written piece by piece as it comes."""
    out = getattr(sys.stdout, "buffer", None)
    sys.stdout.flush()
    for chunk in chunks:
        if out is not None:
            out.write(chunk)
        else:
            sys.stdout.write(chunk.decode("utf-8"))
    if out is not None:
        out.flush()


#: Seconds of work before a progress bar shows: what ends sooner shows none.
PROGRESS_AFTER = 1.0


@contextlib.contextmanager
def progress_bar(label: str, *, after: float | None = None):
    """A :data:`pubcli.usecases.progress.Progress` callback ``(what, done, total)`` that draws
    a transient rich bar on stderr when stderr is a terminal, once the work has run
    ``after`` seconds (:data:`PROGRESS_AFTER`); None otherwise (stderr is talk; a pipe
    or a log gets no bar). The bar is gone when the block ends."""
    if not is_terminal(sys.stderr):
        yield None
        return
    import time

    wait = PROGRESS_AFTER if after is None else after
    start = time.monotonic()
    shown: list = []  # [the rich Progress, its task], once drawn

    def update(what: str, done: int, total: int) -> None:
        """``total`` 0: not known (the bar pulses)."""
        if not shown:
            if time.monotonic() - start < wait:
                return
            from rich.console import Console
            from rich.progress import Progress

            bar = Progress(transient=True, console=Console(stderr=True))
            bar.start()
            shown.extend([bar, bar.add_task(what or label, total=total or None,
                                            completed=done)])
        bar, task = shown
        bar.update(task, description=what or label, completed=done, total=total or None)

    try:
        yield update
    finally:
        if shown:
            shown[0].stop()


def note_contact(client) -> None:
    """Once per command: how to set a contact address, when none is set."""
    if not client.mailto:
        note("no contact address is set, so Crossref serves these requests from its "
             "public pool; set mailto in ~/.config/pubcli/local/config.toml or $PUBCLI_MAILTO")
