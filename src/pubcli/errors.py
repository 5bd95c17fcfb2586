"""Exceptions pubcli raises, and the exit codes the CLI boundary turns them into.

The CLI turns a :class:`PubcliError` into one line on stderr and exit status 2.
Anything else is a bug: it keeps its traceback and exits with
:attr:`ExitCode.BUG`, never 0 or 1, so a crash cannot read as a finding.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path
from collections.abc import Sequence


class ExitCode(IntEnum):
    """Every exit status pubcli uses (the CLI boundary is the only place that exits)."""

    OK = 0
    FOUND = 1        # a check found something (check, dedupe --check): CI hooks rely on 1
    USAGE = 2        # a usage or input error: bad option, unreadable file, invalid value
    BUG = 70         # an unexpected exception (EX_SOFTWARE): a traceback is printed
    INTERRUPTED = 130  # Ctrl-C or an aborted prompt (128 + SIGINT)


class PubcliError(Exception):
    """Base class: a problem with the user's input, files or options."""

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None,
                 field: str | None = None, details: list[str] | None = None) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        self.details = list(details or [])  # context lines, shown before the error
        super().__init__(self.format())

    def format(self) -> str:
        """``file:line: field: message``, leaving out the parts that are unknown."""
        where = ""
        if self.path:
            where = self.path
            if self.line:
                where += f":{self.line}"
            where += ": "
        if self.field:
            where += f"field '{self.field}': "
        return where + self.message


class LibraryNotFound(PubcliError):
    """No library at the given path, and none found by searching upward."""


class LibraryReadError(PubcliError):
    """The library file exists but cannot be read or decoded."""


class ParseError(PubcliError):
    """Text that could not be parsed as BibTeX (raised where the caller demands a clean parse)."""


class ConfigError(PubcliError):
    """A malformed pubcli.toml or [tool.pubcli] table."""


class LockTimeout(PubcliError):
    """Another pubcli process holds the library lock for too long."""


class WriteError(PubcliError):
    """The library could not be written; the old file is left whole."""


class ValidationError(PubcliError):
    """A value given by the user is not acceptable (bad year, bad key, unknown type...)."""


class NotFound(PubcliError):
    """A citation key that is not in the library."""


class DuplicateError(PubcliError):
    """The entry being added matches one already in the library."""


class ErrorGroup(PubcliError):
    """Several errors at once (e.g. ``check`` of several files, some unreadable).

    The boundary prints each as its own ``error:`` line, then exits 2.
    """

    def __init__(self, errors: Sequence[PubcliError]) -> None:
        self.errors = list(errors)
        last = self.errors[-1]
        super().__init__(last.message, path=last.path, line=last.line, field=last.field)


class AmbiguousKey(ValidationError):
    """A key that several entries use, where an edit needs exactly one of them."""

    def __init__(self, key: str, records: list, *, path: str | Path | None = None,
                 hint: str = "rename one first (pubcli check lists them)") -> None:
        self.key = key
        self.records = list(records)
        lines = [str(r.line) for r in self.records]
        where = ", ".join(lines[:-1]) + f" and {lines[-1]}" if len(lines) > 1 else lines[0]
        super().__init__(f"the key '{key}' is used by {len(lines)} entries (lines {where}); "
                         f"{hint}; nothing was changed",
                         path=path, line=self.records[0].line or None)


class AmbiguousPrefix(ValidationError):
    """A key prefix that several keys start with, where a command needs one entry."""

    SHOWN = 8  # candidates named in the message

    def __init__(self, prefix: str, keys: Sequence[str], *,
                 path: str | Path | None = None) -> None:
        self.prefix = prefix
        self.keys = list(keys)
        shown = ", ".join(self.keys[:self.SHOWN])
        more = f" and {len(self.keys) - self.SHOWN} more" if len(self.keys) > self.SHOWN else ""
        super().__init__(f"'{prefix}' is the start of {len(self.keys)} keys ({shown}{more}); "
                         "type more of the key", path=path)


class LibraryChanged(PubcliError):
    """The file changed while pubcli was waiting for the user (an editor, a question)."""
