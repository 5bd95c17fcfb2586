"""The command-line interface: one small module per command.

This package is the single error boundary and the only place that picks an exit
status (:class:`~pubcli.errors.ExitCode`): a :class:`~pubcli.errors.PubcliError`
or a usage error becomes one ``error:`` line on stderr and exit 2; a command that
found something returns ``ExitCode.FOUND`` (1); Ctrl-C prints one line and exits
130. Any other exception is a bug: it keeps its traceback and exits 70, never
0 or 1, so a crash cannot read as a finding (see :func:`main`).

A command's module is imported only when the command is asked for (run, its help, the
root's help, completion): :data:`COMMANDS` names them, :class:`_LazyCommands` builds each
click command on first look-up, so start-up pays for one command, not for all of them.
"""

from __future__ import annotations

import importlib
import contextlib
import sys
from pathlib import Path
from typing import Any
from collections.abc import Iterator, MutableMapping, Sequence

import typer
from typer.core import TyperGroup

from ..errors import ErrorGroup, ExitCode, PubcliError

# Command modules, in --help order. Each defines ``register(app)``; a module is imported
# only when its command is asked for (run, its help, the root's help, completion).
COMMANDS = ("init", "add", "import", "show", "open", "edit", "tag", "rename", "remove", "undo",
            "areas", "list", "dedupe", "export", "check", "fmt", "update", "sync", "completion")


class _LazyCommands(MutableMapping):
    """The root's commands by name, in :data:`COMMANDS` order; a command's module is
    imported and its click command built the first time the command is looked up.
    Listing the names (click's suggestions, ``list_commands``) imports nothing."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = list(names)
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in self._names:
                raise KeyError(name)
            self._built[name] = _build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._names:
            self._names.append(name)
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        self._names.remove(name)
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names


def _build(name: str) -> Any:
    """The click command of ``pubcli NAME``: its module registers it on a Typer of its
    own, built as the root app would build it (same markup mode, no completion options)."""
    from .helptext import use_example_formatter

    one = typer.Typer(add_completion=False, pretty_exceptions_enable=False,
                      rich_markup_mode=None)
    importlib.import_module(f"{__name__}.{name}_cmd").register(one)
    command = typer.main.get_command(one)
    use_example_formatter(command)
    return command


class _Interrupted(Exception):
    """Ctrl-C inside a command (typer would turn it into a silent exit 130)."""


class _PipeClosed(Exception):
    """The reader of stdout went away (``pubcli list | head``)."""


class PubcliGroup(TyperGroup):
    """Runs every command inside pubcli's error boundary (CliRunner included)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from .helptext import use_example_formatter

        use_example_formatter(self)  # examples wrap between shell words, not in quotes
        lazy = _LazyCommands(COMMANDS)  # each command's module: when it is asked for
        for name, command in self.commands.items():  # any registered on the app itself
            lazy[name] = command
        self.commands = lazy

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def _main_shell_completion(self, ctx_args: Any, prog_name: str,
                               complete_var: str | None = None) -> None:
        import os

        if os.environ.get(complete_var or "_PUBCLI_COMPLETE"):  # only when TAB is pressed
            from typer._completion_classes import completion_init

            from .completing import answer_or_fall_through

            answer_or_fall_through(self)  # keys, areas, types, choices: pubcli.usecases.complete

            completion_init()
        super()._main_shell_completion(ctx_args, prog_name, complete_var)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None
        except BrokenPipeError:
            raise _PipeClosed() from None

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        import gc

        from ._click import Abort, ClickException, UsageError

        # The collector stays on (what a command throws away is collected); the store
        # pauses it while it builds a big library and freezes the result (pubcli.local.gcpause).
        frozen_before = gc.get_freeze_count()
        _name_the_command(args)
        if sys.stdin is None:  # started with stdin closed (<&-): reads as empty, never hangs
            import os

            sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the process's stdin
        from ..store.files import write_count

        writes_before = write_count()
        try:
            rv = super().main(args=args, prog_name=prog_name or "pubcli",
                              complete_var=complete_var, standalone_mode=False,
                              windows_expand_args=windows_expand_args, **extra)
            code = rv if isinstance(rv, int) and not isinstance(rv, bool) else ExitCode.OK
        except PubcliError as exc:
            code = _report(exc)
        except (_Interrupted, Abort) as exc:
            if isinstance(exc, _Interrupted):
                _off_the_interrupt_line()
            _error(_interrupted_message("interrupted" if isinstance(exc, _Interrupted)
                                        else "aborted", writes_before))
            code = ExitCode.INTERRUPTED
        except ClickException as exc:
            hint = ""
            ctx = getattr(exc, "ctx", None)
            if ctx is not None and isinstance(exc, UsageError):
                hint = f" (see '{ctx.command_path} --help')"
            _error(exc.format_message().replace("\n", " ") + hint)
            code = exc.exit_code
        except _PipeClosed:
            _quiet_stdout()
            code = ExitCode.OK
        finally:
            _end_of_command()
            if gc.get_freeze_count() > frozen_before:  # this command loaded a big library
                if _process.exits_after_command:
                    gc.freeze()  # the process ends next: no collection pass over it all
                elif not frozen_before:
                    gc.unfreeze()  # in-process (tests, a notebook): give it back to the GC
        if standalone_mode:
            sys.exit(int(code))
        return int(code)


