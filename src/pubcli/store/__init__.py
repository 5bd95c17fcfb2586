"""Reading and writing the library file: byte-faithful, atomic, locked, cached.

* :func:`load` reads a file into a :class:`~pubcli.store.library.Library` whose
  :class:`~pubcli.store.document.Document` keeps the text, so that :func:`save`
  can write it back. Nothing is normalised.
* :func:`save` writes only what changed (:mod:`pubcli.store.save`). A load
  followed by a save with no change writes the same bytes. Writes are atomic
  (:mod:`pubcli.store.files`); a file with other hard links is refused.
* :func:`transaction` holds the library's exclusive lock
  (:mod:`pubcli.store.lock`) around load-modify-save.
* Big files go through a parse cache and a display cache keyed by the file's
  bytes (:mod:`pubcli.store.cache`); a save, and :func:`rewrite` (``pubcli fmt``)
  when the cache held the file, appends what changed to them.
* :func:`listing` gives read-only listings their records from the display cache
  alone (:mod:`pubcli.store.listing`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Callable, Iterator

from pubcli import bibtex
from pubcli.local import gcpause
from ..errors import LibraryNotFound
from pubcli.store.library import Library, Problem
from . import cache, journal
from .cache import cache_dir
from .document import Document
from .listing import Listing, entry_forms, meta_of, read_listing
from .files import (TEMP_SUFFIX, UTF8_BOM, atomic_write, check_readable, check_writable,
                    clean_stale_temp_files, decode, holds, read_text)
from .lock import lock_path, locked
from .save import (Plan, form_of, place_rewritten, preview, rebase, render, render_plan,
                   rewrite_text, source_text)

__all__ = ["load", "loads", "save", "transaction", "render", "preview", "source_text", "Document",
           "Library", "Problem", "rewrite", "form_of", "UTF8_BOM", "TEMP_SUFFIX", "read_text",
           "decode", "atomic_write", "clean_stale_temp_files", "lock_path", "locked", "cache_dir",
           "undo", "history", "Undone", "listing", "Listing", "entry_forms"]


# ------------------------------------------------------------------ reading
def load(path: str | os.PathLike[str], *, use_cache: bool = True, write_cache: bool = True,
         display: bool = False, written: bool = False, keep_bytes: bool = False) -> Library:
    """Load a library file. Unreadable BibTeX blocks are kept and listed in
    ``library.problems``; only I/O and encoding problems raise.

    Big files go through the parse cache (``use_cache``); ``write_cache=False``
    skips refreshing it when the caller is about to save anyway. ``display=True``
    also gives every record its display row (``record.row``), from the display
    cache when it holds them, else computed now and cached. ``keep_bytes``: the
    document keeps the file's bytes, for a save that follows (:func:`transaction`)."""
    if not str(path).strip():
        raise LibraryNotFound("the library path is empty")
    path = Path(path)
    data, text, bom = read_text(path)
    lib = _load_read(path, data, text, bom, use_cache, write_cache, display, written)
    if keep_bytes:
        lib.document.data = data
    return lib


def _load_read(path: Path, data: bytes, text: str, bom: bool, use_cache: bool,
               write_cache: bool, display: bool, written: bool) -> Library:
    with gcpause.paused():  # many objects, no cycles: see pubcli.local.gcpause
        lib = _load(path, data, text, bom, use_cache, write_cache, written)
        fresh = display and _cached_rows(lib, len(data), use_cache)
    if display and not fresh:  # computed with the GC on: LaTeX to text makes garbage
        _compute_rows(lib, len(data), use_cache)
    return lib


def listing(path: str | os.PathLike[str], *, display: bool = True) -> Listing:
    """The library at ``path`` to list, not to edit (:mod:`pubcli.store.listing`): made
    from the display cache alone when it holds the file as it is now, else loaded in
    full (with display rows when ``display``, which fills that cache)."""
    if not str(path).strip():
        raise LibraryNotFound("the library path is empty")
    path = Path(path)
    data, text, bom = read_text(path)
    if len(data) >= cache.MIN_BYTES:
        with gcpause.paused():
            got = read_listing(path, cache.digest_of(data), len(data), text)
        if got is not None:
            return got
    lib = _load_read(path, data, text, bom, True, True, display, False)
    digest = lib.document.digest
    return Listing.of(lib, (digest, len(data)) if digest else None)


