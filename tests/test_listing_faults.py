"""Old listing faults: a report's venue, TeX math in the terminal, the Ctrl-C line."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time

import pytest

from pubcli.schema.model import Record
from pubcli.text.math import terminal_text, unicode_math

from .conftest import write

REPORTS = """@techreport{a2019,
  author = {Ann Smith},
  title = {Things Reported},
  institution = {Carnegie Mellon University},
  number = {7},
  year = {2019},
}

@techreport{b2020,
  author = {Bob Jones},
  title = {More Things Reported},
  institution = {Carnegie Mellon University},
  number = {TR-12},
  year = {2020},
}

@techreport{c2021,
  author = {Cy Doe},
  title = {Named Reports},
  institution = {Microsoft Research},
  number = {MSR-TR-2021-3},
  year = {2021},
}

@report{d2022,
  author = {Di Roe},
  title = {A Report of Another Kind},
  institution = {Carnegie Mellon University},
  type = {White paper},
  number = {3},
  year = {2022},
}
"""


def test_a_reports_venue_is_its_series_and_number_unless_the_number_names_itself():
    def venue(type_, **fields):
        return Record("k", type_, fields).venue

    assert venue("techreport", institution="CMU", number="7") == "CMU, Technical Report 7"
    assert venue("techreport", institution="CMU", number="No. 7") == \
        "CMU, Technical Report No. 7"
    assert venue("techreport", institution="MSR", number="MSR-TR-2024-12") == "MSR-TR-2024-12"
    assert venue("report", institution="CMU", type="White paper", number="3") == \
        "CMU, White paper 3"
    assert venue("techreport", institution="Acme Technical Report") == "Acme Technical Report"
    assert venue("techreport") == ""
    assert venue("article", journal="J. Things", number="7") == "J. Things"


def test_list_shows_and_groups_reports_by_their_series(cli, tmp_path):
    lib = write(tmp_path / "library.bib", REPORTS)
    data = json.loads(cli("list", "-f", "json", "--by", "none", "-l", lib).stdout)
    venues = {e["key"]: e["venue"] for e in data["entries"]}
    assert venues["a2019"] == "Carnegie Mellon University, Technical Report 7"
    assert venues["b2020"] == "Carnegie Mellon University, Technical Report TR-12"
    assert venues["c2021"] == "MSR-TR-2021-3"
    out = cli("list", "--by", "venue", "-l", lib).stdout
    heads = [ln for ln in out.splitlines() if ln and not ln.startswith(" ")]
    assert heads == ["Carnegie Mellon University, Technical Report (2 publications)",
                     "Carnegie Mellon University, White paper (1 publication)",
                     "Microsoft Research, Technical Report (1 publication)"]


@pytest.mark.parametrize("raw, shown", [
    (r"$O(n^2)$ Time", "O(n²) Time"),
    (r"Fast {$\alpha$}-Nets for $k$-Means", "Fast α-Nets for k-Means"),
    (r"$\epsilon$-DP with $\delta \geq 0$", "ϵ-DP with δ ≥ 0"),
    (r"$\mathcal{O}(n \log n)$ Sorting", "O(n log n) Sorting"),
    (r"$x_{ij}$ in $\mathbb{R}^n$", "xᵢⱼ in ℝⁿ"),
    (r"$10^{-3}$ Error", "10⁻³ Error"),
    (r"$O(\sqrt{n})$", "O(√n)"),
    # not simple: kept as written, never half converted
    (r"$\frac{a}{b}$ and $x^2$", r"$\frac{a}{b}$ and x²"),
    (r"$y_\beta$ Noise", r"$y_\beta$ Noise"),
    (r"$\foo x$", r"$\foo x$"),
    # an escaped dollar is a dollar
    (r"Costs \$5 and \$6 for M{\"u}ller", "Costs $5 and $6 for Müller"),
])
def test_simple_math_as_unicode(raw, shown):
    assert terminal_text(raw) == shown


def test_unicode_math_says_when_it_cannot():
    assert unicode_math(r"\alpha + \beta") == "α + β"
    assert unicode_math(r"\frac{1}{2}") is None


def test_show_on_a_terminal_shows_math_as_unicode_and_json_keeps_it(cli, tmp_path):
    lib = write(tmp_path / "library.bib",
                "@misc{m,\n  title = {Sorting in $O(n \\log n)$ Time and $\\frac{a}{b}$},\n}\n")
    text = cli("show", "m", "-l", lib, env={"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}).stdout
    assert "title: Sorting in O(n log n) Time and $\\frac{a}{b}$" in text
    data = json.loads(cli("show", "m", "-f", "json", "-l", lib).stdout)
    assert data[0]["text"]["title"] == "Sorting in $O(n \\log n)$ Time and $\\frac{a}{b}$"


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX terminal")
def test_the_interrupt_message_starts_below_the_terminals_caret_c(tmp_path):
    import fcntl
    import pty
    import termios

    lib = write(tmp_path / "library.bib", "")
    master, slave = pty.openpty()

    def controlling_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    env = {**os.environ, "PUBCLI_LIBRARY": str(lib), "COLUMNS": "80"}
    proc = subprocess.Popen([sys.executable, "-m", "pubcli", "import", "-"], stdin=slave,
                            stdout=slave, stderr=slave, preexec_fn=controlling_terminal,
                            env=env, close_fds=True)
    os.close(slave)
    out = b""

    def read_until(pattern: bytes, timeout: float = 60) -> None:
        nonlocal out
        end = time.monotonic() + timeout
        while pattern not in out and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    out += os.read(master, 4096)
                except OSError:
                    break

    try:
        read_until(b"end with Ctrl-D")
        os.write(master, b"\x03")  # Ctrl-C: the terminal echoes ^C and sends SIGINT
        read_until(b"nothing was written")
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = out.decode("utf-8", "replace")
    assert re.search(r"\^C\r?\n(\r)?error: interrupted; nothing was written", text), text
