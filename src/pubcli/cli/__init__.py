"""The command-line interface: one small module per command.

This package is the single error boundary: a :class:`~pubcli.errors.PubcliError`
or a usage error becomes one line on stderr and exit status 2; a check that
finds something exits 1. Other exceptions are bugs and keep their traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from ..errors import PubcliError

# Command modules, in --help order. Each defines ``register(app)``.
COMMANDS = ("init", "add", "import", "tag", "areas", "list", "dedupe", "export", "check",
            "update", "sync")


class PubcliGroup(TyperGroup):
    """Runs every command inside pubcli's error boundary (CliRunner included)."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        import gc

        from ._click import Abort, ClickException, UsageError

        # A command is a short-lived process that builds many objects and no cycles
        # worth collecting: the cyclic GC would cost seconds on a 100k-entry library.
        gc.disable()
        try:
            rv = super().main(args=args, prog_name=prog_name or "pubcli",
                              complete_var=complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
        except PubcliError as exc:
            for line in exc.details:
                sys.stderr.write(f"warning: {line}\n")
            _error(exc.format())
            code = exc.exit_code
        except Abort:
            _error("aborted")
            code = 130
        except ClickException as exc:
            hint = ""
            ctx = getattr(exc, "ctx", None)
            if ctx is not None and isinstance(exc, UsageError):
                hint = f" (see '{ctx.command_path} --help')"
            _error(exc.format_message().replace("\n", " ") + hint)
            code = exc.exit_code
        except BrokenPipeError:
            code = 0
        finally:
            gc.enable()
        if standalone_mode:
            sys.exit(code)
        return code


def _error(message: str) -> None:
    sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()


app = typer.Typer(
    cls=PubcliGroup,
    name="pubcli",
    help="Keep a publication list in a plain BibTeX file and publish it.\n\n"
         "The library is --library PATH, else $PUBCLI_LIBRARY, else data/library.bib "
         "found from the current folder upward.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", help="Show the version and exit.",
                                       is_eager=True)) -> None:
    if version:
        from .. import __version__

        typer.echo(f"pubcli {__version__}")
        raise typer.Exit(0)


for _name in COMMANDS:
    importlib.import_module(f"{__name__}.{_name}_cmd").register(app)


def main() -> None:
    app()