def _load(path: Path, data: bytes, text: str, bom: bool, use_cache: bool,
          write_cache: bool, written: bool = False) -> Library:
    parsed = None
    digest = None
    frames = 0
    big = use_cache and len(data) >= cache.MIN_BYTES
    hashed = None
    if big:
        hashed = cache.hash_of(data)
        digest = hashed.hexdigest()
        got = cache.read_parse(path, digest, len(data), written)
        if got is not None:
            parsed, frames = got
    from_cache = parsed is not None
    if parsed is None:
        parsed = bibtex.parse(text)
        if digest is not None and write_cache:
            frames = cache.write_parse(path, digest, len(data), parsed, text)
    lib = _library_from(parsed, path, text, bom, written, from_cache)
    doc = lib.document
    doc.digest = digest
    doc.hashed = hashed
    doc.cached = frames > 0
    doc.frames = frames
    if digest is not None and doc.cached and frames >= cache.MAX_FRAMES and write_cache:
        doc.frames = cache.write_parse(path, digest, len(data), parsed, text)
    return lib


def _cached_rows(lib: Library, size: int, use_cache: bool) -> bool:
    """Give the records their rows from the display cache; False when it has to be
    written again (no rows for this version of the file, or too many deltas)."""
    doc = lib.document
    if not (doc.digest and use_cache and doc.path is not None):
        return False
    from pubcli.text.display import from_rows

    got = cache.Journal(doc.path, ".rows").read(doc.digest, size)
    if got is None or len(got[0]) != len(lib.records):
        return False
    try:
        rows = from_rows(got[0])
    except ValueError:
        return False
    for rec, row in zip(lib.records, rows, strict=True):
        rec.row = row
    doc.rows_cached = True
    return got[2] < cache.MAX_FRAMES


def _compute_rows(lib: Library, size: int, use_cache: bool) -> None:
    from pubcli.text.display import row_of, to_rows

    doc = lib.document
    rows = [row_of(rec) for rec in lib.records]
    if doc.digest and use_cache and doc.path is not None:
        doc.rows_cached = cache.Journal(doc.path, ".rows").write_base(
            doc.digest, size, to_rows(rows), meta_of(lib)) > 0


def loads(text: str, path: str | os.PathLike[str] | None = None) -> Library:
    """Load a library from a string (no file involved)."""
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    return _library_from(bibtex.parse(text), Path(path) if path else None, text, bom)


def _library_from(parsed: bibtex.Parsed, path: Path | None, text: str, bom: bool,
                  written: bool = False, cached: bool = False) -> Library:
    # how fields were written is read again from the text when an entry is edited
    # (bibtex.written_fields): a third of a big library's memory otherwise (the parse
    # cache keeps none)
    for rec in parsed.records if not (written or cached) else ():
        if rec.source is not None:
            rec.source.fields = None
    doc = Document(path, text, bom, parsed.newline, parsed.macros, parsed.failed,
                   parsed.warnings)
    doc.loaded = list(parsed.records)
    return Library(parsed.records, path=path, document=doc)


