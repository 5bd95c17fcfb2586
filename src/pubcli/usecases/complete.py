"""Shell completion of what a command takes: citation keys, ``KEY@LINE``, areas, types.

Pressing TAB starts a whole pubcli process, so this module answers without the
CLI framework and without parsing the library:

* the *key index* (:mod:`pubcli.local.keyindex`) holds each entry's key, line and
  type, read without a parse;
* the *grammar* (which options take values, which arguments are keys, the choices
  of each option) is derived from the real CLI by :mod:`pubcli.cli.completing`
  and kept stamped with the code that made it, so it cannot drift from the
  commands; without it the CLI answers the slow way and writes it.

:func:`answer` is the decision: the candidates for the word being completed, or
None when the CLI should answer (option names, files).
"""

from __future__ import annotations

import marshal
import os
import shlex
from pathlib import Path
from typing import NamedTuple, Sequence

from pubcli.local import cachedir
from pubcli.local.keyindex import Index, index_of

GRAMMAR_FORMAT = 1

#: What an argument or option completes, by (command, argument name or long option);
#: "*" is any command. Choices (enums) come from the grammar itself.
KINDS: dict[tuple[str, str], str] = {
    ("show", "keys"): "keys", ("edit", "key"): "keys", ("remove", "keys"): "keys",
    ("rename", "old"): "keys", ("tag", "keys"): "keys", ("update", "keys"): "keys",
    ("open", "key"): "keys", ("dedupe", "--explain"): "keys",
    ("*", "--area"): "areas", ("tag", "--add"): "areas", ("tag", "--remove"): "areas",
    ("tag", "--rename"): "areas", ("*", "--type"): "types",
    ("sync", "--orcid"): "config:orcid", ("sync", "--dblp"): "config:dblp",
    ("sync", "--openalex"): "config:openalex", ("*", "--owner"): "config:owner",
}
LIBRARY_OPTIONS = ("--library", "-l")


class Candidate(NamedTuple):
    value: str
    help: str = ""


# ------------------------------------------------------------------ candidates
def key_candidates(index: Index, incomplete: str) -> list[Candidate]:
    """Keys starting with ``incomplete`` (case-insensitively); a key several entries use
    is offered as each ``KEY@LINE``, and so is every key once ``@`` is typed."""
    key_part = incomplete.split("@", 1)[0] if "@" in incomplete else incomplete
    found = index.starting(key_part)
    count: dict[str, int] = {}
    for k, _, _ in found:
        count[k] = count.get(k, 0) + 1
    at, want = "@" in incomplete, incomplete.casefold()
    out: list[Candidate] = []
    seen: set[str] = set()
    for k, line, t in found:
        if at or count[k] > 1:
            value = f"{k}@{line}"
            if value.casefold().startswith(want):
                out.append(Candidate(value, f"@{t}, line {line}"))
        elif k not in seen:
            seen.add(k)
            out.append(Candidate(k, f"@{t}, line {line}"))
    return out


def area_candidates(library: Path | None, index: Index | None,
                    incomplete: str) -> list[Candidate]:
    from pubcli.local.config import load_config
    from pubcli.errors import PubcliError

    known: list[str] = []
    if library is not None:
        try:
            known += load_config(library).areas
        except PubcliError:
            pass
    known += index.areas if index and index.areas else []
    want = incomplete.casefold()
    folded: dict[str, str] = {}
    for a in known:
        folded.setdefault(a.casefold(), a)
    return [Candidate(a) for f, a in folded.items() if f.startswith(want)]


def config_candidates(library: Path | None, name: str, incomplete: str) -> list[Candidate]:
    """The value ``name`` has in the library's pubcli.toml (an ORCID, a dblp id...)."""
    from pubcli.local.config import load_config
    from pubcli.errors import PubcliError

    if library is None:
        return []
    try:
        value = getattr(load_config(library), name, None)
    except PubcliError:
        return []
    return [Candidate(value, f"{name} in pubcli.toml")] if isinstance(value, str) and \
        value.startswith(incomplete) else []


def type_candidates(incomplete: str) -> list[Candidate]:
    from pubcli.schema.types import KNOWN_TYPES

    want = incomplete.lower()
    return [Candidate(t) for t in sorted(KNOWN_TYPES) if t.startswith(want)]


