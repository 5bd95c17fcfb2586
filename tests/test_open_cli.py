"""`pubcli open`: the right address to the platform's opener; no display, no opener."""

from __future__ import annotations

import os
import stat
import time

import pytest

from .conftest import write

LIB = """@inproceedings{zero2020,
  title = {ZeRO},
  doi = {10.1109/SC41405.2020.00024},
  url = {https://example.org/zero},
  url_code = {https://github.com/example/zero},
  eprint = {1910.02054}, archiveprefix = {arXiv},
}

@misc{local2021,
  title = {Local},
  file = {Full text:papers/local.pdf:PDF;Notes:notes.txt:text/plain},
}

@misc{bare2019, title = {Nothing}}
"""


@pytest.fixture
def lib(tmp_path):
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "local.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "notes.txt").write_text("notes\n")
    return write(tmp_path / "lib.bib", LIB)


@pytest.fixture
def opener(tmp_path, monkeypatch):
    """A real xdg-open on PATH that writes down what it was asked to open."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "opened.txt"
    script = bin_dir / "xdg-open"
    script.write_text(f"#!/bin/sh\necho \"$1\" >> {log}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":0")

    def opened() -> list[str]:
        for _ in range(100):  # the opener runs detached
            if log.exists():
                return log.read_text().splitlines()
            time.sleep(0.05)
        return []
    return opened


@pytest.mark.parametrize("args,address", [
    (["zero2020"], "https://doi.org/10.1109/SC41405.2020.00024"),
    (["zero2020", "--what", "url"], "https://example.org/zero"),
    (["zero2020", "--what", "code"], "https://github.com/example/zero"),
    (["zero2020", "--what", "arxiv"], "https://arxiv.org/abs/1910.02054"),
    (["zero", "--what", "DOI"], "https://doi.org/10.1109/SC41405.2020.00024"),
])
def test_open_hands_the_address_to_the_opener(cli, lib, opener, args, address):
    r = cli("open", *args, "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert opener() == [address]


def test_a_local_file_is_opened_from_the_library_folder(cli, lib, opener):
    r = cli("open", "local2021", "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert opener() == [str((lib.parent / "papers" / "local.pdf").resolve())]


@pytest.mark.slow  # waits 5 s to be sure no opener runs
def test_print_only_prints(cli, lib, opener):
    r = cli("open", "zero2020", "--what", "code", "--print", "-l", lib)
    assert r.stdout == "https://github.com/example/zero\n"
    assert opener() == []


def test_no_display_prints_the_address_and_refuses(cli, lib, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    r = cli("open", "zero2020", "-l", lib)
    assert r.exit_code == 2
    assert r.stdout == "https://doi.org/10.1109/SC41405.2020.00024\n"
    assert r.stderr.startswith("error: no display to open it on")


def test_no_opener_prints_the_address_and_refuses(cli, lib, monkeypatch, tmp_path):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    r = cli("open", "zero2020", "-l", lib)
    assert r.exit_code == 2 and r.stdout.startswith("https://doi.org/")
    assert r.stderr.startswith("error: cannot start xdg-open")


def test_what_the_entry_lacks_is_refused_naming_what_it_has(cli, lib):
    r = cli("open", "zero2020", "--what", "slides", "-l", lib)
    assert r.exit_code == 2
    assert r.stderr == (f"error: {lib}:1: entry 'zero2020' has no slides to open "
                        "(it has: doi, url, arxiv, code)\n")
    r = cli("open", "bare2019", "-l", lib)
    assert r.exit_code == 2 and "has nothing to open" in r.stderr
