"""The parse cache and the display cache: what a big file's load costs, kept.

Both live in the user's own cache folder, one file each per library path, and
are trusted only when that folder and file belong to the user and nobody else
can write them. Each is a *journal*: a sequence of frames, each with its length
and a checksum of its payload (a frame that does not match is never read: the
cache is rebuilt). The first frame after the header is a *base*, the whole list
of items for one version of the file (named by a digest of its bytes); each
later frame is a *delta* from one digest to the next, written by a save: the
items removed, and the items that changed or were appended. So a save that
changes one entry appends a few hundred bytes instead of rewriting the whole
cache; when deltas pile up, the next save writes a new base.

* the parse cache (``.marshal``): one item per record (key, type, its fields as
  marshal bytes of their own, and where its text sits, relative to the entry
  before it, so that an edit moves nothing else), plus the kept-verbatim blocks,
  macros and newline. A record read from it gets its fields when first asked for
  (:class:`Shelved`): a command that reads a few records' fields (``add``, ``tag``,
  ``edit``) does not pay for the other hundred thousand;
* beside it, the fields as written (``.written``, one item per record, marshal bytes),
  written with a base of the parse cache made from a parse, never by a save (a save's
  delta leaves it behind: it no longer names the file's digest, and is not read).
  Only ``pubcli fmt`` reads it (``store.load(written=True)``: :class:`ShelvedSource`,
  :func:`written_of`), and only when it rewrites an entry: other commands, and a
  ``fmt --check`` of a formatted file, never pay for it;
* the display cache (``.rows``): one display row per record
  (:mod:`pubcli.text.display`), filled the first time a listing needs them all, then
  kept up to date by saves, which recompute the rows of changed entries only.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import struct
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any
from collections.abc import Iterable

from .. import __version__, bibtex
from pubcli.local.cachedir import cache_dir, cache_file, disabled
from pubcli.local.cachedir import private as _private
from pubcli.schema.model import Record

CACHE_FORMAT = 8
MIN_BYTES = 256 * 1024  # below this, parsing is faster than a cache round trip
MAX_FRAMES = 24         # deltas after a base before a save writes a new base
_HEAD = struct.Struct("<II")  # payload length, CRC-32 of the payload


def digest_of(data: bytes) -> str:
    return hash_of(data).hexdigest()


def hash_of(data: bytes) -> Any:
    """The hash whose hex digest is :func:`digest_of` ``data``: ``copy()`` it and
    ``update()`` the copy with bytes appended to have theirs without hashing ``data``
    again."""
    return hashlib.blake2b(data, digest_size=20)


@functools.lru_cache(maxsize=4)
def code_version(root: Path | None = None) -> str:
    """The code that builds what the caches hold (the reader, the display's LaTeX rules,
    the matcher's features...): every module of the package, named by path, size and
    modification time, so that a ``git pull`` of a fix, or a reinstall, makes warm caches
    stale instead of serving text the old code made. About 100 stat calls."""
    root = root or Path(__file__).resolve().parent.parent
    h = hashlib.sha1()
    for p in sorted(root.rglob("*.py")):
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]


def _header() -> tuple:
    """What a cache was made by: a change of any of these makes it stale."""
    return ("pubcli-cache", CACHE_FORMAT, __version__, code_version(),
            tuple(sys.version_info[:2]))


# ------------------------------------------------------------------ frames
def frame(obj: Any) -> bytes:
    return b"".join(frame_parts(obj))


def frame_parts(obj: Any) -> tuple[bytes, bytes]:
    """A frame's head and payload, to be written one after the other (a base frame is
    tens of megabytes: no copy to join them)."""
    payload = marshal.dumps(obj)
    return _HEAD.pack(len(payload), zlib.crc32(payload)), payload


def frames(data: bytes) -> list[Any]:
    """The objects in ``data``, up to the first frame that is torn (a writer killed or
    still appending) or fails its checksum: what follows it is never read."""
    out: list[Any] = []
    pos, n = 0, len(data)
    view = memoryview(data)
    while pos + _HEAD.size <= n:
        size, check = _HEAD.unpack_from(data, pos)
        start, end = pos + _HEAD.size, pos + _HEAD.size + size
        if end > n or zlib.crc32(view[start:end]) != check:
            break
        try:
            out.append(marshal.loads(view[start:end]))
        except (EOFError, ValueError, TypeError):
            break
        pos = end
    return out


class Journal:
    """One cache file: a base and the deltas after it (see the module's doc)."""

    def __init__(self, path: Path, suffix: str) -> None:
        self.file = cache_file(path, suffix)

    def read(self, digest: str, size: int) -> tuple[list, Any, int] | None:
        """(items, meta, frame count) of the version ``digest`` of the file, or None."""
        if disabled() or not (_private(self.file.parent, is_dir=True)
                              and _private(self.file, is_dir=False)):
            return None
        try:
            with open(self.file, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        objs = frames(data)
        if not objs or objs[0] != _header():
            return None
        items: list | None = None
        meta: Any = None
        current = None
        for obj in objs[1:]:
            try:
                kind = obj[0]
                if kind == "base":
                    _, current, cur_size, base_items, meta = obj
                    items = list(base_items) if len(objs) > 2 else base_items
                elif kind == "delta" and items is not None:
                    _, prev, new, cur_size, removed, changed, new_meta = obj
                    if prev != current:
                        break  # written after another base: the chain is broken here
                    for i in sorted(removed, reverse=True):
                        del items[i]
                    for i in sorted(changed):
                        if i < len(items):
                            items[i] = changed[i]
                        elif i == len(items):
                            items.append(changed[i])
                        else:
                            return None
                    current, meta = new, new_meta
            except (TypeError, ValueError, IndexError, KeyError):
                return None
        if items is None or current != digest or cur_size != size:
            return None
        return list(items), meta, len(objs)

    def write_base(self, digest: str, size: int, items: list, meta: Any) -> int:
        """Replace the file with a base for ``digest``; returns the frame count (0 if not
        written)."""
        if disabled():
            return 0
        cdir = self.file.parent
        try:
            cdir.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _private(cdir, is_dir=True):
                return 0
            clean_cache_temp_files(cdir)
            fd, tmp = tempfile.mkstemp(dir=cdir, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(frame(_header()))
                    for part in frame_parts(("base", digest, size, tuple(items), meta)):
                        fh.write(part)
                os.replace(tmp, self.file)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return 0  # a cache we cannot write is only a slower next run
        return 2

    def append_delta(self, prev: str, digest: str, size: int, removed: list[int],
                     changed: dict[int, Any], meta: Any) -> bool:
        """Append a delta from ``prev`` to ``digest`` (one write, so concurrent appends
        never interleave); False if the file is not ours to append to."""
        if disabled() or not (_private(self.file.parent, is_dir=True)
                              and _private(self.file, is_dir=False)):
            return False
        data = frame(("delta", prev, digest, size, removed, changed, meta))
        clean_cache_temp_files(self.file.parent)
        try:
            fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError:
            return False
        return True


def clean_cache_temp_files(cdir: Path, max_age: float = 3600.0) -> None:
    """Remove cache temp files a killed pubcli left (older than ``max_age`` seconds)."""
    import time

    now = time.time()
    for p in cdir.glob("*.tmp"):
        with contextlib.suppress(OSError):
            if now - p.stat().st_mtime > max_age:
                p.unlink()


# ------------------------------------------------------------------ parse items
_FIELDS = Record.__dict__["fields"]  # the slot itself: unset until a Shelved record is read


class Shelved(Record):
    """A record read from the parse cache: its fields stay marshal bytes (``_packed``)
    until first asked for, then are a dict like any record's (the slot is set, so later
    reads cost nothing more). Everything else is a plain :class:`Record`'s."""

    __slots__ = ("_packed",)
    _packed: bytes

    def __getattr__(self, name: str) -> Any:  # only called for an unset slot
        if name == "fields":
            fields = marshal.loads(self._packed)
            _FIELDS.__set__(self, fields)
            self._packed = b""  # (read once: the dict is what is kept)
            return fields
        raise AttributeError(name)


class ShelvedKept(Shelved):
    """A shelved record of a load that keeps the fields as written (``pubcli fmt``'s,
    which rewrites the file and then the cache): its packed fields are kept once read
    (``_read`` is the dict made from them), so that the cache written after the
    rewrite takes them as they are for a record whose fields are still that dict,
    instead of packing them again (records are never edited in place: an edit makes
    a new record, a new reading a new dict)."""

    __slots__ = ("_read",)
    _read: dict[str, str]

    def __getattr__(self, name: str) -> Any:  # only called for an unset slot
        if name == "fields":
            fields = marshal.loads(self._packed)
            _FIELDS.__set__(self, fields)
            self._read = fields
            return fields
        raise AttributeError(name)


class WrittenShelf:
    """The fields as written of one version of a library (its digest and size, its
    ``count`` records), read from the ``.written`` cache file the first time one is
    asked for; b"" for a record it does not hold (or when the file does not hold
    this version)."""

    __slots__ = ("path", "digest", "size", "count", "items")

    def __init__(self, path: Path, digest: str, size: int, count: int) -> None:
        self.path, self.digest, self.size, self.count = path, digest, size, count
        self.items: list | None = None

    def packed(self, index: int) -> bytes:
        if self.items is None:
            got = Journal(self.path, ".written").read(self.digest, self.size)
            self.items = got[0] if got is not None and len(got[0]) == self.count else []
        item = self.items[index] if index < len(self.items) else b""
        return item if isinstance(item, bytes) else b""


class ShelvedSource(bibtex.Source):
    """The source of a record read from the parse cache by a load that keeps the fields
    as written (``store.load(written=True)``): ``fields`` is None, and they are
    read (:func:`written_of`) from the record's place (``_index``) on the library's
    :class:`WrittenShelf` (``_shelf``), for the entries ``pubcli fmt`` rewrites. (No
    ``__getattr__`` here, unlike :class:`Shelved`: it would slow every attribute read
    of every source.) A record given a new source (a rewrite) leaves them behind with
    the old one."""

    __slots__ = ("_shelf", "_index")
    _shelf: WrittenShelf
    _index: int


def written_of(src: bibtex.Source) -> tuple[tuple[str, str], ...] | None:
    """(name, value) as written of the entry whose source ``src`` is: as the reader kept
    them, or as the cache did (:class:`ShelvedSource`); None when neither did."""
    if src.fields is not None:
        return src.fields
    if type(src) is ShelvedSource:
        packed = src._shelf.packed(src._index)
        if packed:
            return marshal.loads(packed)  # type: ignore[no-any-return]
    return None


def packed_fields(rec: Record) -> bytes:
    """``rec``'s fields as the parse cache keeps them (a shelved record's bytes as read,
    when its fields were never asked for)."""
    try:
        fields = _FIELDS.__get__(rec)
    except AttributeError:
        return rec._packed  # type: ignore[attr-defined, no-any-return]
    if type(rec) is ShelvedKept and fields is getattr(rec, "_read", None):
        return rec._packed
    return marshal.dumps(fields)


def fields_of(item: tuple) -> dict[str, str]:
    """The fields of one parse cache item (:func:`read_parse_items`)."""
    return marshal.loads(item[2])  # type: ignore[no-any-return]


def pack_records(records: list[Record], text: str,
                 only: Iterable[int] | None = None) -> dict[int, tuple]:
    """Cache items for ``records`` (all, or the indices ``only``), each placed
    relative to the end of the entry before it."""
    out: dict[int, tuple] = {}
    indices = range(len(records)) if only is None else sorted(set(only))
    count = text.count
    prev_i, prev_lines = -2, 0  # the record before and the newlines in its text
    for i in indices:
        rec = records[i]
        src = rec.source
        assert src is not None, "a loaded record knows where its text sits"
        own_lines = count("\n", src.start, src.end)
        if i:
            prev = records[i - 1].source
            assert prev is not None
            prev_end = prev.end
            lines_before = records[i - 1].line - 1 + (
                prev_lines if prev_i == i - 1 else count("\n", prev.start, prev.end))
        else:
            prev_end, lines_before = 0, 0
        out[i] = (rec.key, rec.type, packed_fields(rec), src.start - prev_end,
                  src.end - src.start, rec.line - 1 - lines_before, own_lines,
                  src.type_written, src.key_written, src.read_only)
        prev_i, prev_lines = i, own_lines
    return out


def unpack_records(items: list, newline: str, shelf: WrittenShelf | None = None
                   ) -> list[Record]:
    """The records of the parse cache's ``items``; with a ``shelf`` their sources can
    give the fields as written (:class:`ShelvedSource`) and they keep their packed
    fields once read (:class:`ShelvedKept`)."""
    records: list[Record] = []
    append = records.append
    Source = bibtex.Source
    kind = ShelvedKept if shelf is not None else Shelved
    new = kind.__new__
    pos = line = 0  # end of the previous entry; newlines before it
    for i, (key, etype, packed, gap, length, gap_lines, own_lines, tw, kw, ro) in \
            enumerate(items):
        start = pos + gap
        pos = start + length
        line += gap_lines
        rec = new(kind)
        rec.key = key
        rec.type = etype
        rec._packed = packed
        rec.line = line + 1
        if shelf is not None:
            src = ShelvedSource(start, pos, tw, kw, None, newline, ro)
            src._shelf, src._index = shelf, i
            rec.source = src
        else:
            rec.source = Source(start, pos, tw, kw, None, newline, ro)
        rec.row = None
        append(rec)
        line += own_lines
    return records


def pack_meta(failed: list[bibtex.Failed], warnings: list, macros: dict[str, str],
              newline: str) -> tuple:
    return (tuple((f.line, f.start, f.raw, f.reason, f.open_to_end) for f in failed),
            tuple(tuple(w) for w in warnings),
            macros, newline)


def unpack_meta(meta: tuple) -> tuple[list[bibtex.Failed], list, dict[str, str], str]:
    failed, warnings, macros, newline = meta
    return ([bibtex.Failed(*f) for f in failed], [tuple(w) for w in warnings], dict(macros),
            newline)


def read_parse(path: Path, digest: str, size: int,
               written: bool = False) -> tuple[bibtex.Parsed, int] | None:
    """The parse cache's reading of the version ``digest`` of the file and its frame
    count; ``written``: the records' sources keep the fields as written."""
    got = read_parse_items(path, digest, size)
    if got is None:
        return None
    items, meta, nframes = got
    try:
        failed, warnings, macros, newline = meta
        shelf = WrittenShelf(path, digest, size, len(items)) if written else None
        return bibtex.Parsed(unpack_records(items, newline, shelf), failed, warnings,
                             macros, newline), nframes
    except (TypeError, ValueError):
        return None


def read_parse_items(path: Path, digest: str, size: int) -> tuple[list, tuple, int] | None:
    """The parse cache's items for the version ``digest`` of the file, not yet unpacked
    into records (:func:`fields_of` an item is its record's fields), with the meta unpacked
    (:func:`unpack_meta`) and the frame count; None when the cache does not hold it."""
    got = Journal(path, ".marshal").read(digest, size)
    if got is None:
        return None
    items, meta, nframes = got
    try:
        return items, unpack_meta(meta), nframes
    except (TypeError, ValueError):
        return None


def write_parse(path: Path, digest: str, size: int, parsed: bibtex.Parsed, text: str) -> int:
    """A new base of the parse cache for ``parsed``; with it, when the records know
    their fields as written (a parse's), those (``.written``). Returns the frame count
    (0: not written)."""
    packed = pack_records(parsed.records, text)
    frames = Journal(path, ".marshal").write_base(
        digest, size, [packed[i] for i in range(len(parsed.records))],
        pack_meta(parsed.failed, parsed.warnings, parsed.macros, parsed.newline))
    if frames:
        dumps = marshal.dumps
        written = [b"" if r.source is None or r.source.fields is None
                   else dumps(r.source.fields) for r in parsed.records]
        if any(written):
            Journal(path, ".written").write_base(digest, size, written, None)
    return frames


# ------------------------------------------------------------------ derived data
#: Files of data derived from one version of a library (the matcher's weights) kept
#: at once, per kind: the newest stay, the rest are removed when one is written.
DERIVED_KEPT = 8


def _derived_file(kind: str, digest: str) -> Path:
    return cache_dir() / f"{kind}-{digest}.marshal"


def read_derived(kind: str, digest: str, maker: str) -> Any | None:
    """What :func:`write_derived` stored for the file version ``digest`` (the digest
    of its bytes) and the code ``maker``, or None."""
    file = _derived_file(kind, digest)
    if disabled() or not (_private(file.parent, is_dir=True) and _private(file, is_dir=False)):
        return None
    try:
        data = file.read_bytes()
    except OSError:
        return None
    objs = frames(data)
    if len(objs) != 2 or objs[0] != _header():
        return None
    try:
        got_digest, got_maker, payload = objs[1]
    except (TypeError, ValueError):
        return None
    return payload if (got_digest, got_maker) == (digest, maker) else None


def write_derived(kind: str, digest: str, maker: str, payload: Any) -> bool:
    """Keep ``payload`` (marshal-able) for the file version ``digest`` and the code
    ``maker``; False when the cache is off or not ours to write."""
    if disabled():
        return False
    cdir = cache_dir()
    try:
        cdir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(cdir, is_dir=True):
            return False
        fd, tmp = tempfile.mkstemp(dir=cdir, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(frame(_header()))
                for part in frame_parts((digest, maker, payload)):
                    fh.write(part)
            os.replace(tmp, _derived_file(kind, digest))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        kept = sorted(cdir.glob(f"{kind}-*.marshal"), key=_mtime, reverse=True)
        for old in kept[DERIVED_KEPT:]:
            with contextlib.suppress(OSError):
                old.unlink()
    except OSError:
        return False  # a cache we cannot write is only a slower next run
    return True


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