# ------------------------------------------------------------------ writing
def save(library: Library, path: str | os.PathLike[str] | None = None) -> bool:
    """Write the library's pending edits. Returns False when there was nothing to do."""
    from ..errors import WriteError

    target = Path(path) if path is not None else library.path
    if target is None:
        raise WriteError("no path to save the library to")
    if not library.changed and path is None:
        return False
    doc = library.document
    text, plan = render_plan(library)
    # the file as loaded (a transaction's), when it is what is there now: its digest is
    # known, and the new bytes are its bytes up to the first change, then the rest
    loaded = doc.data if doc.data is not None and holds(target, doc.data) else None
    old = loaded if loaded is not None else _bytes_now(target)
    old_digest = doc.digest if loaded is not None and path is None else None
    data, tail = _new_bytes(loaded, doc, text, plan)
    spans = _byte_spans(loaded, doc, data, plan) if plan.edits else None
    from pubcli.local import keyindex

    replaced, removed, added = library.pending()
    # the key index of the file as it was, extended by entries only appended
    appended, before = (len(added), keyindex.stamp(target)) if not (replaced or removed) \
        else (None, None)
    atomic_write(target, data)
    hashed = None
    if tail is not None and doc.hashed is not None and old_digest is not None:
        hashed = doc.hashed.copy()  # the old bytes' hash, then the bytes appended
        hashed.update(tail)
    delta = _cache_delta(library) if path is None else None
    rebase(library, text, plan)
    doc.text = text
    doc.data = data if doc.data is not None else None
    library.mark_saved()
    _refresh_caches(library, target, data, delta, hashed)
    journal.record(target, old, data, new_digest=doc.digest,  # for pubcli undo
                   old_digest=old_digest, spans=spans)
    _commit_if_wanted(target)
    # keys for TAB, when TAB is used
    keyindex.refresh_index(target, library.records, appended=appended, before=before)
    return True


def _new_bytes(loaded: bytes | None, doc: Document, text: str,
               plan: Plan) -> tuple[bytes, bytes | None]:
    """The bytes of the new ``text``, and those appended to ``loaded`` when the new
    bytes are ``loaded`` and more. The new text is the old one up to its first edit (to
    the end when entries are only appended: :func:`.save.render_plan`), so when
    ``loaded`` holds the old text's bytes (BOM and all) and that prefix's bytes are
    known (all of them, or an ASCII text: one byte per character) only the rest is
    encoded."""
    bom = UTF8_BOM if doc.bom else b""
    if loaded is not None:
        old_text = doc.text
        first = plan.edits[0][0] if plan.edits else len(old_text)
        if first == len(old_text):
            tail = text[first:].encode("utf-8")
            return loaded + tail, tail
        if len(loaded) == len(bom) + len(old_text):  # one byte per character
            return loaded[:len(bom) + first] + text[first:].encode("utf-8"), None
    return bom + text.encode("utf-8"), None


def _byte_spans(loaded: bytes | None, doc: Document, data: bytes,
                plan: Plan) -> list[journal.Span] | None:
    """Where the new bytes ``data`` differ from ``loaded`` (the old text's bytes): each
    edit's place, then what was appended; for the undo journal, which checks them.
    Only for edits spread over more than :data:`.journal.SPANS_FROM` characters (else
    the one middle between what the old and new bytes share is small); None when not
    worth it or ``loaded`` is unknown."""
    edits = plan.edits
    if loaded is None or len(edits) < 2 or edits[-1][1] - edits[0][0] <= journal.SPANS_FROM:
        return None
    old_text = doc.text
    ascii_text = len(loaded) == (3 if doc.bom else 0) + len(old_text)  # a byte a character
    spans: list[journal.Span] = []
    shift = 0  # bytes the edits before have added
    pos, at = 0, 3 if doc.bom else 0  # a character offset in the old text, its byte offset
    for start, end, new, _ in edits:
        at += start - pos if ascii_text else len(old_text[pos:start].encode("utf-8"))
        old_len = end - start if ascii_text else len(old_text[start:end].encode("utf-8"))
        n = len(new.encode("utf-8"))
        spans.append((at + shift, n, at, old_len))
        shift += n - old_len
        at += old_len
        pos = end
    if len(data) > len(loaded) + shift:  # entries appended after the edited text
        spans.append((len(loaded) + shift, len(data) - len(loaded) - shift, len(loaded), 0))
    return spans


