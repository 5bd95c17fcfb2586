"""Importing a researcher's own library as BibTeX reads it (issue 18, item 3).

The files under tests/data/exports follow what JabRef (``@Comment{jabref-meta: ...}``,
``__markedentry``, ``groups``), Mendeley Desktop (its header line, ``file =
{:path:pdf}``, ``mendeley-tags``) and Zotero with Better BibTeX (biblatex: ``date``,
``journaltitle``, ``@online``, ``eprinttype``) write. BibTeX reads every entry in them;
pubcli must import every one, keys as written, and say what each lacks with its line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pubcli.usecases import listing as listings
from pubcli.usecases import adding as entries, importing as importers, triage
from pubcli import store
from pubcli.local.config import Config
from pubcli.errors import ValidationError

from .conftest import write

EXPORTS = Path(__file__).resolve().parent / "data" / "exports"
FILES = sorted(EXPORTS.glob("*.bib"))
BST = "ENTRY { } { } { }\nREAD\nFUNCTION {dump} { cite$ write$ newline$ }\nITERATE {dump}\n"
def bibtex_keys(bib: Path, tmp: Path) -> list[str]:
    """The keys of the entries the real bibtex program reads from ``bib``."""
    if shutil.which("bibtex") is None:
        pytest.skip("bibtex is not installed (Debian texlive-binaries)")
    shutil.copy(bib, tmp / "in.bib")
    (tmp / "keys.bst").write_text(BST)
    (tmp / "t.aux").write_text("\\citation{*}\n\\bibdata{in}\n\\bibstyle{keys}\n")
    subprocess.run(["bibtex", "-terse", "t"], cwd=tmp, capture_output=True, timeout=60,
                   env={**os.environ, "BIBINPUTS": ".:", "BSTINPUTS": ".:"})
    return (tmp / "t.bbl").read_text(encoding="utf-8").split()


@pytest.fixture
def empty(tmp_path) -> Path:
    d = tmp_path / "lib"
    d.mkdir()
    return write(d / "library.bib", "")


def summary(stderr: str) -> dict[str, int]:
    rows = re.findall(r"^ {2,}(\S.*?)\s{2,}(\d+)$", stderr, re.M)
    return {label.strip(): int(n) for label, n in rows}


@pytest.mark.parametrize("name", [f.name for f in FILES])
def test_every_entry_bibtex_reads_is_imported(name, cli, empty, tmp_path):
    path = EXPORTS / name
    read = bibtex_keys(path, tmp_path)
    r = cli("import", path, "-l", empty)
    assert r.exit_code == 0, r.output
    got = [rec.key for rec in store.load(empty).records]
    assert len(got) == len(read) > 10
    assert got == read  # each key exactly as written
    assert summary(r.stderr)["skipped: invalid"] == 0


def test_shortfalls_are_warnings_with_their_line_and_check_shows_them_again(cli, empty):
    path = EXPORTS / "jabref.bib"
    r = cli("import", path, "-l", empty)
    assert r.exit_code == 0, r.output
    for line, what in [(18, "year '63' is not a four-digit year"),
                       (39, "entry 'Goldstein2001': @book needs publisher"),
                       (53, "URL 'https://srdata.nist.gov/xps/ https://doi.org/"),
                       (105, "entry 'Kim2016': @article needs year (or date)")]:
        assert re.search(rf"^warning: {re.escape(str(path))}:{line}: .*{re.escape(what)}",
                         r.stderr, re.M), what
    assert summary(r.stderr)["of them with warnings (see 'pubcli check')"] >= 5
    # the entries are in the file as written: check finds the same shortfalls again
    c = cli("check", "-l", empty, "--format", "json")
    import json

    codes = {(f["key"], f["code"]) for f in json.loads(c.stdout)}
    assert ("Goldstein2001", "missing-field") in codes
    assert ("dataset_xps", "bad-url") in codes
    assert ("Kim2016", "missing-field") in codes
    text = empty.read_text()
    assert "url = {https://srdata.nist.gov/xps/ https://doi.org/10.18434/T4T88K}" \
        in text


def test_strict_gives_the_refusals_of_before(cli, empty):
    r = cli("import", EXPORTS / "jabref.bib", "--strict", "-l", empty)
    assert r.exit_code == 0, r.output
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    invalid = {row[5]: row[4] for row in rows if row[0] == "invalid"}
    assert "@book needs publisher" in invalid["39"]
    assert "4-digit year" in invalid["18"]
    assert "@misc needs title" in invalid["47"]  # pubcli's own rule, kept under --strict
    assert "Goldstein2001" not in {r.key for r in store.load(empty).records}


def test_a_misc_needs_nothing_and_an_unknown_type_is_a_warning():
    misc = entries.Record("anon2015", "misc", {"year": "2015"})
    assert entries.validate(misc, strict=False) == []
    with pytest.raises(ValidationError, match="@misc needs title"):
        entries.validate(misc)
    odd = entries.Record("x", "webpage2", {"title": "T"})
    assert entries.validate(odd, strict=False) == [
        "entry 'x': unknown entry type '@webpage2' (BibTeX's styles print it as @misc)"]
    assert entries.validate(odd, force=True) == []  # --force: what it did before
    with pytest.raises(ValidationError, match="unknown entry type"):
        entries.validate(odd)
    # what cannot be written is refused either way
    with pytest.raises(ValidationError, match="unbalanced braces"):
        entries.validate(entries.Record("x", "misc", {"title": "T {"}), strict=False)


def test_add_from_takes_what_bibtex_reads_and_strict_refuses(cli, empty, tmp_path):
    bib = write(tmp_path / "in.bib", "@inproceedings{Lee2018,\n  author = {Lee, Min},\n"
                "  title = {Fast Estimation},\n  year = {18},\n}\n")
    r = cli("add", "--from", bib, "--strict", "-l", empty)
    assert r.exit_code == 2 and f"{bib}:1: field 'year': entry 'Lee2018'" in r.stderr
    assert empty.read_text() == ""
    r = cli("add", "--from", bib, "-l", empty)
    assert r.exit_code == 0, r.output
    assert f"warning: {bib}:1: entry 'Lee2018': year '18' is not a four-digit year" in r.stderr
    assert f"warning: {bib}:1: entry 'Lee2018': @inproceedings needs booktitle" in r.stderr
    assert r.stdout == "Lee2018\n"
    assert "year = {18}" in empty.read_text()


# ------------------------------------------------------------------ keys
@pytest.mark.parametrize("key", ["O'Hara_1999", "Dobrovol'skii_1963", "Smith:2001a",
                                 "müller2020", "a/b.c+d"])
def test_keys_bibtex_reads_and_cite_passes_are_kept(key):
    rec, old = entries.keep_or_renew_key(entries.Record(key, "misc", {"title": "T"}), set())
    assert rec.key == key and old is None


@pytest.mark.parametrize("key, why", [("a b", "cannot read"), ("a,b", "cannot read"),
                                      ("esc\x1b]8;;", "cannot read"), ("x%y", "'%'"),
                                      ("k#1", "'#'")])
def test_keys_that_cannot_be_kept_are_renewed_with_the_reason(key, why):
    rec, old = entries.keep_or_renew_key(entries.Record(key, "misc", {"title": "Tiny"}),
                                         set())
    assert old == key and rec.key == "tiny"
    assert why in entries.renewed_key_note(old, rec.key)


def test_a_new_key_with_control_characters_is_refused(cli, empty):
    for args in (["add", "--title", "T", "--author", "A B", "--year", "2020",
                  "--key", "x\x1b]0;pwned\x07"],):
        r = cli(*args, "-l", empty)
        assert r.exit_code == 2 and "x\\x1b]0;pwned\\x07' is not a valid BibTeX key" \
            in r.stderr
        assert "\x1b" not in r.stderr
    write(empty, "@misc{ok2020, title = {T}, year = {2020}}\n")
    r = cli("rename", "ok2020", "ok\x1b[2J", "-l", empty)
    assert r.exit_code == 2 and "'ok\\x1b[2J' is not a valid BibTeX key" in r.stderr
    assert empty.read_text() == "@misc{ok2020, title = {T}, year = {2020}}\n"


def test_plan_keeps_keys_the_writer_takes_and_says_why_others_change():
    items = [listings.Item(entries.Record("has space", "misc", {"title": "One"}), 1),
             listings.Item(entries.Record("free", "misc", {"title": "Two"}), 5),
             listings.Item(entries.Record("FREE", "misc", {"title": "Three"}), 9)]
    out = triage.plan(items, [])
    assert [o.record.key for o in out] == ["one", "free", "FREEa"]
    warnings = importers.outcome_warnings(out, "in.bib")
    assert warnings[0].startswith("in.bib:1: BibTeX cannot read 'has space' as a key "
                                  "(white space, a comma, a '}' or a control character); the "
                                  "entry is added as 'one'")
    assert warnings[1] == "in.bib:9: the key 'FREE' is taken; the entry is added as 'FREEa'"


def test_jabref_keys_with_apostrophes_are_kept(cli, empty):
    r = cli("import", EXPORTS / "jabref.bib", "-l", empty)
    keys = {rec.key for rec in store.load(empty).records}
    assert {"O'Hara_1999", "Dobrovol'skii_1963", "Lee2018"} <= keys
    assert "ohara1999auger" not in keys
    assert summary(r.stderr)["of them under a new key"] == 0


# ------------------------------------------------------------------ field names
def test_field_names_exporters_write_are_taken():
    for name in ("__markedentry", "mendeley-tags", "file", "Mendeley-Groups"):
        assert entries.validate(entries.Record("k", "misc", {name: "x"}), strict=False) == []
    for name in ("1st", "a b", "a=b", "a{"):
        with pytest.raises(ValidationError, match="not a valid BibTeX field name"):
            entries.validate(entries.Record("k", "misc", {name: "x"}), strict=False)


JABREF_ENTRY = """@Article{Smith2001,
  author    = {Smith, John},
  title     = {A Title},
  journal   = {J. Things},
  year      = {2001},
  __markedentry = {[jdoe:6]},
}
"""


def test_jabref_marked_entries_can_be_edited_and_renamed(cli, empty):
    write(empty, JABREF_ENTRY)
    r = cli("edit", "Smith2001", "--set", "note=read", "-l", empty)
    assert r.exit_code == 0, r.output
    r = cli("rename", "Smith2001", "smith2001title", "-l", empty)
    assert r.exit_code == 0, r.output
    text = empty.read_text()
    assert text.startswith("@Article{smith2001title,\n") and "__markedentry = {[jdoe:6]}," in text
    assert "note" in text and "ids" in text
    # a new field with a name BibTeX cannot read is still refused
    r = cli("edit", "smith2001title", "--set", "bad name=x", "-l", empty)
    assert r.exit_code == 2


# ------------------------------------------------------------------ keywords are not areas
BBT = EXPORTS / "zotero-bbt.bib"
CONFIGURED = ["Systems and networking", "Machine learning", "Statistic"]


def test_a_files_keywords_are_kept_and_only_those_naming_an_area_count():
    cfg = Config(areas=CONFIGURED, path=Path("pubcli.toml"))
    plan = importers.plan_import(BBT.read_text(encoding="utf-8"), [], cfg, source="bbt.bib")
    assert sorted(plan.not_areas) == sorted([
        "Computer Science - Distributed", "Parallel", "and Cluster Computing",
        "Computer Science - Machine Learning", "primary", "secondary", "two way ANOVA",
        "statistics"])
    assert ("keywords that are not research areas (kept as keywords)", 8) in plan.summary()
    anova = next(o for o in plan.outcomes if o.record.key == "liDeepAnova2020")
    assert anova.record.fields["keywords"] == "two way ANOVA,statistics,Machine learning"
    assert any(w.startswith("bbt.bib:97: entry 'liDeepAnova2020': keyword 'statistics' is "
                            "not a research area; did you mean 'Statistic'?")
               for w in plan.warnings)
    assert plan.new_areas == []


def test_areas_from_keywords_opts_in(cli, tmp_path):
    d = tmp_path / "lib"
    d.mkdir()
    lib = write(d / "library.bib", "")
    toml = write(d / "pubcli.toml", '# mine\nareas = ["Systems and networking", "Statistic"]\n')
    r = cli("import", BBT, "-l", lib)
    assert r.exit_code == 0, r.output
    assert "keywords that are not research areas (kept as keywords)" in r.stderr
    assert toml.read_text() == '# mine\nareas = ["Systems and networking", "Statistic"]\n'
    write(lib, "")
    r = cli("import", BBT, "--areas-from-keywords", "-l", lib)
    assert r.exit_code == 0, r.output
    from pubcli.local.config import load_config

    areas = load_config(lib).areas
    assert areas[:2] == ["Systems and networking", "Statistic"] and "primary" in areas
    assert toml.read_text().startswith("# mine\n")
    anova = next(rec for rec in store.load(lib).records if rec.key == "liDeepAnova2020")
    assert anova.areas == ["two way ANOVA", "Statistic", "Machine learning"]
    assert "not research areas" not in r.stderr


def test_without_a_vocabulary_the_keywords_start_one():
    plan = importers.plan_import(BBT.read_text(encoding="utf-8"), [], Config(), source="b.bib")
    assert plan.not_areas == [] and plan.new_areas == []
