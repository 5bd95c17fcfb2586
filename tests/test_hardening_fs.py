"""The file system around the library: symlinks, read-only files and folders,
permissions and ownership, a full disk, and temp files a crash left behind.

Where the OS decides (permissions), the scenario runs for real. Running as
root, permission checks do not apply to the process, so those scenarios run in
a child process that drops to the unprivileged user ``nobody``.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
import json
from pathlib import Path

import pytest

from pubcli import store
from pubcli.errors import LibraryNotFound, WriteError
from pubcli.schema.model import Record

from .conftest import SHIPPED

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOBODY = 65534


def temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(store.TEMP_SUFFIX))


def add_one(path: Path, key: str = "new2025entry") -> None:
    with store.transaction(path) as lib:
        lib.add(Record(key, "misc", {"title": "Added by a test", "year": "2025"}))


# ------------------------------------------------------------------ symlinks
def test_symlinked_library_stays_a_symlink_and_its_target_is_replaced(tmp_path):
    real_dir = tmp_path / "elsewhere"
    real_dir.mkdir()
    target = real_dir / "library.bib"
    shutil.copy(SHIPPED, target)
    data = tmp_path / "data"
    data.mkdir()
    link = data / "library.bib"
    link.symlink_to(Path("..") / "elsewhere" / "library.bib")   # relative, as git stores it
    second = tmp_path / "link-to-link.bib"
    second.symlink_to(link)
    before = target.read_bytes()

    add_one(second)
    add_one(link, "another2025entry")

    assert link.is_symlink() and os.readlink(link) == str(Path("..") / "elsewhere" / "library.bib")
    assert second.is_symlink() and os.readlink(second) == str(link)
    after = target.read_bytes()
    assert after.startswith(before)
    assert b"@misc{new2025entry," in after and b"@misc{another2025entry," in after
    # the lock and any temp file live beside the real file, never beside the link
    assert temp_files(real_dir) == [] and temp_files(data) == []
    assert sorted(p.name for p in data.iterdir()) == ["library.bib"]


def test_dangling_symlink_is_a_clear_error_and_nothing_is_created(tmp_path):
    link = tmp_path / "library.bib"
    link.symlink_to(tmp_path / "gone.bib")
    with pytest.raises(LibraryNotFound, match="no such file"):
        add_one(link)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["library.bib"]


# ------------------------------------------------------------------ permissions
def test_file_mode_is_kept(tmp_path):
    for mode in (0o600, 0o640, 0o664, 0o755):
        path = tmp_path / f"lib{mode:o}.bib"
        shutil.copy(SHIPPED, path)
        os.chmod(path, mode)
        add_one(path)
        assert stat.S_IMODE(path.stat().st_mode) == mode
        assert b"new2025entry" in path.read_bytes()


@pytest.mark.skipif(not IS_ROOT, reason="changing a file's owner needs root")
def test_owner_and_group_are_kept_when_root_writes_a_users_file(tmp_path):
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    os.chown(path, NOBODY, NOBODY)
    add_one(path)
    st = path.stat()
    assert (st.st_uid, st.st_gid) == (NOBODY, NOBODY)


def test_read_only_library_is_refused_and_nothing_is_left(tmp_path):
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    os.chmod(path, 0o444)
    before = path.read_bytes()
    with pytest.raises(WriteError, match="read-only; nothing was written") as info:
        add_one(path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert temp_files(tmp_path) == []


# A scenario run by a child process for which permissions bind.
UNPRIVILEGED = r"""
import json, os, sys
from pubcli import store
from pubcli.errors import PubcliError
from pubcli.schema.model import Record
path, key = sys.argv[1], sys.argv[2]
try:
    with store.transaction(path) as lib:
        lib.add(Record(key, "misc", {"title": "x", "year": "2025"}))
    print(json.dumps({"ok": True}))
except PubcliError as exc:
    print(json.dumps({"ok": False, "error": exc.format(), "type": type(exc).__name__}))
