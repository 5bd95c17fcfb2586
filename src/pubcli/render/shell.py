"""The shell completion protocol of the scripts ``pubcli completion`` prints: what the
shell asks (from the environment) and the text it expects back.

Shared by the fast path (:mod:`pubcli.__main__`, no CLI framework loaded) and the
CLI's own completion, so both answer alike, byte for byte.
"""

from __future__ import annotations

import re
from typing import Mapping, NamedTuple, Sequence

from pubcli.usecases.complete import Candidate, split_words

COMPLETE_VAR = "_PUBCLI_COMPLETE"
_WHITESPACE = re.compile(r"\s")


class Request(NamedTuple):
    shell: str            # bash, zsh or fish
    args: list[str]       # the words before the one completed, without the program
    incomplete: str
    action: str = ""      # fish: get-args or is-args


def request(env: Mapping[str, str]) -> Request | None:
    """What the shell asks, or None when this is no completion request we know."""
    shell = env.get(COMPLETE_VAR, "").removeprefix("complete_")
    if shell == "bash":
        words = split_words(env.get("COMP_WORDS", ""))
        try:
            cword = int(env.get("COMP_CWORD", ""))
        except ValueError:
            return None
        return Request("bash", words[1:cword], words[cword] if cword < len(words) else "")
    if shell in ("zsh", "fish"):
        text = env.get("_TYPER_COMPLETE_ARGS", "")
        args = split_words(text)[1:]
        incomplete = ""
        if args and not text.endswith(" "):
            incomplete = args.pop()
        return Request(shell, args, incomplete, env.get("_TYPER_COMPLETE_FISH_ACTION", ""))
    return None


def _zsh_escape(s: str) -> str:
    return (s.replace('"', '""').replace("'", "''").replace("$", "\\$").replace("`", "\\`")
            .replace(":", r"\\:"))


def reply(req: Request, candidates: Sequence[Candidate]) -> tuple[str, int]:
    """(text for stdout, exit status) answering ``req``."""
    if req.shell == "bash":
        return "\n".join(c.value for c in candidates) + "\n", 0
    if req.shell == "zsh":
        if not candidates:
            return "_files\n", 0
        items = "\n".join(f'"{_zsh_escape(c.value)}":"{_zsh_escape(c.help)}"' if c.help
                          else f'"{_zsh_escape(c.value)}"' for c in candidates)
        return f"_arguments '*: :(({items}))'\n", 0
    if req.action == "is-args":
        return "", 0 if candidates else 1
    lines = [c.value + "\t" + _WHITESPACE.sub(" ", c.help) if c.help else c.value
             for c in candidates]
    return ("\n".join(lines) + "\n" if lines else "\n"), 0
