"""Reading and writing the library file: byte-faithful, atomic, locked, cached.

* :func:`load` reads a file into a :class:`~pubcli.library.Library`. Nothing is
  normalised: the document text is kept so that :func:`save` can write it back.
* :func:`save` writes only what changed: replaced entries are patched in place
  (see :func:`pubcli.bibtex.patch_entry`), removed ones cut out, new ones
  appended. A load followed by a save with no change writes the same bytes.
* Writes are atomic: a temporary file in the same folder, flushed and fsynced,
  then ``os.replace`` onto the real file (the target of a symlink), keeping
  the file's permission bits; the folder is fsynced after the rename.
* :func:`transaction` holds an exclusive lock (``.<library>.lock``, an OS
  ``flock`` that dies with its process, so a crash never leaves a stale lock)
  around load-modify-save.
* A parse cache keyed by the file's bytes makes repeated loads of big files
  fast; it lives in the user's own cache folder and is ignored unless that
  folder and file belong to the user and nobody else can write them.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import marshal
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

from . import __version__
from . import bibtex
from .errors import LibraryNotFound, LibraryReadError, LockTimeout, ValidationError, WriteError
from .library import Library, Problem
from .model import Record

UTF8_BOM = b"\xef\xbb\xbf"
TEMP_SUFFIX = ".pubcli-tmp"
CACHE_FORMAT = 4
_CACHE_MIN_BYTES = 256 * 1024  # below this, parsing is faster than a cache round trip


# ------------------------------------------------------------------ reading
def read_text(path: Path) -> tuple[bytes, str, bool]:
    """The file's bytes, its text (BOM removed) and whether it had a BOM."""
    if str(path) == "":
        raise LibraryNotFound("the library path is empty")
    try:
        mode = path.stat().st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):  # /dev/zero: endless
            raise LibraryReadError("is a device or socket, not a .bib file", path=path)
        data = path.read_bytes()
    except FileNotFoundError:
        raise LibraryNotFound("no such file", path=path) from None
    except IsADirectoryError:
        raise LibraryReadError("is a folder, not a .bib file", path=path) from None
    except PermissionError:
        raise LibraryReadError("permission denied: cannot read the file", path=path) from None
    except OSError as exc:
        raise LibraryReadError(f"cannot read the file: {exc.strerror or exc}", path=path) from None
    return data, *decode(data, path)


def decode(data: bytes, path: Path | str | None = None) -> tuple[str, bool]:
    bom = data.startswith(UTF8_BOM)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise LibraryReadError("the file is UTF-16; pubcli reads UTF-8 "
                               "(convert it: iconv -f UTF-16 -t UTF-8)", path=path, line=1)
    if b"\x00" in data[:8192]:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise LibraryReadError("this is not a text file (it contains NUL bytes)",
                               path=path, line=line)
    try:
        text = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (3 if bom else 0)
        line = data.count(b"\n", 0, offset) + 1
        raise LibraryReadError(
            f"not valid UTF-8 (byte 0x{data[offset]:02x}); pubcli reads UTF-8: convert the file, "
            "e.g. iconv -f latin1 -t utf-8", path=path, line=line) from None
    return text, bom


def load(path: str | os.PathLike[str], *, use_cache: bool = True,
         write_cache: bool = True) -> Library:
    """Load a library file. Unreadable BibTeX blocks are kept and listed in
    ``library.problems``; only I/O and encoding problems raise.

    Big files go through the parse cache (``use_cache``); ``write_cache=False``
    skips refreshing it when the caller is about to save anyway."""
    was_enabled = gc.isenabled()
    gc.disable()  # building many records creates no cycles; the GC only slows it down
    try:
        return _load(path, use_cache, write_cache)
    finally:
        if was_enabled:
            gc.enable()


def _load(path: str | os.PathLike[str], use_cache: bool, write_cache: bool) -> Library:
    if not str(path).strip():
        raise LibraryNotFound("the library path is empty")
    path = Path(path)
    data, text, bom = read_text(path)
    parsed = None
    digest = None
    if use_cache and len(data) >= _CACHE_MIN_BYTES:
        digest = hashlib.blake2b(data, digest_size=20).hexdigest()
        parsed = _cache_read(path, digest, len(data))
    if parsed is None:
        parsed = bibtex.parse(text)
        if digest is not None and write_cache:
            _cache_write(path, digest, len(data), parsed)
    return _library_from(parsed, path, text, bom)