"""


def _without_override() -> None:
    """In the child, before exec: as root, give up the capabilities that let root
    ignore file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER)."""
    if IS_ROOT:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (1, 2, 3):
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP: gone after exec


def run_unprivileged(path: Path, key: str = "new2025entry") -> dict:
    env = {**os.environ, "PUBCLI_NO_CACHE": "1"}
    proc = subprocess.run([sys.executable, "-c", UNPRIVILEGED, str(path), key], capture_output=True,
                          text=True, timeout=60, preexec_fn=_without_override, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def unprivileged(tmp_path):
    """tmp_path, for a child process that permissions bind (skip where that cannot be had:
    root without CAP_SETPCAP)."""
    probe = tmp_path / "probe"
    probe.write_text("x")
    os.chmod(probe, 0o444)
    proc = subprocess.run([sys.executable, "-c", f"open({str(probe)!r}, 'w')"],
                          capture_output=True, preexec_fn=_without_override, timeout=60)
    probe.unlink()
    if proc.returncode == 0:
        pytest.skip("file permissions do not bind a child process here")
    return tmp_path


@pytest.mark.parametrize("lock_exists", [False, True], ids=["no-lock-file", "old-lock-file"])
def test_read_only_folder_gives_a_clear_error_and_leaves_nothing(unprivileged, lock_exists):
    folder = unprivileged / "data"
    folder.mkdir()
    path = folder / "library.bib"
    shutil.copy(SHIPPED, path)
    if lock_exists:   # a lock file left by an earlier run: locking works, the write cannot
        store.lock_path(path).touch()
    os.chmod(folder, 0o555)
    listing = sorted(p.name for p in folder.iterdir())
    before = path.read_bytes()
    try:
        result = run_unprivileged(path)
    finally:
        os.chmod(folder, 0o755)

    assert result["ok"] is False and result["type"] == "WriteError"
    assert result["error"].startswith(f"{path}: ")
    if lock_exists:
        assert "cannot create a temporary file" in result["error"]
        assert "Permission denied; nothing was written" in result["error"]
    else:
        assert "cannot create the lock file" in result["error"]
        assert "Permission denied" in result["error"]
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == listing


def test_a_lock_file_this_user_cannot_open_is_named_as_existing(unprivileged):
    """Another user's lock file without read or write bits for us: the error says it
    exists (not "cannot create"), and how to fix it (issue 18)."""
    path = unprivileged / "library.bib"
    shutil.copy(SHIPPED, path)
    lock = store.lock_path(path)
    lock.touch()
    os.chmod(lock, 0o000)
    before = path.read_bytes()
    try:
        result = run_unprivileged(path)
    finally:
        os.chmod(lock, 0o644)
    assert result["ok"] is False and result["type"] == "WriteError"
    assert f"the lock file {lock} exists but cannot be opened (Permission denied)" \
        in result["error"]
    assert "cannot create" not in result["error"]
    assert result["error"].endswith("nothing was written")
    assert path.read_bytes() == before


def test_read_only_file_for_a_user_whom_permissions_bind(unprivileged):
    path = unprivileged / "library.bib"
    shutil.copy(SHIPPED, path)
    os.chmod(path, 0o644)
    before = path.read_bytes()
    assert run_unprivileged(path) == {"ok": True}      # writable: works
    assert path.read_bytes() != before
    before = path.read_bytes()
    os.chmod(path, 0o444)
    result = run_unprivileged(path, "second2025entry")
    assert result["ok"] is False and "read-only" in result["error"]
    assert path.read_bytes() == before
    assert temp_files(unprivileged) == []


# ------------------------------------------------------------------ full disk
def test_disk_full_during_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    before = path.read_bytes()
    real_fsync = os.fsync

    def full(fd):  # the moment a full disk (or NFS quota) is reported on a real system
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(WriteError, match="No space left on device.*old file is unchanged"):
        add_one(path)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert path.read_bytes() == before
    assert temp_files(tmp_path) == []
    add_one(path)      # and the next attempt, with space again, works
    assert b"new2025entry" in path.read_bytes()


FILL = r"""
import resource, signal, sys
from pubcli import store
from pubcli.errors import PubcliError
from pubcli.schema.model import Record
path, limit = sys.argv[1], int(sys.argv[2])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # get EFBIG instead of being killed
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    with store.transaction(path) as lib:
        lib.add(Record("big2025", "misc", {"title": "x", "abstract": "y" * 200000}))
except PubcliError as exc:
    print(exc.format())
    sys.exit(2)