# ------------------------------------------------------------------ the command line
def split_words(text: str) -> list[str]:
    """Words as the shell gave them (an unclosed quote keeps what was typed)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def find_library(explicit: str | None, cwd: str | None = None) -> Path | None:
    """The library the command would use (``-l``, $PUBCLI_LIBRARY, found upward)."""
    if explicit:
        return Path(explicit)
    from pubcli.local.config import find_library as find
    from pubcli.errors import PubcliError

    try:
        return find(explicit, cwd=cwd)
    except PubcliError:
        return None


def answer(grammar: dict, args: Sequence[str], incomplete: str) -> list[Candidate] | None:
    """The candidates for ``incomplete`` after ``args`` (the words before it, without the
    program name), or None when the CLI should answer (an option name, a file...)."""
    want = _what(grammar, list(args))
    if want is None or incomplete.startswith("-") and want[0] != "choices":
        return None
    kind, choices, library = want
    if kind == "choices":
        return [Candidate(c) for c in choices if c.startswith(incomplete)]
    if kind == "types":
        return type_candidates(incomplete)
    path = find_library(library)
    if kind.startswith("config:"):
        return config_candidates(path, kind.partition(":")[2], incomplete)
    index = index_of(path, areas=kind == "areas") if path is not None else None
    if kind == "keys":
        return key_candidates(index, incomplete) if index is not None else []
    if kind == "areas":
        return area_candidates(path, index, incomplete)
    if kind.startswith("config:"):
        return config_candidates(path, kind.partition(":")[2], incomplete)
    return None


def _what(grammar: dict, args: list[str]) -> tuple[str, list[str], str | None] | None:
    """(kind, choices, the -l given) of the word after ``args``, or None."""
    library: str | None = None
    root = grammar["root"]
    i = 0
    command = None
    while i < len(args):  # options before the command
        word = args[i]
        name, eq, _ = word.partition("=")
        if word.startswith("-"):
            nargs = root.get(name)
            if nargs is None:
                return None
            if name in LIBRARY_OPTIONS:
                if eq:
                    library = word.split("=", 1)[1]
                elif i + 1 < len(args):
                    library = args[i + 1]
            i += 1 + (0 if eq else nargs)
            if i > len(args):
                return None  # completing the value of a root option: files
            continue
        command = word
        i += 1
        break
    spec = grammar["commands"].get(command) if command else None
    if spec is None:
        return None
    options, arguments = spec["options"], spec["args"]
    positional = 0
    pending: tuple[str, int, int] | None = None  # option, values still wanted, given
    rest = args[i:]
    j = 0
    while j < len(rest):
        word = rest[j]
        if word == "--":
            return None
        name, eq, value = word.partition("=")
        if word.startswith("-") and len(word) > 1:
            o = options.get(name)
            if o is None:
                return None
            nargs = o[0]
            if name in LIBRARY_OPTIONS:
                library = value if eq else (rest[j + 1] if j + 1 < len(rest) else None)
            if eq or nargs == 0:
                j += 1
                continue
            given = len(rest) - j - 1
            if given < nargs:
                pending = (name, nargs, given)
                break
            j += 1 + nargs
            continue
        positional += 1
        j += 1
    if pending is not None:
        name = pending[0]
        o = options[name]
        if name in LIBRARY_OPTIONS:
            return None
        return _kind(str(command), o[2], o[1], library)
    slot = _argument(arguments, positional)
    if slot is None:
        return None
    return _kind(str(command), slot[2], slot[1], library)


def _argument(arguments: list, n: int) -> list | None:
    """The argument the (n+1)-th positional word fills."""
    for a in arguments:
        if a[0] == -1:
            return a
        if n < a[0]:
            return a
        n -= a[0]
    return None


def _kind(command: str, name: str, choices: list[str],
          library: str | None) -> tuple[str, list[str], str | None] | None:
    kind = KINDS.get((command, name)) or KINDS.get(("*", name))
    if kind is not None:
        return kind, [], library
    if choices:
        return "choices", choices, library
    return None


# ------------------------------------------------------------------ the grammar, kept
def _code_stamp() -> tuple:
    """What the grammar was derived from: the version and every module's size and time."""
    from pubcli import __version__

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                try:
                    st = os.stat(os.path.join(folder, f))
                except OSError:
                    continue
                parts.append((os.path.relpath(os.path.join(folder, f), root), st.st_size,
                              st.st_mtime_ns))
    return (GRAMMAR_FORMAT, __version__, tuple(parts))


def _grammar_file() -> Path:
    return cachedir.cache_dir() / "grammar.marshal"


def read_grammar() -> dict | None:
    f = _grammar_file()
    if cachedir.disabled() or not (cachedir.private(f.parent, is_dir=True)
                                   and cachedir.private(f, is_dir=False)):
        return None
    try:
        with open(f, "rb") as fh:
            st, grammar = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return grammar if st == _code_stamp() else None


def write_grammar(grammar: dict) -> None:
    if cachedir.disabled():
        return
    cdir = cachedir.make_private_dir()
    if cdir is None:
        return
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=cdir, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(marshal.dumps((_code_stamp(), grammar)))
        os.replace(tmp, _grammar_file())
    except OSError:
        pass