def loads(text: str, path: str | os.PathLike[str] | None = None) -> Library:
    """Load a library from a string (no file involved)."""
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    return _library_from(bibtex.parse(text), Path(path) if path else None, text, bom)


def _library_from(parsed: bibtex.Parsed, path: Path | None, text: str, bom: bool) -> Library:
    return Library(parsed.records, path=path, text=text, bom=bom, newline=parsed.newline,
                   macros=parsed.macros, problems=_problems(parsed.failed, parsed.records),
                   failed=parsed.failed)


def _problems(failed: list[bibtex.Failed], records: list[Record]) -> list[Problem]:
    """What a user should hear about a loaded file: blocks kept verbatim, entries
    with a repeated field, keys used twice (compared case-insensitively)."""
    problems = [Problem(f.line, f"could not parse this block, kept as it is: {f.reason}")
                for f in failed]
    seen: dict[str, Record] = {}
    for rec in records:
        if rec.source is not None and rec.source.read_only == bibtex.KEYLESS:
            problems.append(Problem(rec.line, f"this @{rec.type} entry has no citation key; "
                                              "pubcli keeps it as it is and leaves it alone",
                                    "missing-key"))
            continue
        if rec.source is not None and rec.source.read_only:
            problems.append(Problem(rec.line, f"entry '{rec.key}' has a {rec.source.read_only}; "
                                              "the first value is used", "warning"))
        folded = rec.key.casefold()
        if folded in seen:
            problems.append(Problem(rec.line, f"duplicate key '{rec.key}' (first used on line "
                                              f"{seen[folded].line})", "duplicate-key"))
        else:
            seen[folded] = rec
    problems.sort(key=lambda p: p.line)
    return problems


# ------------------------------------------------------------------ writing
class _Plan:
    """What a save changes: edits on the old text and entries appended at the end."""

    def __init__(self) -> None:
        self.edits: list[tuple[int, int, str, Record | None]] = []  # start, end, new text
        self.appended: list[tuple[Record, int]] = []  # record, offset in the new text
        self.parsed: dict[int, Record] = {}  # id(record) -> its new text, parsed


def render(library: Library) -> str:
    """The document text after the library's pending edits (without BOM)."""
    return _render(library)[0]


def preview(library: Library) -> list[tuple[Record, str]]:
    """What a save would write for each changed or added entry, in file order: the
    very text (newlines, indentation, kept field spellings) the real write uses, so a
    dry run shows exactly what would land. Removed entries are not listed."""
    text, plan = _render(library)
    out = [(rec, new_raw) for _, _, new_raw, rec in plan.edits if rec is not None]
    for rec, offset in plan.appended:
        end = text.find(library.newline + library.newline, offset)
        out.append((rec, text[offset:end if end >= 0 else len(text)].rstrip("\r\n")))
    return out


def _render(library: Library) -> tuple[str, _Plan]:
    plan = _Plan()
    replaced, removed, added = library.pending()
    text = library.text
    if not (replaced or removed or added):
        return text, plan
    nl = library.newline
    indent = bibtex.detect_indent(text)
    for rec in replaced:
        old = library.original_of(rec)
        src = rec.source
        if old is None or src is None or old == rec:
            continue
        new_raw = bibtex.patch_entry(text[src.start:src.end], src, old, rec, library.macros,
                                     indent=indent)
        plan.parsed[id(rec)] = _verify(new_raw, rec, library.macros, old)
        plan.edits.append((src.start, src.end, new_raw, rec))
    for rec in removed:
        src = rec.source
        if src is None:
            continue
        start, end = src.start, src.end
        # take the rest of the line and one blank line with the entry
        while end < len(text) and text[end] in " \t":
            end += 1
        if text.startswith(nl, end):
            end += len(nl)
            if text.startswith(nl, end) and (start == 0 or text.endswith(nl + nl, 0, start)
                                             or text.endswith(nl, 0, start)):
                end += len(nl)
        plan.edits.append((start, end, "", None))
    plan.edits.sort(key=lambda e: e[0])
    parts: list[str] = []
    pos = 0
    for start, end, rep, _ in plan.edits:
        parts.append(text[pos:start])
        parts.append(rep)
        pos = end
    parts.append(text[pos:])
    out = "".join(parts)
    if added:
        _refuse_append_into_open_block(library)
        chunks = []
        for rec in added:
            entry = bibtex.format_entry(rec, indent=indent, newline=nl)
            plan.parsed[id(rec)] = _verify(entry, rec, library.macros)
            chunks.append((rec, entry))
        if out and not out.endswith(nl):
            out += nl
        if out.strip() and not out.endswith(nl + nl):
            out += nl
        for i, (rec, entry) in enumerate(chunks):
            if i:
                out += nl + nl
            plan.appended.append((rec, len(out)))
            out += entry
        out += nl
    return out, plan