"""


def test_real_write_failure_from_the_kernel_leaves_the_old_file_whole(tmp_path):
    """The kernel refuses bytes past a file-size limit, as a full disk refuses them."""
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    before = path.read_bytes()
    limit = len(before) + 4096  # the new file would be ~200 kB larger
    proc = subprocess.run([sys.executable, "-c", FILL, str(path), str(limit)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PUBCLI_NO_CACHE": "1"})
    assert proc.returncode == 2, proc.stderr
    assert "File too large" in proc.stdout and "old file is unchanged" in proc.stdout
    assert str(path) in proc.stdout
    assert path.read_bytes() == before
    assert temp_files(tmp_path) == []


# ------------------------------------------------------------------ stale temp files
def test_temp_files_a_crash_left_are_cleaned_on_the_next_write(tmp_path):
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    stale = [tmp_path / ".library.bib.k3j9_x1.pubcli-tmp", tmp_path / ".library.bib.zz.pubcli-tmp"]
    for p in stale:
        p.write_bytes(b"@misc{half")
    unrelated = [tmp_path / ".library.bib.swp", tmp_path / "other.bib",
                 tmp_path / ".other.bib.abc.pubcli-tmp"]
    for p in unrelated:
        p.write_bytes(b"keep me")
    add_one(path)
    assert temp_files(tmp_path) == [".other.bib.abc.pubcli-tmp"]   # only this library's
    assert all(p.read_bytes() == b"keep me" for p in unrelated)
    assert b"new2025entry" in path.read_bytes()


def test_a_transaction_that_changes_nothing_writes_nothing(tmp_path):
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    with store.transaction(path) as lib:
        assert len(lib) == 20
    assert path.stat().st_mtime == 1_000_000_000
    assert temp_files(tmp_path) == []


# ------------------------------------------------------------------ the same through the CLI
def test_writing_commands_through_a_symlink_keep_the_link(tmp_path, cli):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = real_dir / "library.bib"
    shutil.copy(SHIPPED, target)
    os.chmod(target, 0o640)
    link = tmp_path / "library.bib"
    link.symlink_to(target)
    r = cli("tag", "wang2024zero", "--add", "Systems and networking", "-l", link)
    assert r.exit_code == 0, r.stderr
    r = cli("add", "-l", link, "--title", "Through The Link", "--author", "Ada Lovelace",
            "--year", "2024", "--no-interactive")
    assert r.exit_code == 0, r.stderr
    assert link.is_symlink() and link.resolve() == target
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    text = target.read_text(encoding="utf-8")
    assert "lovelace2024through" in text and "Systems and networking" in text
    assert temp_files(real_dir) == [] and temp_files(tmp_path) == []


def test_writing_commands_on_a_read_only_library_say_so_in_one_line(tmp_path, cli):
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    os.chmod(path, 0o444)
    before = path.read_bytes()
    incoming = tmp_path / "incoming.bib"
    incoming.write_text("@misc{hopper2024new, author = {Grace Hopper}, title = {New}, "
                        "year = 2024}\n", encoding="utf-8")
    for args in (["add", "-l", path, "--title", "Refused", "--author", "Ada Lovelace",
                  "--year", "2024", "--no-interactive"],
                 ["tag", "abdin2024phi3", "--featured", "-l", path],
                 ["import", str(incoming), "-l", path]):
        r = cli(*args)
        assert r.exit_code == 2, (args, r.stderr)
        assert r.stderr.endswith(f"error: {path}: the file is read-only; nothing was written\n")
        assert r.stderr.count("error: ") == 1
    assert path.read_bytes() == before
    assert temp_files(tmp_path) == []


# ------------------------------------------------------------------ locks in shared folders
def test_lock_file_takes_the_librarys_group_write_bit(tmp_path):
    """In a shared group folder (library 0664), a lock made by one user must not
    block the others: the lock file gets the library's group/other write bits."""
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    os.chmod(path, 0o664)
    old = os.umask(0o022)
    try:
        add_one(path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(store.lock_path(path).stat().st_mode) == 0o664


def test_someone_elses_lock_file_without_write_bits_still_locks(unprivileged):
    """An existing lock file we may not write (another user made it 0644) is opened
    read-only for flock: the edit goes through instead of failing."""
    folder = unprivileged / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    path = folder / "library.bib"
    shutil.copy(SHIPPED, path)
    os.chmod(path, 0o666)
    lock = store.lock_path(path)
    lock.touch()
    os.chmod(lock, 0o444)
    result = run_unprivileged(path, "sharedlock2025")
    assert result == {"ok": True}
    assert b"sharedlock2025" in path.read_bytes()


# ------------------------------------------------------------------ hard links
def test_hard_linked_library_is_refused_for_writing(tmp_path, cli):
    """A second name (hard link) would be split off by the atomic rename and would take
    another lock: pubcli refuses to write, says why, and changes nothing."""
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    other = tmp_path / "other-name.bib"
    os.link(path, other)
    before = path.read_bytes()
    with pytest.raises(WriteError, match="2 hard links"):
        add_one(path)
    lib = store.load(path)
    lib.add(Record("direct2025", "misc", {"title": "x"}))
    with pytest.raises(WriteError, match="hard links"):
        store.save(lib)
    result = cli("tag", "--all", "--add", "Systems and networking", "-l", str(other))
    assert result.exit_code == 2
    assert "hard links" in result.stderr and "symbolic link" in result.stderr
    assert path.read_bytes() == before and os.path.samefile(path, other)
    assert temp_files(tmp_path) == []
    assert store.load(other).problems == []  # reading is fine
