"""A dry run shows exactly what the real write would write (issue 14): it renders
through the store's own code, newlines and indentation included."""

from __future__ import annotations


CRLF = "@misc{a,\r\n\ttitle = {A},\r\n\tyear = 2020\r\n}\r\n"
ARGS = ("--title", "New one", "--author", "C D", "--year", "2021", "--no-interactive")


def test_add_dry_run_prints_the_bytes_the_real_add_appends(cli, tmp_path):
    dry = tmp_path / "dry.bib"
    real = tmp_path / "real.bib"
    for p in (dry, real):
        p.write_bytes(CRLF.encode())
    r = cli("add", "-l", dry, "-n", *ARGS)
    assert r.exit_code == 0, r.stderr
    assert dry.read_bytes() == CRLF.encode()  # nothing written
    assert cli("add", "-l", real, *ARGS).exit_code == 0
    appended = real.read_bytes()[len(CRLF.encode()):].lstrip(b"\r\n")
    assert r.stdout_bytes == appended
    assert b"\r\n\ttitle = {New one}," in appended  # the file's newline and indent


def test_add_dry_run_refuses_what_the_real_add_refuses(cli, tmp_path):
    path = tmp_path / "open.bib"
    path.write_text("@misc{open,\n  title = {Never closed\n", encoding="utf-8")
    r = cli("add", "-l", path, "-n", *ARGS)
    assert r.exit_code == 2
    assert f"error: {path}:1: the block on line 1 is not closed" in r.stderr