def _refuse_append_into_open_block(library: Library) -> None:
    """A block left open (more ``{`` than ``}`` from it to the end of the file) would
    swallow whatever is appended: BibTeX reads the new entry as part of it."""
    text = library.text
    for f in library.failed:
        if f.raw[:9].lower().replace(" ", "").startswith("@comment"):
            continue  # BibTeX skips @comment without reading its braces
        if f.start >= 0 and text.count("{", f.start) > text.count("}", f.start):
            raise ValidationError(
                f"the block on line {f.line} is not closed (a missing '}}'?), so BibTeX "
                "would read a new entry as part of it; close it first; nothing was written",
                path=library.path, line=f.line)


def _verify(entry_text: str, rec: Record, macros: dict[str, str],
            old: Record | None = None) -> Record:
    """Parse what we are about to write and check it reads back as intended.
    Fields unchanged since ``old`` keep their text verbatim and are not compared: a
    macro they use may be (re)defined elsewhere in the file than ``macros`` says."""
    parsed = bibtex.parse(entry_text, macros=macros)
    got = parsed.records[0].fields if len(parsed.records) == 1 else {}
    fields_ok = got.keys() == rec.fields.keys() and all(
        got[k] == v for k, v in rec.fields.items() if old is None or old.fields.get(k) != v)
    if (parsed.failed or len(parsed.records) != 1 or parsed.records[0].key != rec.key
            or not fields_ok or parsed.records[0].type != rec.type):
        raise WriteError(f"internal check failed: the text written for '{rec.key}' would not "
                         "read back the same; nothing was written")
    return parsed.records[0]


def save(library: Library, path: str | os.PathLike[str] | None = None) -> bool:
    """Write the library's pending edits. Returns False when there was nothing to do."""
    target = Path(path) if path is not None else library.path
    if target is None:
        raise WriteError("no path to save the library to")
    if not library.changed and path is None:
        return False
    text, plan = _render(library)
    data = (UTF8_BOM if library.bom else b"") + text.encode("utf-8")
    atomic_write(target, data)
    _rebase(library, text, plan)
    library.text = text
    library.problems = _problems(library.failed, library.records)
    library.mark_saved()
    if len(data) >= _CACHE_MIN_BYTES:
        parsed = bibtex.Parsed(library.records, library.failed, [], library.macros,
                               library.newline)
        _cache_write(target, hashlib.blake2b(data, digest_size=20).hexdigest(), len(data),
                     parsed)
    return True


def _rebase(library: Library, text: str, plan: _Plan) -> None:
    """Bring every record's (and kept block's) offsets and line up to date with the
    text just written, without parsing the document again: text outside the edits
    moved by what the edits before it added or removed."""
    import bisect

    old_text = library.text
    starts = [e[0] for e in plan.edits]
    shift_chars = [0]  # shift_chars[i]: total change made by the first i edits
    shift_lines = [0]
    for start, end, new, _ in plan.edits:
        shift_chars.append(shift_chars[-1] + len(new) - (end - start))
        shift_lines.append(shift_lines[-1] + new.count("\n") - old_text.count("\n", start, end))

    def shift_before(offset: int) -> tuple[int, int]:
        i = bisect.bisect_left(starts, offset)  # edits that start before ``offset``
        return shift_chars[i], shift_lines[i]

    edited = {id(rec): start for start, _, _, rec in plan.edits if rec is not None}
    appended = dict((id(rec), offset) for rec, offset in plan.appended)
    line = pos = 0
    for rec in library.records:
        if id(rec) in appended:
            offset = appended[id(rec)]
            line += text.count("\n", pos, offset)
            pos = offset
            rec.source = _placed(plan.parsed[id(rec)], offset, library.newline)
            rec.line = line + 1
        elif id(rec) in edited:
            dc, dl = shift_before(edited[id(rec)])
            rec.source = _placed(plan.parsed[id(rec)], edited[id(rec)] + dc, library.newline)
            rec.line += dl
        elif rec.source is not None:
            dc, dl = shift_before(rec.source.start)
            if dc or dl:
                rec.source.start += dc
                rec.source.end += dc
                rec.line += dl
    for f in library.failed:
        if f.start >= 0:
            dc, dl = shift_before(f.start)
            f.start += dc
            f.line += dl


