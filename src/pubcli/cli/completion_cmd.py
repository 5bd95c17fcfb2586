"""pubcli completion: the shell completion script."""

from __future__ import annotations

from enum import Enum

import typer


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def completion_command(
    shell: Shell = typer.Argument(..., help="Your shell.", show_default=False),
) -> None:
    """Print the completion script for SHELL (commands, options, choices).

    Completion costs nothing at start-up: the shell runs pubcli with
    _PUBCLI_COMPLETE set only when you press TAB.

    Examples:

        pubcli completion bash > ~/.local/share/bash-completion/completions/pubcli

        pubcli completion zsh > "${fpath[1]}/_pubcli"

        pubcli completion fish > ~/.config/fish/completions/pubcli.fish
    """
    from typer._completion_classes import completion_init
    from typer._completion_shared import get_completion_script

    completion_init()
    typer.echo(get_completion_script(prog_name="pubcli", complete_var="_PUBCLI_COMPLETE",
                                     shell=shell.value))


def register(app: typer.Typer) -> None:
    app.command("completion")(completion_command)
