"""The ``pubcli`` program. A TAB press (``_PUBCLI_COMPLETE`` set) is answered here
when it can be, before the CLI framework is imported (:mod:`pubcli.usecases.complete`)."""

from __future__ import annotations

import os
import sys


def main() -> None:
    if os.environ.get("_PUBCLI_COMPLETE"):
        _complete_fast()
    from pubcli.local import gcpause

    with gcpause.start_up():
        from pubcli.cli import main as cli_main

    cli_main()


def _complete_fast() -> None:
    """Answer the shell from the kept grammar and key index; return when the CLI must."""
    from pubcli.usecases import complete
    from .render import shell

    req = shell.request(os.environ)
    grammar = complete.read_grammar() if req is not None else None
    if req is None or grammar is None:
        return
    candidates = complete.answer(grammar, req.args, req.incomplete)
    if candidates is None:
        return
    text, code = shell.reply(req, candidates)
    sys.stdout.write(text)
    sys.stdout.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()
