"""Exceptions pubcli raises. Each carries a message a user can act on.

The CLI turns a :class:`PubcliError` into one line on stderr and exit status 2.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from pathlib import Path


class PubcliError(Exception):
    """Base class: a problem with the user's input, files or options."""

    exit_code = 2

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


class AmbiguousKey(ValidationError):
    """A key that several entries use, where an edit needs exactly one of them."""

    def __init__(self, key: str, records: list, *, path: str | Path | None = None) -> None:
        self.key = key
        self.records = list(records)
        lines = [str(r.line) for r in self.records]
        where = ", ".join(lines[:-1]) + f" and {lines[-1]}" if len(lines) > 1 else lines[0]
        super().__init__(f"the key '{key}' is used by {len(lines)} entries (lines {where}); "
                         "rename one first (pubcli check lists them); nothing was changed",
                         path=path, line=self.records[0].line or None)
