"""The library file on disk: reading it, and replacing it atomically.

* :func:`read_text` reads the bytes and decodes them (UTF-8, an optional BOM).
* :func:`atomic_write` writes a temporary file in the same folder, flushed and
  fsynced, then ``os.replace`` onto the real file (the target of a symlink),
  keeping the file's permission bits; the folder is fsynced after the rename.
  A file with other hard links is refused: the rename would give it a new inode
  and leave the other names on the old text (and on another lock).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from collections.abc import Iterable

from ..errors import LibraryNotFound, LibraryReadError, WriteError

UTF8_BOM = b"\xef\xbb\xbf"
TEMP_SUFFIX = ".pubcli-tmp"


def read_text(path: Path) -> tuple[bytes, str, bool]:
    """The file's bytes, its text (BOM removed) and whether it had a BOM."""
    return (data := _read(path, whole=True)), *decode(data, path)


def check_readable(path: Path) -> None:
    """Raise what :func:`read_text` raises when the file cannot be read at all (missing,
    a folder, a device, no permission), without reading it."""
    _read(path, whole=False)


def _read(path: Path, *, whole: bool) -> bytes:
    if str(path) == "":
        raise LibraryNotFound("the library path is empty")
    try:
        mode = path.stat().st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):  # /dev/zero: endless
            raise LibraryReadError("is a device or socket, not a .bib file", path=path)
        if whole:
            return path.read_bytes()
        with open(path, "rb") as fh:
            return fh.read(0)
    except FileNotFoundError:
        raise LibraryNotFound("no such file", path=path) from None
    except IsADirectoryError:
        raise LibraryReadError("is a folder, not a .bib file", path=path) from None
    except PermissionError:
        raise LibraryReadError("permission denied: cannot read the file", path=path) from None
    except OSError as exc:
        raise LibraryReadError(f"cannot read the file: {exc.strerror or exc}", path=path) from None


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


def holds(path: Path, data: bytes) -> bool:
    """Are ``data`` the bytes of the file at ``path`` now? (Read in pieces and compared:
    no second copy of a big file is made.)"""
    try:
        with open(path, "rb", buffering=0) as fh:
            if os.fstat(fh.fileno()).st_size != len(data):
                return False
            buf = bytearray(1 << 20)
            view = memoryview(data)
            pos = 0
            while True:
                n = fh.readinto(buf)
                if not n:
                    return pos == len(data)
                if buf[:n] != view[pos:pos + n]:
                    return False
                pos += n
    except OSError:
        return False


#: Every file :func:`atomic_write` replaced in this process, in order: what is true
#: after an interrupt (the CLI compares :func:`write_count` before and after a command).
_REPLACED: list[Path] = []


def write_count() -> int:
    """How many files this process has replaced so far (see :func:`replaced_since`)."""
    return len(_REPLACED)


def replaced_since(count: int) -> list[Path]:
    """The files replaced since :func:`write_count` gave ``count``, each once."""
    return list(dict.fromkeys(_REPLACED[count:]))


def atomic_write(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace ``path`` with ``data`` (bytes, or chunks of bytes written as they come:
    a whole-library export is never held in memory) so that readers see the old or the
    new file, never a mix. A symlink stays a symlink: its target is replaced."""
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
    if owner is not None:
        refuse_hard_links(st, path)
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
            if isinstance(data, (bytes, bytearray, memoryview)):
                fh.write(data)
            else:
                for chunk in data:
                    fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):  # keep owner and group where we may
                os.chown(tmp, *owner)
        os.chmod(tmp, mode)
        os.replace(tmp, real)
        _REPLACED.append(Path(path))
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WriteError(f"could not write ({exc.strerror or exc}); "
                             "the old file is unchanged", path=path) from None
        raise
    _fsync_dir(folder)


def refuse_hard_links(st: os.stat_result, path: Path) -> None:
    """A file with several names (hard links) would be split in two by the rename:
    the other names would keep the old text and take another lock."""
    if st.st_nlink > 1:
        raise WriteError(f"the file has {st.st_nlink} hard links (other names for the same "
                         "file); pubcli replaces the file when it writes, which would split "
                         "them apart. Use a symbolic link instead; nothing was written",
                         path=path)


def check_writable(path: Path) -> None:
    """Refuse early what :func:`atomic_write` would refuse (before any lock or edit)."""
    with contextlib.suppress(OSError):
        refuse_hard_links(Path(os.path.realpath(path)).stat(), path)


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