def _bytes_now(path: Path) -> bytes | None:
    """The file's bytes just before a write (for the undo journal); None when new."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        return None


# ------------------------------------------------------------------ undo
class Undone(NamedTuple):
    """What :func:`undo` put back: the write undone and how many steps are left."""

    step: journal.Step
    left: int


def history(path: str | os.PathLike[str]) -> list[journal.Step]:
    """The writes pubcli can undo in the library at ``path``, oldest first."""
    return journal.steps(Path(path))


def undo(path: str | os.PathLike[str], *, dry_run: bool = False,
         on_wait: Callable[[str], None] | None = None) -> Undone:
    """Put back the exact bytes the library had before pubcli's last write to it.
    Refused when there is nothing to undo, or when the file changed since that write."""
    from ..errors import ValidationError

    path = Path(path)
    read_text(path)  # a missing or unreadable library: its own error
    if not dry_run:
        check_writable(path)
    with contextlib.ExitStack() as stack:
        if not dry_run:
            stack.enter_context(locked(path, on_wait=on_wait))
        steps = journal.steps(path)
        if not steps:
            raise ValidationError(f"nothing to undo: pubcli has no write of this file on record "
                                  f"(it keeps the last {journal.DEPTH})", path=path)
        last = steps[-1]
        old = journal.undo_bytes(last, path.read_bytes())
        if old is None or not last.before:
            raise ValidationError(f"the file changed since pubcli's last write to it "
                                  f"({last.what}); nothing was restored (undo only puts "
                                  "back what pubcli itself wrote)", path=path)
        if not dry_run:
            atomic_write(path, old)
            journal.pop(path)
            _commit_if_wanted(path)
    return Undone(last, len(steps) - 1)


def _commit_if_wanted(path: Path) -> None:
    """``pubcli --git`` / ``git = true``: commit the write (:mod:`.gitcommit`)."""
    if journal.wants_commit(path):
        from .gitcommit import commit

        commit(path, journal.current_command())


def _cache_delta(library: Library) -> tuple[list[int], list[int]] | None:
    """(indices removed from the records as loaded, indices of the records to pack
    again in the new list) for the pending edits; None when unknown."""
    doc = library.document
    replaced, removed, added = library.pending()
    if not (replaced or removed):  # entries appended to the records as loaded
        if len(library.records) != len(doc.loaded) + len(added):
            return None
        return [], list(range(len(doc.loaded), len(library.records)))
    old_pos = {id(r): i for i, r in enumerate(doc.loaded)}
    try:
        gone = sorted(old_pos[id(r)] for r in removed)
        olds = [library.original_of(r) for r in replaced]
        moved = [old_pos[id(o)] for o in olds if o is not None]
    except KeyError:
        return None
    if len(moved) != len(replaced) or \
            len(library.records) != len(doc.loaded) - len(gone) + len(added):
        return None
    survivors = len(doc.loaded) - len(gone)
    again = set()
    for k, old_index in enumerate(gone):  # the entry after a cut moved closer
        j = old_index - k
        if j < survivors:
            again.add(j)
    gone_set = set(gone)
    for old_index in moved:  # replaced in place: its position among the survivors
        again.add(old_index - _count_below(gone, old_index))
        if old_index in gone_set:
            return None
    again.update(range(survivors, len(library.records)))
    return gone, sorted(again)


def _count_below(sorted_values: list[int], x: int) -> int:
    import bisect

    return bisect.bisect_left(sorted_values, x)


def _refresh_caches(library: Library, target: Path, data: bytes,
                    delta: tuple[list[int], list[int]] | None, hashed: Any = None) -> None:
    """``hashed``: the hash of ``data`` (:func:`.cache.hash_of`), when known."""
    doc = library.document
    records = library.records
    old_digest = doc.digest
    doc.loaded = list(records)
    if len(data) < cache.MIN_BYTES or cache.disabled():
        doc.digest, doc.hashed, doc.cached, doc.rows_cached = None, None, False, False
        return
    doc.hashed = hashed if hashed is not None else cache.hash_of(data)
    digest = doc.hashed.hexdigest()
    doc.digest = digest
    meta = cache.pack_meta(doc.failed, [], doc.macros, doc.newline)
    incremental = (doc.cached and doc.frames < cache.MAX_FRAMES and doc.path is not None
                   and Path(os.path.realpath(target)) == Path(os.path.realpath(doc.path)))
    if incremental and delta is not None and old_digest is not None:
        gone, again = delta
        packed = cache.pack_records(records, doc.text, again)
        if cache.Journal(target, ".marshal").append_delta(old_digest, digest, len(data),
                                                          gone, packed, meta):
            doc.frames += 1
            _refresh_rows(library, target, old_digest, digest, len(data), gone, again)
            return
    parsed = bibtex.Parsed(records, doc.failed, [], doc.macros, doc.newline)
    doc.frames = cache.write_parse(target, digest, len(data), parsed, doc.text)
    doc.cached = doc.frames > 0
    doc.rows_cached = False


def _refresh_rows(library: Library, target: Path, old_digest: str, digest: str, size: int,
                  gone: list[int], again: list[int]) -> None:
    """Append the changed entries' rows to the display cache. Without the rows in
    memory we cannot know the cache holds ``old_digest``: the delta is appended all
    the same, and a reader ignores it unless it continues the cache's chain."""
    from pubcli.text.display import row_of

    journal = cache.Journal(target, ".rows")
    if not journal.file.exists():
        return
    records = library.records
    journal.append_delta(old_digest, digest, size, gone,
                         {i: tuple(row_of(records[i])) for i in again},
                         meta_of(library, warnings=False))


