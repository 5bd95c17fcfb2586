"""The undo journal: the last few writes of a library, enough to put back the exact
bytes the file had before each of them.

One private file per library beside the caches (:mod:`pubcli.local.cachedir`, suffix
``.undo``). Each :class:`Step` keeps what a write replaced, not the whole file: the
write's new bytes share a prefix and a suffix with the old ones (a save rewrites
only the changed entries), so a step holds the lengths of those two and the old
middle, compressed, plus the digests of the file before and after. A save that
rewrote entries spread over the file (``pubcli tag`` of a thousand keys) says where
(``spans``): the step then holds only the old bytes of those places. Undoing a step
needs the file to be exactly what that write left (its digest): a file changed
since, by hand or by another program, is refused, never overwritten.

Undo pops a step: undoing again goes one write further back. The undo itself is
not journaled.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import tempfile
import time
import zlib
from pathlib import Path
from typing import NamedTuple
from collections.abc import Callable

from pubcli.local import cachedir
from .cache import digest_of as digest

DEPTH = 10          # writes kept per library
JOURNAL_FORMAT = 1
_command: list[str] = []  # what the running command is, for the journal (set by the CLI)
_commit: list[Callable[[Path], bool]] = []  # whether to commit a write in git (the CLI's)


class Step(NamedTuple):
    """One write: how to get the bytes before it back from the bytes after it."""

    when: float            # seconds since the epoch
    what: str              # the command that wrote, e.g. "pubcli tag k --add X"
    before: str            # digest of the file before the write ("" when it was new)
    after: str             # digest of the file the write left
    prefix: int            # bytes shared at the start
    suffix: int            # bytes shared at the end
    middle: bytes          # zlib of the old bytes between them (with spans: of each span's)
    #: the places the write replaced, in the new bytes: (start, length, old length), in
    #: order; () when the old bytes are the one middle between prefix and suffix
    spans: tuple[tuple[int, int, int], ...] = ()


def set_command(words: str, commit: Callable[[Path], bool] | None = None) -> None:
    """Name the command whose writes follow (the CLI calls this once per command), and
    say whether a write of a library should be committed in git (``commit(path)``).
    ``set_command("")`` ends it: later writes are "a pubcli write", never committed."""
    _command[:] = [words] if words else []
    _commit[:] = [commit] if commit else []


def wants_commit(path: Path) -> bool:
    return bool(_commit) and _commit[0](path)


def current_command() -> str:
    return _command[0] if _command else "a pubcli write"


_CHUNK = 1 << 16  # bytes compared at a time before halving


def _shared_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix: whole chunks compared first, then halving
    inside the first chunk that differs (each comparison is one memcmp)."""
    n = min(len(a), len(b))
    if a.startswith(b) or b.startswith(a):  # (a write that appends: one memcmp)
        return n
    lo = 0
    while lo + _CHUNK <= n and a[lo:lo + _CHUNK] == b[lo:lo + _CHUNK]:
        lo += _CHUNK
    hi = min(lo + _CHUNK, n)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _shared_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the longest common suffix, not reaching into the first ``limit`` bytes."""
    n = min(len(a), len(b)) - limit
    la, lb = len(a), len(b)
    lo = 0
    while lo + _CHUNK <= n and a[la - lo - _CHUNK:la - lo] == b[lb - lo - _CHUNK:lb - lo]:
        lo += _CHUNK
    hi = min(lo + _CHUNK, n)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def step(old: bytes | None, new: bytes, what: str, *, old_digest: str | None = None,
         new_digest: str | None = None) -> Step:
    """The step that turns ``new`` back into ``old`` (None: the file did not exist);
    digests already known are passed in (a big file's costs tens of milliseconds)."""
    base = old or b""
    p = _shared_prefix(base, new)
    s = _shared_suffix(base, new, p)
    before = "" if old is None else old_digest or digest(old)
    return Step(time.time(), what, before, new_digest or digest(new), p, s,
                zlib.compress(base[p:len(base) - s], 1))


#: A write whose middle (between the shared prefix and suffix) is longer than this is
#: journaled by its spans, when the store gives them.
SPANS_FROM = 1 << 16

Span = tuple[int, int, int, int]  # new start, new length, old start, old length


def step_of_spans(old: bytes, new: bytes, spans: list[Span], what: str, *,
                  old_digest: str | None = None,
                  new_digest: str | None = None) -> Step | None:
    """The step that turns ``new`` back into ``old`` when ``spans`` (sorted, not
    overlapping) are the only places they differ; None when they are not (checked:
    the bytes between them are the same in both)."""
    parts, pos_new, pos_old = [], 0, 0
    for new_start, new_len, old_start, old_len in spans:
        if new_start < pos_new or old_start < pos_old or \
                new_start - pos_new != old_start - pos_old:
            return None
        parts.append((pos_new, new_start, pos_old))
        pos_new, pos_old = new_start + new_len, old_start + old_len
    if len(new) - pos_new != len(old) - pos_old or pos_new > len(new):
        return None
    parts.append((pos_new, len(new), pos_old))
    view_new, view_old = memoryview(new), memoryview(old)
    for a, b, c in parts:  # the bytes outside the spans: one memcmp each
        if b > a and not old.startswith(view_new[a:b], c):
            return None
    middle = b"".join(view_old[o:o + n] for _, _, o, n in spans)
    before = old_digest or digest(old)
    return Step(time.time(), what, before, new_digest or digest(new), 0, 0,
                zlib.compress(middle, 1), tuple((s, n, o) for s, n, _, o in spans))


def undo_bytes(st: Step, current: bytes) -> bytes | None:
    """The bytes before the write, from the bytes it left; None if they do not match."""
    if digest(current) != st.after:
        return None
    middle = zlib.decompress(st.middle)
    if st.spans:
        parts, pos, k = [], 0, 0
        for start, length, old_length in st.spans:
            parts += [current[pos:start], middle[k:k + old_length]]
            pos, k = start + length, k + old_length
        parts.append(current[pos:])
        old = b"".join(parts)
    else:
        old = current[:st.prefix] + middle + current[len(current) - st.suffix:]
    return old if digest(old) == st.before else None


# ------------------------------------------------------------------ the file
def _file(path: Path) -> Path:
    return cachedir.cache_file(path, ".undo")


def steps(path: Path) -> list[Step]:
    """The kept steps of the library at ``path``, oldest first."""
    f = _file(path)
    if not (cachedir.private(f.parent, is_dir=True) and cachedir.private(f, is_dir=False)):
        return []
    try:
        fmt, items = marshal.loads(f.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return []
    if fmt != JOURNAL_FORMAT:
        return []
    try:
        return [Step(*i) for i in items]
    except TypeError:
        return []


def _write(path: Path, items: list[Step]) -> None:
    cdir = cachedir.make_private_dir()
    if cdir is None:
        return
    f = _file(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=cdir, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(marshal.dumps((JOURNAL_FORMAT, [tuple(i) for i in items[-DEPTH:]])))
            os.replace(tmp, f)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        pass  # a journal we cannot write only means no undo for this write


def record(path: Path, old: bytes | None, new: bytes, *, new_digest: str | None = None,
           old_digest: str | None = None, spans: list[Span] | None = None) -> None:
    """Keep the step of a write of ``new`` over ``old`` (called by the store, locked;
    digests it already knows are passed in; ``spans``: where the write changed the
    bytes, when the store knows, see :func:`step_of_spans`)."""
    if old == new:
        return
    items = steps(path)
    if old is None:
        old_digest = None
    elif old_digest is None:
        old_digest = digest(old)
    if items and items[-1].after != old_digest:
        items = []  # the file changed outside pubcli: older steps no longer lead back
    got = None
    if old is not None and spans and len(spans) > 1:
        p = _shared_prefix(old, new)
        if len(old) - p - _shared_suffix(old, new, p) > SPANS_FROM:
            got = step_of_spans(old, new, spans, current_command(), old_digest=old_digest,
                                new_digest=new_digest)
    if got is None:
        got = step(old, new, current_command(), old_digest=old_digest, new_digest=new_digest)
    _write(path, [*items, got])


def pop(path: Path) -> None:
    _write(path, steps(path)[:-1])