def _placed(parsed: Record, start: int, newline: str) -> bibtex.Source:
    src = parsed.source
    return bibtex.Source(start + src.start, start + src.end, src.type_written, src.key_written,
                         src.fields, newline, src.read_only)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never
    a mix. A symlink stays a symlink: its target is replaced."""
    real = Path(os.path.realpath(path))
    folder = real.parent
    owner = None
    try:
        st = real.stat()
        mode = stat.S_IMODE(st.st_mode)
        owner = (st.st_uid, st.st_gid)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror}", path=path) from None
    if owner is not None and not stat.S_ISREG(st.st_mode):  # never replace /dev/null
        raise WriteError("not a regular file; nothing was written", path=path)
    # no write bit at all means the owner made it read-only (root passes os.access)
    if owner is not None and (not os.access(real, os.W_OK) or not mode & 0o222):
        raise WriteError("the file is read-only; nothing was written", path=path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise WriteError(f"cannot create a temporary file in {folder}: "
                         f"{exc.strerror or exc}; nothing was written", path=path) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):  # keep owner and group where we may
                os.chown(tmp, *owner)
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WriteError(f"could not write ({exc.strerror or exc}); "
                             "the old file is unchanged", path=path) from None
        raise
    _fsync_dir(folder)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def clean_stale_temp_files(path: Path) -> list[Path]:
    """Remove temp files a killed pubcli left beside the library (call under the lock)."""
    real = Path(os.path.realpath(path))
    removed = []
    for p in real.parent.glob(f".{real.name}.*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            p.unlink()
            removed.append(p)
    return removed


# ------------------------------------------------------------------ locking
def lock_path(path: Path) -> Path:
    real = Path(os.path.realpath(path))
    return real.with_name(f".{real.name}.lock")  # hidden; `pubcli init` git-ignores it


@contextlib.contextmanager
def locked(path: Path, *, timeout: float | None = None,
           on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the library's exclusive lock. ``on_wait`` is told once if we have to wait."""
    from filelock import FileLock, Timeout

    if timeout is None:
        timeout = float(os.environ.get("PUBCLI_LOCK_TIMEOUT", "60"))
    lp = lock_path(path)
    lock = FileLock(str(lp))
    try:
        try:
            lock.acquire(timeout=0.2)
        except Timeout:
            if on_wait:
                on_wait(f"waiting for another pubcli process to finish with {path} "
                        f"(lock {lp.name}, up to {timeout:g} s)")
            lock.acquire(timeout=timeout)
    except Timeout:
        raise LockTimeout(f"another process has held the lock {lp} for more than {timeout:g} s; "
                          "nothing was written", path=path) from None
    except OSError as exc:
        raise WriteError(f"cannot create the lock file {lp}: {exc.strerror or exc}",
                         path=path) from None
    try:
        yield
    finally:
        lock.release()


@contextlib.contextmanager
def transaction(path: str | os.PathLike[str], *, dry_run: bool = False,
                on_wait: Callable[[str], None] | None = None) -> Iterator[Library]:
    """Lock, load, let the caller edit, then save once if anything changed.

    An exception inside the block leaves the file untouched. With
    ``dry_run`` nothing is written (and no lock is taken).
    """
    if not str(path).strip():
        raise LibraryNotFound("the library path is empty")
    path = Path(path)
    if dry_run:
        yield load(path)
        return
    # check we can read before creating a lock file beside a wrong path
    read_text(path)
    with locked(path, on_wait=on_wait):
        clean_stale_temp_files(path)
        lib = load(path, write_cache=False)  # save() refreshes the cache if anything changed
        yield lib
        if lib.changed:
            save(lib)


