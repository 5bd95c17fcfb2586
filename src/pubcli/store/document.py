"""The file behind a library: its text and the details needed to write it back.

A :class:`Document` is the store's side of a loaded library: the text as read
(without BOM), whether it had a BOM, its newline, its ``@string`` macros, the
blocks kept verbatim because they could not be read, and what the parse cache
knows about it. :class:`pubcli.store.library.Library` holds the records and their key
index and points at its document; what a user should hear about the file
(:meth:`Document.problems`) is derived from the two, never stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import bibtex
from pubcli.store.library import Problem
from pubcli.schema.model import Record


class Document:
    __slots__ = ("path", "text", "bom", "newline", "macros", "failed", "warnings", "digest",
                 "loaded", "cached", "rows_cached", "frames", "form", "data", "hashed")

    def __init__(self, path: Path | None, text: str, bom: bool, newline: str,
                 macros: dict[str, str], failed: list[bibtex.Failed],
                 warnings: list[tuple[int, str]] | None = None) -> None:
        self.path = path
        self.text = text
        self.bom = bom
        self.newline = newline
        self.macros = macros
        self.failed = failed
        # what BibTeX warns about while reading (an undefined @string, a stray '@'), by line
        self.warnings: list[list] = [list(w) for w in warnings or ()]
        # for the parse cache: the file's digest, the records as loaded or last saved
        # (in file order), whether the cache holds this text (and its display rows),
        # and how many frames the cache file has (see store.cache)
        self.digest: str | None = None
        self.loaded: list[Record] = []
        self.cached = False
        self.rows_cached = False
        self.frames = 0
        # the form new entries and fields are written in (pubcli.bibtex.Form); None: the
        # [fmt] of the library's pubcli.toml, looked up when a save needs it
        self.form: bibtex.Form | None = None
        # the file's bytes as loaded (or last saved) by a transaction, which writes it
        # back: a save then knows the old bytes' digest and encodes only what changed
        self.data: bytes | None = None
        # the hash whose digest is ``digest`` (store.cache.hash_of), to extend by what a
        # save appends
        self.hashed: Any = None

    def problems(self, records: list[Record], *, warnings: bool = True,
                 repeated: bool = True) -> list[Problem]:
        """What a user should hear about the file: blocks kept verbatim, entries with
        a repeated field, keys used twice (compared case-insensitively); BibTeX's
        warnings too unless ``warnings`` is False (after a save their lines are stale,
        and the parse cache keeps none). ``repeated=False``: the caller knows no key
        is used twice (only the entries pubcli leaves alone are then looked at)."""
        problems = [Problem(f.line, f"could not parse this block, kept as it is: {f.reason}")
                    for f in self.failed]
        if warnings:
            problems += [Problem(int(line), str(message), "bibtex")
                         for line, message in self.warnings]
        if not repeated:
            records = [r for r in records if r.source is not None and r.source.read_only]
        seen: dict[str, Record] = {}
        for rec in records:
            if rec.source is not None and rec.source.read_only == bibtex.KEYLESS:
                problems.append(Problem(rec.line, f"this @{rec.type} entry has no citation "
                                                  "key; pubcli keeps it as it is and leaves it "
                                                  "alone", "missing-key"))
                continue
            if rec.source is not None and rec.source.read_only.startswith(bibtex.UNREAD):
                problems.append(Problem(rec.line, f"entry '{rec.key}': {rec.source.read_only}; "
                                                  "pubcli shows it but leaves its text alone",
                                        "warning"))
            elif rec.source is not None and rec.source.read_only:
                problems.append(Problem(rec.line, f"entry '{rec.key}' has a "
                                                  f"{rec.source.read_only}; the first value "
                                                  "is used", "warning"))
            folded = rec.key.casefold()
            first = seen.setdefault(folded, rec)
            if first is not rec:
                problems.append(Problem(rec.line, f"duplicate key '{rec.key}' (first used on "
                                                  f"line {first.line})", "duplicate-key"))
        problems.sort(key=lambda p: p.line)
        return problems
