"""Completion the CLI's way: derive the grammar the fast path uses (which options take
values, what each argument completes) from the commands themselves, keep it, and
answer with it (see :mod:`pubcli.usecases.complete`)."""

from __future__ import annotations

import os
import sys
from typing import Any


def _choices(param: Any) -> list[str]:
    return [str(c) for c in getattr(param.type, "choices", None) or []]


def _long_name(param: Any) -> str:
    names = [o for o in param.opts if o.startswith("--")] or list(param.opts)
    return names[0]


def grammar(group: Any) -> dict:
    """The grammar of ``group`` (the root command), as plain data."""
    root = {}
    for p in group.params:
        if p.param_type_name == "option":
            for o in (*p.opts, *p.secondary_opts):
                root[o] = 0 if p.is_flag or p.count else p.nargs
    commands = {}
    for name, cmd in group.commands.items():
        options: dict[str, list] = {}
        args: list[list] = []
        for p in cmd.params:
            if p.param_type_name == "option":
                nargs = 0 if p.is_flag or p.count else p.nargs
                entry = [nargs, _choices(p), _long_name(p)]
                for o in (*p.opts, *p.secondary_opts):
                    options[o] = entry if o in p.opts else [0, [], _long_name(p)]
            else:
                args.append([p.nargs, _choices(p), p.name])
        for o in ("--help", "-h"):
            options.setdefault(o, [0, [], "--help"])
        commands[name] = {"options": options, "args": args}
    return {"root": root, "commands": commands}


def answer_or_fall_through(group: Any) -> None:
    """Answer a completion request with the grammar (and keep it for the fast path);
    return only when the framework should answer (option names, files)."""
    from pubcli.usecases import complete
    from ..render import shell

    found = grammar(group)
    if complete.read_grammar() != found:
        complete.write_grammar(found)
    req = shell.request(os.environ)
    if req is None:
        return
    candidates = complete.answer(found, req.args, req.incomplete)
    if candidates is None:
        return
    text, code = shell.reply(req, candidates)
    sys.stdout.write(text)
    sys.stdout.flush()
    sys.exit(code)
