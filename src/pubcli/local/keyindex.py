"""The key index: what shell completion knows of a library without parsing it.

One private file per library beside the caches (:mod:`pubcli.local.cachedir`): each
entry's key, line and type (and, once asked, the areas in use), stamped with the
library's size, modification time and inode. The store refreshes it after each
save when it exists; otherwise the first TAB after the file changed rebuilds it
from a scan of the ``@type{key,`` heads (no parse). Import-light: read on TAB.
"""

from __future__ import annotations

import marshal
import os
import re
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Sequence

from pubcli.local import cachedir

INDEX_FORMAT = 1


class Index(NamedTuple):
    """What completion knows of a library. ``lines`` is one text line per entry, in file
    order, each after a newline: ``folded-key TAB key TAB line TAB type``, so that a
    prefix is found by a plain substring search (no per-entry Python work on TAB)."""

    lines: str
    areas: list[str] | None  # None: not scanned yet (only an area completion needs them)

    @classmethod
    def of(cls, entries: Sequence[tuple[str, int, str]], areas: list[str] | None) -> Index:
        return cls("".join(f"\n{k.casefold()}\t{k}\t{n}\t{t}" for k, n, t in entries) + "\n",
                   areas)

    def starting(self, prefix: str) -> list[tuple[str, int, str]]:
        """(key, line, type) of each entry whose key starts with ``prefix`` (folded)."""
        text, out = self.lines, []
        needle = "\n" + prefix.casefold()
        find = text.find
        pos = find(needle)
        while pos >= 0:
            end = find("\n", pos + 1)
            if end < 0:  # the final newline
                break
            _, key, line, etype = text[pos + 1:end].split("\t")
            out.append((key, int(line), etype))
            pos = find(needle, end)
        return out


def stamp(path: Path) -> tuple | None:
    """What identifies this version of the file cheaply (no read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def _index_file(path: Path) -> Path:
    return cachedir.cache_file(path, ".keys")


def read_index(path: Path, current: tuple | None) -> Index | None:
    f = _index_file(path)
    if current is None or cachedir.disabled() or not (
            cachedir.private(f.parent, is_dir=True) and cachedir.private(f, is_dir=False)):
        return None
    try:
        with open(f, "rb") as fh:
            fmt, st, lines, areas = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if fmt != INDEX_FORMAT or tuple(st) != current or not isinstance(lines, str):
        return None
    return Index(lines, areas)


def write_index(path: Path, index: Index, current: tuple | None) -> None:
    """Keep ``index`` for this version of the file (silently not, when we may not)."""
    if current is None or cachedir.disabled():
        return
    cdir = cachedir.make_private_dir()
    if cdir is None:
        return
    import tempfile

    f = _index_file(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=cdir, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(marshal.dumps((INDEX_FORMAT, current, index.lines, index.areas)))
        os.replace(tmp, f)
    except OSError:
        pass


def refresh_index(path: Path, records: Sequence[Any], *, appended: int | None = None,
                  before: tuple | None = None) -> None:
    """After a save: bring an existing index up to date from the records in memory.
    ``appended``: the save only appended the last ``appended`` records to the version
    of the file :func:`stamp` gave ``before``; when the index of that version is kept,
    it is extended by them (the other records are not looked at)."""
    if not _index_file(path).exists():
        return
    from pubcli.schema.model import AREA_FIELD, split_areas

    old = read_index(path, before) if appended is not None and before is not None else None
    if old is not None and appended is not None:
        new = records[len(records) - appended:]
        areas = old.areas
        if areas is not None:
            areas = list(dict.fromkeys([*areas, *(a for r in new for a in
                                                  split_areas(r.fields.get(AREA_FIELD)))]))
        lines = old.lines[:-1] + Index.of([(r.key, r.line, r.type) for r in new], None).lines
        write_index(path, Index(lines, areas), stamp(path))
        return
    values = dict.fromkeys(r.fields.get(AREA_FIELD) for r in records)
    areas = list(dict.fromkeys(a for v in values for a in split_areas(v)))
    write_index(path, Index.of([(r.key, r.line, r.type) for r in records], areas), stamp(path))


_HEAD = re.compile(rb"@[ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]*[{(][ \t\r\n]*([^,\s{}()\"#'=%]+)"
                   rb"[ \t\r\n]*,")
_AREAS = re.compile(rb"eywords[ \t]*=[ \t]*[{\"]([^}\"\n]*)")  # [Kk]eywords: a literal is fast
_NOT_ENTRIES = {b"string", b"comment", b"preamble"}


def scan(data: bytes) -> Index:
    """The index from the file's bytes: the entry heads, no parse (areas: later)."""
    entries = []
    line, pos = 1, 0
    count = data.count
    for m in _HEAD.finditer(data):
        t = m.group(1).lower()
        if t in _NOT_ENTRIES:
            continue
        start = m.start()
        line += count(b"\n", pos, start)
        pos = start
        entries.append((m.group(2).decode("utf-8", "replace"), line, t.decode("ascii")))
    return Index.of(entries, None)


def scan_areas(data: bytes) -> list[str]:
    """The areas written in the file's ``keywords`` fields, first spelling seen."""
    seen: dict[str, None] = {}
    for v in dict.fromkeys(_AREAS.findall(data)):
        for a in v.decode("utf-8", "replace").split(","):
            a = " ".join(a.split())
            if a:
                seen.setdefault(a, None)
    return list(seen)


def index_of(path: Path, *, areas: bool = False) -> Index | None:
    """The library's index: kept, else scanned now (and kept); None if unreadable.
    ``areas``: with the areas too (scanned now if the kept index lacks them)."""
    current = stamp(path)
    got = read_index(path, current)
    if got is not None and (got.areas is not None or not areas):
        return got
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    got = (got or scan(data))._replace(areas=scan_areas(data) if areas else None)
    write_index(path, got, current)
    return got