def _name_the_command(args: Sequence[str] | None) -> None:
    """Tell the undo journal what is running, e.g. "pubcli tag k --add X"."""
    import shlex

    from ..store import journal

    words = [str(w) for w in (sys.argv[1:] if args is None else args)]
    journal.set_command(" ".join(["pubcli", *(shlex.quote(w) for w in words)]),
                        commit=_commit_wanted)
    _process.git = False  # until the root options say --git


def _end_of_command() -> None:
    """The command is over: its name and ``--git`` do not reach writes made after it
    in the same process (a notebook, a test calling the store directly)."""
    from ..store import journal

    journal.set_command("")
    _process.git = False


def _commit_wanted(path: Path) -> bool:
    """Commit this write in git? ``pubcli --git``, or ``git = true`` in pubcli.toml."""
    return _process.git or _config_says_git(path)


def _config_says_git(path: Path) -> bool:
    from pubcli.local import config

    return config.load_config(path).git


def _report(exc: PubcliError) -> ExitCode:
    """Print a PubcliError (or each of an ErrorGroup) and give its exit status."""
    for one in exc.errors if isinstance(exc, ErrorGroup) else [exc]:
        for line in one.details:
            sys.stderr.write(f"warning: {line}\n")
        _error(one.format())
    return ExitCode(exc.exit_code)


def _interrupted_message(what: str, writes_before: int) -> str:
    """What is true after an interrupt: nothing was written, or which files were
    replaced (each whole: a write replaces the file in one step) before it came."""
    from ..store.files import replaced_since

    done = replaced_since(writes_before)
    if not done:
        return f"{what}; nothing was written"
    names = ", ".join(str(p) for p in done)
    return (f"{what} after the write: {names} {'was' if len(done) == 1 else 'were'} "
            "replaced, with the change complete")


def _off_the_interrupt_line() -> None:
    """A terminal echoes Ctrl-C as "^C" with no line end: the message goes below it."""
    from .common import is_terminal

    if is_terminal(sys.stderr):
        with contextlib.suppress(ValueError, OSError):  # a stream closed under us
            sys.stderr.write("\n")


def _error(message: str) -> None:
    from ..render.text import one_line

    sys.stderr.write(f"error: {one_line(message)}\n")
    sys.stderr.flush()


def _quiet_stdout() -> None:
    """After a closed pipe, stop Python from complaining when it flushes stdout at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


app = typer.Typer(
    cls=PubcliGroup,
    name="pubcli",
    help="Keep a publication list in a plain BibTeX file and publish it.\n\n"
         "The library is --library PATH (before or after the command), else "
         "$PUBCLI_LIBRARY, else data/library.bib found from the current folder upward.",
    no_args_is_help=False,
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


@app.callback()
def _root(ctx: typer.Context,
          version: bool = typer.Option(False, "--version", help="Show the version and exit.",
                                       is_eager=True),
          library: Path | None = typer.Option(
              None, "--library", "-l", metavar="PATH",
              help="The .bib file, for every command (default: $PUBCLI_LIBRARY, else "
                   "data/library.bib found from here upward)."),
          git: bool = typer.Option(False, "--git",
                                   help="Commit each write of the library in its git "
                                        "repository, with the command as the message "
                                        "(always: git = true in pubcli.toml).")) -> None:
    if version:
        from .. import __version__

        typer.echo(f"pubcli {__version__}")
        raise typer.Exit(ExitCode.OK)
    ctx.obj = {"library": library}
    _process.git = git
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(ExitCode.OK)


class _Process:
    """Whether the command runs as the ``pubcli`` program (the process ends after it)
    or in-process (CliRunner, a notebook), where frozen objects must be handed back."""

    exits_after_command = False
    git = False  # --git was given to this command


_process = _Process()


def main() -> None:
    """The ``pubcli`` program. An exception that escapes the boundary is a bug: its
    traceback is printed and the exit status is 70 (never 0 or 1)."""
    _process.exits_after_command = True
    try:
        app()
    except Exception:  # noqa: BLE001 - not hidden: the traceback is printed in full
        import traceback

        traceback.print_exc()
        sys.stderr.write("pubcli: internal error (a bug); please report it with the "
                         "traceback above\n")
        sys.exit(ExitCode.BUG)
