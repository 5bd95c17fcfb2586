"""Shared fixtures. Tests never touch data/library.bib: they copy it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pubcli.schema.model import Record

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "data" / "library.bib"
SHIPPED_CONFIG = ROOT / "data" / "pubcli.toml"
SEED_PAGE = ROOT / "tests" / "data" / "publications-page.txt"
GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No user cache, no library from the environment, no colour surprises."""
    monkeypatch.setenv("PUBCLI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("PUBCLI_LIBRARY", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture
def library(tmp_path) -> Path:
    """A temp copy of the shipped library (and its pubcli.toml) in tmp/data/."""
    d = tmp_path / "data"
    d.mkdir()
    shutil.copy(SHIPPED, d / "library.bib")
    shutil.copy(SHIPPED_CONFIG, d / "pubcli.toml")
    return d / "library.bib"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def cli(runner):
    """Run pubcli in-process: cli("list", "--by", "year") -> Result."""
    from pubcli.cli import app

    def run(*args: str, input: str | None = None, env: dict | None = None):
        return runner.invoke(app, [str(a) for a in args], input=input, env=env,
                             catch_exceptions=False)

    return run


def golden(name: str, actual: str | bytes) -> None:
    """Assert that ``actual`` is, byte for byte, tests/golden/<name> (UTF-8, its newlines
    as they are: no ``\r\n`` translation either way).

    ``PUBCLI_UPDATE_GOLDEN=1`` rewrites the file from ``actual`` instead; review the diff.
    """
    data = actual.encode("utf-8") if isinstance(actual, str) else actual
    path = GOLDEN / name
    how = f"if the change is intended, rerun with PUBCLI_UPDATE_GOLDEN=1 and review the diff of {path}"
    if os.environ.get("PUBCLI_UPDATE_GOLDEN") == "1":
        path.write_bytes(data)
    assert path.exists(), f"missing golden file {path}; {how}"
    expected = path.read_bytes()
    if data != expected:
        # Compare as text, so that pytest shows a readable diff (repr shows a \r).
        assert data.decode("utf-8", "replace") == expected.decode("utf-8", "replace"), \
            f"{name} differs from its golden file; {how}"
        raise AssertionError(f"{name} differs from its golden file in bytes; {how}")


def record(key: str = "k", type_: str = "misc", **fields: str | None) -> Record:
    """A record built in memory, as a test needs one: ``record(title="T", year="2020")``.

    A field given as None is left out (handy for parameters that may be absent).
    """
    return Record(key, type_, {k: v for k, v in fields.items() if v is not None})


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


@pytest.fixture
def chdir(monkeypatch):
    def go(path: Path):
        monkeypatch.chdir(path)
    return go


def pytest_report_header(config):
    return f"pubcli tests; chromium: {'present' if os.path.exists('/usr/bin/chromium') else 'absent'}"
