"""`pubcli list --format line`, the pager on a terminal, and the note past 600 rows."""

from __future__ import annotations

import stat

from .conftest import write


def test_line_format_is_key_year_first_author_title(cli, library):
    r = cli("list", "--format", "line", "--search", "zero", "-l", library)
    assert r.exit_code == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.split()[:4] == ["wang2024zero", "2024", "Wang", "et"]
    assert first.endswith("ZeRO++: Extremely Efficient Collective Communication for Giant "
                          "Model Training")  # piped: not cut


def test_line_format_is_cut_to_the_terminal_but_keys_are_whole(cli, library):
    r = cli("list", "--format", "line", "--no-pager", "-l", library,
            env={"TTY_COMPATIBLE": "1", "COLUMNS": "60"})
    lines = r.stdout.splitlines()
    assert len(lines) == 20 and all(len(line) <= 60 for line in lines)
    assert any(line.startswith("yazdaniaminabadi2022deepspeed ") for line in lines)
    assert lines[0].endswith("…")


def _pager(tmp_path):
    out = tmp_path / "paged.txt"
    script = tmp_path / "mypager"
    script.write_text(f"#!/bin/sh\ncat > {out}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, out


def _on_a_terminal(args, env) -> str:
    """Run pubcli with stdout on a pseudo-terminal; what reached the terminal."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    proc = subprocess.run([sys.executable, "-m", "pubcli", *map(str, args)], stdout=slave,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          env={**os.environ, **env}, timeout=60, check=False)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    assert proc.returncode == 0, proc.stderr
    return got.decode("utf-8").replace("\r\n", "\n")


def test_a_long_listing_on_a_terminal_goes_through_the_pager(library, tmp_path):
    script, out = _pager(tmp_path)
    env = {"LINES": "10", "COLUMNS": "100", "PAGER": str(script)}
    shown = _on_a_terminal(["list", "--format", "line", "-l", library], env)
    assert shown == "" and out.read_text().count("\n") == 20
    out.unlink()
    shown = _on_a_terminal(["list", "--format", "line", "--no-pager", "-l", library], env)
    assert shown.count("\n") == 20 and not out.exists()
    shown = _on_a_terminal(["list", "--format", "line", "-l", library], {**env, "LINES": "50"})
    assert shown.count("\n") == 20 and not out.exists()  # it fits: no pager


def test_no_pager_when_piped(cli, library, tmp_path):
    script, out = _pager(tmp_path)
    r = cli("list", "-l", library, env={"PAGER": str(script), "LINES": "10"})
    assert r.stdout and not out.exists()


def test_past_600_rows_list_says_it_switched_to_plain_lines(cli, tmp_path):
    lib = write(tmp_path / "big.bib", "".join(
        f"@misc{{k{i}, title = {{Paper {i}}}, author = {{Kim, A.}}, year = {{2020}}}}\n"
        for i in range(601)))
    r = cli("list", "--no-pager", "-l", lib, env={"TTY_COMPATIBLE": "1", "COLUMNS": "120"})
    assert r.exit_code == 0
    assert "601 publications: one plain line each instead of tables (tables stop at 600; " \
           "--format line is shorter)" in r.stderr