def rewrite(library: Library, edits: list[tuple[int, int, str]],
            expected: list[list[tuple[str, str, dict[str, str]]]]) -> None:
    """Write the library's text with ``edits`` made on it (``pubcli fmt``'s plan),
    atomically, once it reads back as ``expected`` (see
    :func:`pubcli.store.save.rewrite_text`). Call it inside :func:`transaction`, which
    holds the lock; the library must have no pending edits of its own, and is not to
    be used afterwards (load the file again). Like :func:`save`, the write is journaled
    for :func:`undo` and committed when git is wanted; when each edit rewrites one whole
    entry or the white space between entries and the parse cache held the file, the
    records are placed in the new text (:func:`pubcli.store.save.place_rewritten`) and
    the cache refreshed from them, as :func:`save` does, so that the next command does
    not parse the file again."""
    from ..errors import WriteError

    if library.changed:
        raise WriteError("internal error: rewrite() of a library with pending edits")
    path = library.path
    if path is None:
        raise WriteError("no path to save the library to")
    if not edits:
        return
    text = rewrite_text(library, edits, expected)
    doc = library.document
    data = (UTF8_BOM if doc.bom else b"") + text.encode("utf-8")
    # the file as loaded (a transaction's), when it is what is there now: its digest is
    # known (the journal need not hash it again)
    loaded = doc.data if doc.data is not None and holds(path, doc.data) else None
    old = loaded if loaded is not None else _bytes_now(path)
    old_digest = doc.digest if loaded is not None else None
    atomic_write(path, data)
    # a parse cache that held the file is kept warm (none is made: the next load does)
    again = place_rewritten(library, text, edits, expected) if library.document.cached \
        else None
    if again is not None:  # the records know the new text: the caches follow it
        with gcpause.paused():
            _refresh_caches(library, path, data,
                            ([], again) if len(again) * 4 <= len(library.records) else None)
    library.document.data = None  # (a transaction's bytes as loaded are not these)
    journal.record(path, old, data,  # for pubcli undo, as every other write
                   new_digest=library.document.digest if again is not None else None,
                   old_digest=old_digest)
    _commit_if_wanted(path)


# ------------------------------------------------------------------ transactions
@contextlib.contextmanager
def transaction(path: str | os.PathLike[str], *, dry_run: bool = False, written: bool = False,
                on_wait: Callable[[str], None] | None = None) -> Iterator[Library]:
    """Lock, load, let the caller edit, then save once if anything changed.

    An exception inside the block leaves the file untouched. With
    ``dry_run`` nothing is written (and no lock is taken).
    """
    if not str(path).strip():
        raise LibraryNotFound("the library path is empty")
    path = Path(path)
    if dry_run:
        yield load(path, written=written)
        return
    # check we can read (and would be allowed to write) before creating a lock file
    check_readable(path)
    check_writable(path)
    with locked(path, on_wait=on_wait):
        clean_stale_temp_files(path)
        # save() refreshes the cache
        lib = load(path, write_cache=False, written=written, keep_bytes=True)
        yield lib
        if lib.changed:
            save(lib)


def _cache_read(path: Path, digest: str, size: int) -> bibtex.Parsed | None:
    """The parse cache's records for this version of the file (for tests), or None."""
    got = cache.read_parse(Path(path), digest, size)
    return got[0] if got else None

