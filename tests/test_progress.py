"""The progress seam: the core reports through one callback; the CLI draws a bar on a
terminal's stderr only, only past about a second, and never into a pipe."""

from __future__ import annotations

import io
import sys

from pubcli.usecases import triage
from pubcli.usecases import listing as listings
from pubcli.cli import common
from pubcli.schema.model import Record
from pubcli.usecases.progress import stepper

from .conftest import write


def test_stepper_reports_about_steps_times_and_always_the_end():
    calls = []
    tick = stepper(lambda *a: calls.append(a), "x", 10_000, steps=100)
    for i in range(10_001):
        tick(i)
    assert 100 <= len(calls) <= 102
    assert calls[0] == ("x", 0, 10_000) and calls[-1] == ("x", 10_000, 10_000)
    assert [c[1] for c in calls] == sorted(c[1] for c in calls)
    stepper(None, "x", 5)(3)  # no callback: nothing happens, nothing fails


def test_an_import_plan_reports_each_step_up_to_all_items():
    items = [listings.Item(Record("", "misc", {"title": f"Work number {i} on things",
                                                 "author": f"Ann Author{i}", "year": "2020"}),
                            i + 1) for i in range(30)]
    calls = []
    out = triage.plan(items, [], progress=lambda *a: calls.append(a))
    assert len(out) == 30
    assert calls[-1] == ("matching against the library", 30, 30)
    matching = [c for c in calls if c[0] == "matching against the library"]
    assert {c[2] for c in matching} == {30}
    # before the items: the candidate pairs of the library the import makes are found
    from pubcli.dedupe.guard import WEIGHING

    first = calls.index(matching[0])
    assert calls[:first] and all(c[0] == WEIGHING and c[2] == 1000 for c in calls[:first])
    assert len(calls) == first + len(matching)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_is_drawn_on_a_terminal_and_gone_after(monkeypatch):
    fake = _Terminal()
    monkeypatch.setattr(sys, "stderr", fake)
    with common.progress_bar("working", after=0) as progress:
        assert progress is not None
        progress("matching against the library", 5, 10)
    assert "matching against the library" in fake.getvalue()


def test_no_bar_before_about_a_second(monkeypatch):
    fake = _Terminal()
    monkeypatch.setattr(sys, "stderr", fake)
    with common.progress_bar("working") as progress:
        progress("quick work", 1, 2)
    assert fake.getvalue() == ""


def test_no_bar_into_a_pipe(cli, tmp_path):
    lib = write(tmp_path / "library.bib", "")
    src = write(tmp_path / "in.bib", "".join(
        f"@misc{{w{i},\n  title = {{Work number {i} on things}},\n  year = {{2020}},\n}}\n\n"
        for i in range(20)))
    r = cli("import", src, "-l", lib)
    assert r.exit_code == 0, r.output
    assert "matching" not in r.stderr and "\x1b" not in r.stderr and "\r" not in r.stderr
    with common.progress_bar("working") as progress:  # CliRunner's stderr is no terminal
        assert progress is None
