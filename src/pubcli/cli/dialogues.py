"""Conversations with the user on a terminal: questions, prompts, the editor.

Every interactive exchange of the CLI lives here, so a command module only asks
"may I?" or "what is the title?" and the core never talks to anyone. Questions
and prompts go to stderr (stdout stays data).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import replace
from typing import TypeVar
from collections.abc import Callable, Sequence

from ..errors import PubcliError, ValidationError
from . import common

T = TypeVar("T")


def stdin_is_terminal() -> bool:
    return common.is_terminal(sys.stdin)


def stderr_is_terminal() -> bool:
    return common.is_terminal(sys.stderr)


def say_when_reading_a_terminal(source: str, what: str) -> None:
    """``--from -`` / ``import -`` on a terminal waits for typing: say so, once."""
    if source == "-" and stdin_is_terminal():
        common.note(what + (" (Ctrl-Z then Enter on Windows)" if os.name == "nt" else ""))


def confirm(question: str, *, default: bool = False) -> bool:
    """Ask a yes/no question on stderr; an empty answer is ``default``; end of input
    is "no"."""
    hint = "[Y/n]" if default else "[y/N]"
    while True:
        sys.stderr.write(f"{question} {hint} ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stderr.write("\n")
            return False
        answer = line.strip().lower()
        if not answer:
            return default
        if answer in {"y", "yes"}:
            return True
        if answer in {"n", "no"}:
            return False


# ------------------------------------------------------------------ the editor
def editor_command() -> list[str]:
    """$VISUAL, else $EDITOR, else vi (on a terminal only), split as a shell would."""
    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            return shlex.split(value)
    if not stdin_is_terminal():  # vi would start into a pipe and wait there
        raise PubcliError("no editor: $VISUAL and $EDITOR are unset and stdin is not a "
                          "terminal; set EDITOR, or change fields with --set/--unset")
    return ["vi"]


def _temp_file(text: str, name: str) -> str:
    """A new temporary ``.bib`` file holding ``text``, named after the entry."""
    safe = "".join(c for c in name if c.isascii() and (c.isalnum() or c in "._-"))[:40]
    fd, tmp = tempfile.mkstemp(prefix=f"pubcli-{safe or 'entry'}-", suffix=".bib")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return tmp


def _edit(tmp: str) -> str:
    """Run the editor on the file ``tmp`` and return what it holds afterwards."""
    cmd = editor_command()
    try:
        status = subprocess.call([*cmd, tmp])
    except OSError as exc:
        raise PubcliError(f"cannot run the editor {cmd[0]!r} ($VISUAL/$EDITOR): "
                          f"{exc.strerror or exc}; nothing was written") from None
    if status != 0:
        raise PubcliError(f"the editor {cmd[0]!r} exited with status {status}; "
                          "nothing was written")
    with open(tmp, encoding="utf-8", newline="") as fh:
        return fh.read()


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def edit_until_valid(text: str, apply: Callable[[str], T], *, name: str = "entry") -> T:
    """Open the editor on ``text`` and hand what was saved to ``apply``; when that
    refuses it, say why and (on a terminal) offer to re-open the editor on the
    edited text, else give up with the error (nothing written). The user's text is
    never lost: a refused edit stays in its temporary file, whose path is told."""
    tmp = _temp_file(text, name)
    keep = False
    try:
        while True:
            edited = _edit(tmp)
            try:
                return apply(edited)
            except ValidationError as exc:
                if stdin_is_terminal():
                    common.warn(exc.format())
                    if confirm("re-open the editor?", default=True):
                        continue
                keep = True
                common.note(f"your edited text is kept in {tmp} (copy it into the editor "
                            f"when you run 'pubcli edit {name}' again)")
                raise
    finally:
        if not keep:
            _remove(tmp)


# ------------------------------------------------------------------ pubcli add
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


def ask_missing_fields(opts, *, force: bool):
    """Ask for the required fields the options of ``pubcli add`` leave out (the
    entry type first, when it was not given)."""
    from pubcli.usecases import newentry

    if not newentry.missing_required(opts, force=force):
        return opts
    if opts.type is None:
        opts = replace(opts, type=_ask_type(newentry.default_type(opts.venue), force))
    answers = {name: _ask_field(name) for name in newentry.missing_required(opts, force=force)}
    return newentry.with_answers(opts, answers)


def ask_areas(known: Sequence[str], check: Callable[[str], str]) -> list[str]:
    """Ask for the new entry's research areas (comma-separated; empty: none), naming
    the ``known`` ones. ``check`` gives the vocabulary's spelling of a name, or raises
    ValidationError (an unknown one, with its did-you-mean): said, and asked again."""
    common.note("research areas: " + "; ".join(known))
    while True:
        answer = _ask("Areas (comma-separated, empty for none)", "")
        try:
            return [check(n) for n in (" ".join(p.split()) for p in answer.split(","))
                    if n]
        except ValidationError as exc:
            common.note(exc.message)


def _ask(label: str, default: str | None = None) -> str:
    from rich.console import Console
    from rich.markup import escape
    from rich.prompt import Prompt

    console = Console(stderr=True, highlight=False)
    try:
        if default is None:
            return Prompt.ask(escape(label), console=console)
        return Prompt.ask(escape(label), console=console, default=default)
    except EOFError:
        raise PubcliError(f"no answer for '{label}' (input ended); nothing was written") \
            from None


def _ask_type(default: str, force: bool) -> str:
    from pubcli.usecases import newentry

    while True:
        answer = _ask("Entry type", default).strip() or default
        try:
            return newentry.check_type(answer, force=force)
        except ValidationError as exc:
            common.note(exc.message)


def _ask_field(name: str) -> str:
    from pubcli.usecases import newentry

    label = PROMPT_LABELS.get(name, name.capitalize())
    while True:
        answer = " ".join(_ask(label).split())
        if not answer:
            common.note(f"{name} is required")
            continue
        if name != "year":
            return answer
        try:
            return newentry.check_year(answer)
        except ValidationError as exc:
            common.note(exc.message)


# ------------------------------------------------------------------ dedupe --merge
MERGE_SKIP = "skip"
MERGE_DISTINCT = "distinct"


def choose(question: str, choices: Sequence[str], default: str) -> str:
    """Ask on stderr until the answer is one of ``choices``; an empty answer is
    ``default``; end of input aborts (nothing is written)."""
    import typer

    from ..render.text import clean

    while True:
        sys.stderr.write(clean(f"{question} [{'/'.join(choices)}] ({default}): "))
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stderr.write("\n")
            if stdin_is_terminal():
                raise typer.Abort()
            raise PubcliError("aborted: the input ended before an answer (stdin is not a "
                              "terminal: pass --yes to go without questions); nothing was "
                              "written")
        answer = line.strip().lower() or default
        if answer in choices:
            return answer
        sys.stderr.write(f"please answer one of {', '.join(choices)}\n")


# ------------------------------------------------------------------ import
def ask_near(outcome, which: str, where: str) -> str:
    """``pubcli import``, one near-duplicate held back (``which``: "2 of 5"): show it
    and the entry it is near, then ask for the verdict: the same work (SAME), a
    different one (DIFFERENT), or later ("")."""
    from pubcli.render.entry import field_text
    from pubcli.render.text import one_line
    from pubcli.usecases import triage

    def brief(rec) -> str:
        first = field_text("author", rec.fields.get("author", "")).split("; ")[0]
        title = field_text("title", rec.title, terminal=True)
        return one_line(f"{title} ({rec.year or 'no year'}{', ' + first if first else ''})")

    m = outcome.match
    own = f" {one_line(outcome.own_key)}" if outcome.own_key else ""
    sys.stderr.write(f"near-duplicate {which}: {where}:{outcome.item.line}{own}\n"
                     f"  {brief(outcome.record)}\n"
                     f"is near {one_line(m.record.key or '(an earlier item)')} "
                     f"({one_line(', '.join(m.evidence[:2]) or m.rule)}):\n"
                     f"  {brief(m.record)}\n")
    answer = choose("the same work: skip it (s); a different work: add it (a); later (l)",
                    ["s", "a", "l"], "l")
    return {"s": triage.SAME, "a": triage.DIFFERENT}.get(answer, "")


def ask_merge(group, show: Callable[[], None]):
    """``pubcli dedupe --merge``, one group: show it (``show`` prints it on stderr),
    then ask: merge (keeping which entry, and which value of each conflicting
    field), skip, mark as not duplicates, or quit. Returns the merge result,
    :data:`MERGE_SKIP`, :data:`MERGE_DISTINCT`, or None (quit)."""
    from .. import dedupe
    from ..render.text import one_line

    show()
    action = choose("merge (m), skip (s), mark as not duplicates (d), or quit (q)",
                    ["m", "s", "d", "q"], "m")
    if action == "q":
        return None
    if action == "s":
        return MERGE_SKIP
    if action == "d":
        return MERGE_DISTINCT
    recs = group.records
    suggested = dedupe.suggest_keep(recs)
    default = next(i for i, r in enumerate(recs, 1) if r is suggested)
    pick = choose("keep which entry", [str(i) for i in range(1, len(recs) + 1)], str(default))
    result = dedupe.merge(recs, recs[int(pick) - 1])
    for c in result.conflicts:
        options = [(result.record.key, c.kept)] + c.others
        sys.stderr.write(one_line(f"{c.field} differs:") + "\n")
        for i, (k, v) in enumerate(options, 1):
            sys.stderr.write(f"  {i}. {one_line(v)}  ({one_line(k)})\n")
        choice = choose(f"keep which {c.field}", [str(i) for i in range(1, len(options) + 1)],
                        "1")
        value = options[int(choice) - 1][1]
        if c.field == "@type":
            result.record = result.record.copy(type=value)
        else:
            fields = dict(result.record.fields)
            fields[c.field] = value
            result.record = result.record.copy(fields=fields)
    return result