# ------------------------------------------------------------------ cache
def cache_dir() -> Path:
    base = os.environ.get("PUBCLI_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base else Path.home() / ".cache"
    return root / "pubcli" if not os.environ.get("PUBCLI_CACHE_DIR") else root


def _cache_file(path: Path) -> Path:
    name = hashlib.sha1(os.path.realpath(path).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir() / f"{name}.marshal"


def _private(p: Path, *, is_dir: bool) -> bool:
    """True when ``p`` belongs to us and nobody else can write it."""
    try:
        st = p.lstat()
    except OSError:
        return False
    if is_dir and not stat.S_ISDIR(st.st_mode):
        return False
    if not is_dir and not stat.S_ISREG(st.st_mode):
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not (st.st_mode & 0o022)


def _cache_key(digest: str, size: int) -> tuple:
    return (CACHE_FORMAT, __version__, bibtex.parser_version(), sys.version_info[:2],
            digest, size)


def _cache_read(path: Path, digest: str, size: int) -> bibtex.Parsed | None:
    if os.environ.get("PUBCLI_NO_CACHE"):
        return None
    cfile = _cache_file(path)
    if not (_private(cfile.parent, is_dir=True) and _private(cfile, is_dir=False)):
        return None
    was_enabled = gc.isenabled()
    gc.disable()  # see bibtex.parse: the GC only slows down building many objects
    try:
        with open(cfile, "rb") as fh:
            key, payload = marshal.loads(fh.read())
        if tuple(key) != _cache_key(digest, size):
            return None
        return _unpack(payload)
    except (OSError, EOFError, ValueError, TypeError, IndexError):
        return None
    finally:
        if was_enabled:
            gc.enable()


def _cache_write(path: Path, digest: str, size: int, parsed: bibtex.Parsed) -> None:
    if os.environ.get("PUBCLI_NO_CACHE"):
        return
    cdir = _cache_file(path).parent
    try:
        cdir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(cdir, is_dir=True):
            return
        _clean_cache_temp_files(cdir)
        fd, tmp = tempfile.mkstemp(dir=cdir, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            marshal.dump((_cache_key(digest, size), _pack(parsed)), fh)
        os.replace(tmp, _cache_file(path))
    except OSError:
        return  # a cache we cannot write is only a slower next run


def _clean_cache_temp_files(cdir: Path, max_age: float = 3600.0) -> None:
    """Remove cache temp files a killed pubcli left (older than ``max_age`` seconds)."""
    import time

    now = time.time()
    for p in cdir.glob("*.tmp"):
        with contextlib.suppress(OSError):
            if now - p.stat().st_mtime > max_age:
                p.unlink()


def _pack(p: bibtex.Parsed) -> tuple:
    recs = tuple((r.key, r.type, r.fields, r.line, r.source.start, r.source.end,
                  r.source.type_written, r.source.key_written, r.source.fields,
                  r.source.read_only) for r in p.records)
    failed = tuple((f.line, f.start, f.raw, f.reason) for f in p.failed)
    return (recs, failed, tuple(p.warnings), p.macros, p.newline)


def _unpack(t: tuple) -> bibtex.Parsed:
    recs, failed, warnings, macros, newline = t
    records = [Record(k, ty, fields, line,
                      bibtex.Source(s, e, tw, kw, tuple(map(tuple, fw)), newline, ro))
               for (k, ty, fields, line, s, e, tw, kw, fw, ro) in recs]
    return bibtex.Parsed(records, [bibtex.Failed(*f) for f in failed],
                         [tuple(w) for w in warnings], dict(macros), newline)


def source_text(library: Library, rec: Record) -> str:
    """The entry's text as it stands in the file (or as it would be written)."""
    src = rec.source
    if src is not None and library.original_of(rec) is None:
        return library.text[src.start:src.end]
    return bibtex.format_entry(rec, indent=bibtex.detect_indent(library.text),
                               newline=library.newline)
