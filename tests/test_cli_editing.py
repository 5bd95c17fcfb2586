"""show, edit, remove and rename: through the CLI, and their byte locality."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from pubcli.usecases import distinct, editing
from pubcli import store
from pubcli.errors import NotFound, ValidationError

from .conftest import write

DUPS = ("% two entries share a key, as in real files\n"
        "@article{smith2020,\n  author = {Ann Smith},\n  title = {First paper},\n"
        "  journal = {J. One},\n  year = {2020},\n}\n\n"
        "@article{smith2020,\n  author = {Bob Jones},\n  title = {Second paper},\n"
        "  journal = {J. Two},\n  year = {2021},\n}\n\n"
        "@misc{other,\n  title = {Caf{\\'e} \\& M{\\\"u}ller},\n  year = {2019},\n}\n")


def span(path: Path, key: str, line: int | None = None) -> tuple[int, int]:
    """Byte offsets of an entry in the file (the file is UTF-8 and these are ASCII)."""
    lib = store.load(path)
    rec = next(r for r in lib.records if r.key == key and (line is None or r.line == line))
    text = path.read_bytes().decode("utf-8")
    return len(text[:rec.source.start].encode()), len(text[:rec.source.end].encode())


def assert_only_entry_changed(before: bytes, after: bytes, start: int, end: int) -> None:
    """Everything before the entry and after it is the same bytes."""
    tail = len(before) - end
    assert after[:start] == before[:start]
    assert after[len(after) - tail:] == before[end:]


@pytest.fixture
def dups(tmp_path) -> Path:
    return write(tmp_path / "dups.bib", DUPS)


def make_editor(tmp_path: Path, monkeypatch, body: str, *, status: int = 0) -> Path:
    """A fake $VISUAL: a Python script that rewrites the file it is given with
    ``body`` (Python, ``text`` in and out) and exits with ``status``."""
    script = tmp_path / "fake-editor"
    script.write_text(f"#!{sys.executable}\nimport sys\np = sys.argv[1]\n"
                      "text = open(p, encoding='utf-8').read()\n"
                      f"{body}\n"
                      "open(p, 'w', encoding='utf-8').write(text)\n"
                      f"sys.exit({status})\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VISUAL", str(script))
    monkeypatch.delenv("EDITOR", raising=False)
    return script


# ------------------------------------------------------------------ show
def test_show_text_has_file_line_areas_and_unicode(cli, dups):
    r = cli("show", "other", "-l", dups)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == f"other (@misc)  {dups}:16"
    assert "  title: Café & Müller" in r.stdout


def test_show_several_and_key_at_line(cli, dups):
    r = cli("show", "smith2020@9", "other", "-l", dups)
    assert r.exit_code == 0
    assert "Bob Jones" in r.stdout and "Ann Smith" not in r.stdout and "other (@misc)" in r.stdout


def test_show_bibtex_is_the_files_text(cli, dups):
    r = cli("show", "other", "--format", "bibtex", "-l", dups)
    assert r.stdout == "@misc{other,\n  title = {Caf{\\'e} \\& M{\\\"u}ller},\n  year = {2019},\n}\n"


def test_show_json(cli, library):
    r = cli("show", "wang2024zero", "-f", "json", "-l", library)
    [entry] = json.loads(r.stdout)
    assert entry["key"] == "wang2024zero" and entry["line"] == 5
    assert entry["file"] == str(library)
    assert entry["text"]["title"].startswith("ZeRO++: Extremely")
    assert entry["fields"]["title"].startswith("{ZeRO}++")


def test_show_refuses_a_repeated_key_naming_both_lines(cli, dups):
    r = cli("show", "smith2020", "-l", dups)
    assert r.exit_code == 2
    assert f"error: {dups}:2: the key 'smith2020' is used by 2 entries (lines 2 and 9); name one " \
           "as smith2020@2 or smith2020@9; nothing was changed" in r.stderr


def test_show_unknown_key(cli, library):
    r = cli("show", "wang2024zeor", "-l", library)
    assert r.exit_code == 2 and "did you mean 'wang2024zero'" in r.stderr


def test_show_cleans_terminal_escapes(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{evil,\n  title = {Hi \x1b]0;pwned\x07 there},\n}\n")
    r = cli("show", "evil", "-l", lib)
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout and "\u241b]0;pwned" in r.stdout


# ------------------------------------------------------------------ edit --set/--unset
def test_edit_set_and_unset_touch_only_that_entry(cli, dups):
    before = dups.read_bytes()
    start, end = span(dups, "smith2020", 9)
    r = cli("edit", "smith2020@9", "--set", "doi=10.1000/xyz", "--unset", "journal",
            "-l", dups)
    assert r.exit_code == 0, r.output
    assert "+  doi = {10.1000/xyz}," in r.stdout and "-  journal = {J. Two}," in r.stdout
    after = dups.read_bytes()
    assert_only_entry_changed(before, after, start, end)
    second = [r for r in store.load(dups).records if r.line == 9][0]
    assert second.fields["doi"] == "10.1000/xyz" and "journal" not in second.fields
    assert "Ann Smith" in after.decode()  # the other smith2020 is untouched


def test_edit_dry_run_shows_the_diff_and_writes_nothing(cli, dups):
    before = dups.read_bytes()
    r = cli("edit", "other", "--set", "note=Hello", "-n", "-l", dups)
    assert r.exit_code == 0 and "+  note = {Hello}," in r.stdout
    assert "nothing was written" in r.stderr
    assert dups.read_bytes() == before


@pytest.mark.parametrize("args,message", [
    (["--set", "title"], "--set expects name=value"),
    (["--set", "bad name=x"], "not a valid BibTeX field name"),
    (["--set", "note={unbalanced"], "unbalanced braces"),
    (["--unset", "doi"], "has no field 'doi'"),
    (["--set", "note="], "use --unset note"),
])
def test_edit_set_refusals_write_nothing(cli, dups, args, message):
    before = dups.read_bytes()
    r = cli("edit", "other", *args, "-l", dups)
    assert r.exit_code == 2 and message in r.stderr
    assert dups.read_bytes() == before


def test_edit_refuses_a_repeated_key(cli, dups):
    r = cli("edit", "smith2020", "--set", "note=x", "-l", dups)
    assert r.exit_code == 2 and "lines 2 and 9" in r.stderr


# ------------------------------------------------------------------ edit in $EDITOR
def test_editor_valid_change_is_spliced_back(cli, dups, tmp_path, monkeypatch):
    make_editor(tmp_path, monkeypatch,
                "text = text.replace('Second paper', 'Second paper, revised')")
    before = dups.read_bytes()
    start, end = span(dups, "smith2020", 9)
    r = cli("edit", "smith2020@9", "-l", dups)
    assert r.exit_code == 0, r.output
    assert "-  title = {Second paper}," in r.stdout
    assert "+  title = {Second paper, revised}," in r.stdout
    assert "rewrote 'smith2020'" in r.stderr
    assert_only_entry_changed(before, dups.read_bytes(), start, end)
    assert b"Second paper, revised" in dups.read_bytes()


def test_editor_sees_the_entrys_own_text(cli, dups, tmp_path, monkeypatch):
    seen = tmp_path / "seen.txt"
    make_editor(tmp_path, monkeypatch, f"open({str(seen)!r}, 'w').write(text)")
    r = cli("edit", "other", "-l", dups)
    assert seen.read_text() == "@misc{other,\n  title = {Caf{\\'e} \\& M{\\\"u}ller},\n  year = {2019},\n}"
    assert r.exit_code == 0 and "no change; nothing was written" in r.stderr


def test_editor_no_change_writes_nothing(cli, dups, tmp_path, monkeypatch):
    make_editor(tmp_path, monkeypatch, "pass")
    before = dups.read_bytes()
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 0 and r.stdout == "" and "no change" in r.stderr
    assert dups.read_bytes() == before


def test_editor_invalid_change_aborts_with_file_and_line(cli, dups, tmp_path, monkeypatch):
    make_editor(tmp_path, monkeypatch, "text = text.replace('year = {2019},', 'year = {2019')")
    before = dups.read_bytes()
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2
    assert f"error: {dups}:16: the edited entry does not parse" in r.stderr
    assert dups.read_bytes() == before


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "declined-on-a-terminal"])
def test_a_refused_edit_keeps_the_users_text_and_names_the_open_brace(
        cli, dups, tmp_path, monkeypatch, terminal):
    """Issue 18: the edited text survives a refusal, in a file whose path is printed,
    and the error says which '{' is left open (by BibTeX's count) at which line."""
    import tempfile

    from pubcli.cli import dialogues

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(dialogues, "stdin_is_terminal", lambda: terminal)
    make_editor(tmp_path, monkeypatch,
                "text = text.replace('year = {2019},', 'year = {2019,\\n  note = {mine},')")
    before = dups.read_bytes()
    r = cli("edit", "other", "-l", dups, input="n\n")
    assert r.exit_code == 2
    assert (f"error: {dups}:18: the edited entry does not parse: the '{{' on line 18 is "
            "never closed: the field on line 19 is read as part of its value") in r.stderr
    [kept] = list(temp.iterdir())
    assert f"your edited text is kept in {kept}" in r.stderr
    assert "note = {mine}" in kept.read_text()
    assert dups.read_bytes() == before


def test_unbalanced_brace_counts_as_bibtex_does():
    from pubcli.usecases.editing import unbalanced_brace

    assert unbalanced_brace("@misc{o, title = {a}}") is None
    assert unbalanced_brace("@misc{o,\n  year = {2019\n}").line == 1
    # a backslash does not hide a brace from BibTeX: this '}' ends the title
    extra = unbalanced_brace("@misc{o,\n  title = {a\\}b},\n}")
    assert extra is not None and extra.extra and extra.line == 3
    assert "closes no '{'" in extra.describe()
    # nor does a quoted value
    assert unbalanced_brace('@misc{o,\n  title = "a{b",\n  year = 2020,\n}').swallowed == 3
    assert unbalanced_brace("% {\n@misc{o, title = {a}}") is None  # before the @: no count


def test_editor_two_entries_are_refused(cli, dups, tmp_path, monkeypatch):
    make_editor(tmp_path, monkeypatch, "text = text + '\\n@misc{x, title={X}}\\n'")
    before = dups.read_bytes()
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2 and "holds 2 entries" in r.stderr
    assert dups.read_bytes() == before


def test_editor_key_taken_is_refused(cli, dups, tmp_path, monkeypatch):
    make_editor(tmp_path, monkeypatch, "text = text.replace('{other,', '{smith2020,')")
    before = dups.read_bytes()
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2 and "the key 'smith2020' is already used on line 2" in r.stderr
    assert dups.read_bytes() == before


def test_editor_failing_writes_nothing(cli, dups, tmp_path, monkeypatch):
    make_editor(tmp_path, monkeypatch, "text = text.replace('2019', '2020')", status=3)
    before = dups.read_bytes()
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2 and "exited with status 3; nothing was written" in r.stderr
    assert dups.read_bytes() == before


def test_editor_that_cannot_start(cli, dups, monkeypatch):
    monkeypatch.setenv("VISUAL", "/nonexistent/editor --wait")
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2 and "cannot run the editor '/nonexistent/editor'" in r.stderr


def test_editor_invalid_then_fixed_on_a_terminal(cli, dups, tmp_path, monkeypatch):
    """On a terminal a refused edit offers to re-open the editor on the edited text."""
    from pubcli.cli import dialogues

    count = tmp_path / "count"
    make_editor(tmp_path, monkeypatch,
                f"import os\nn = os.path.exists({str(count)!r})\n"
                f"open({str(count)!r}, 'a').write('x')\n"
                "text = text.replace('year = {2019}', 'year = {2019') if not n else "
                "text.replace('year = {2019', 'year = {2018}')")
    monkeypatch.setattr(dialogues, "stdin_is_terminal", lambda: True)
    r = cli("edit", "other", "-l", dups, input="y\n")
    assert r.exit_code == 0, r.output
    assert "re-open the editor?" in r.stderr and count.read_text() == "xx"
    assert [r.fields["year"] for r in store.load(dups).records if r.key == "other"] == ["2018"]


def test_editor_prefers_visual_over_editor(monkeypatch):
    from pubcli.cli import dialogues

    monkeypatch.setenv("VISUAL", "code --wait")
    monkeypatch.setenv("EDITOR", "nano")
    assert dialogues.editor_command() == ["code", "--wait"]
    monkeypatch.delenv("VISUAL")
    assert dialogues.editor_command() == ["nano"]


# ------------------------------------------------------------------ remove
def test_remove_with_yes_cuts_only_that_entry(cli, dups):
    before = dups.read_bytes()
    start, end = span(dups, "smith2020", 2)
    r = cli("remove", "smith2020@2", "--yes", "-l", dups)
    assert r.exit_code == 0, r.output
    assert r.stdout == f"smith2020\t{dups}:2\tFirst paper\n"
    assert "removed 1 entry" in r.stderr
    # the entry and the blank line after it are cut; every other byte stays
    assert before[end:end + 2] == b"\n\n"
    assert dups.read_bytes() == before[:start] + before[end + 2:]


def test_remove_refuses_without_a_terminal_or_yes(cli, dups):
    before = dups.read_bytes()
    r = cli("remove", "other", "-l", dups)
    assert r.exit_code == 2 and "pass --yes" in r.stderr
    assert dups.read_bytes() == before


def test_remove_asks_on_a_terminal(cli, dups, monkeypatch):
    from pubcli.cli import dialogues

    monkeypatch.setattr(dialogues, "stdin_is_terminal", lambda: True)
    before = dups.read_bytes()
    r = cli("remove", "other", "-l", dups, input="n\n")
    assert r.exit_code == 130 and "remove 1 entry from" in r.stderr
    assert dups.read_bytes() == before
    r = cli("remove", "other", "-l", dups, input="y\n")
    assert r.exit_code == 0 and b"@misc{other" not in dups.read_bytes()


def test_remove_dry_run(cli, dups):
    before = dups.read_bytes()
    r = cli("remove", "other", "smith2020@9", "-n", "-l", dups)
    assert r.exit_code == 0 and r.stdout.count("\n") == 2
    assert "would remove 2 entries; nothing was written" in r.stderr
    assert dups.read_bytes() == before


def test_remove_one_missing_key_removes_nothing(cli, dups):
    before = dups.read_bytes()
    r = cli("remove", "other", "nope", "--yes", "-l", dups)
    assert r.exit_code == 2 and "no entry with key 'nope'" in r.stderr
    assert dups.read_bytes() == before


# ------------------------------------------------------------------ rename
def test_rename_keeps_the_old_key_in_ids_and_touches_only_that_entry(cli, library):
    before = library.read_bytes()
    start, end = span(library, "wang2024zero")
    r = cli("rename", "wang2024zero", "wang2024zeropp", "-l", library)
    assert r.exit_code == 0, r.output
    assert "renamed 'wang2024zero' to 'wang2024zeropp'" in r.stderr
    assert_only_entry_changed(before, library.read_bytes(), start, end)
    lib = store.load(library)
    rec = lib.find("wang2024zeropp")[0]
    assert rec.fields["ids"] == "wang2024zero" and not lib.find("wang2024zero")


def test_rename_no_ids(cli, library):
    cli("rename", "wang2024zero", "zpp", "--no-ids", "-l", library)
    assert "ids" not in store.load(library).find("zpp")[0].fields


def test_rename_adds_to_existing_ids(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{b,\n  title = {T},\n  ids = {a},\n}\n")
    cli("rename", "b", "c", "-l", lib)
    assert store.load(lib).find("c")[0].fields["ids"] == "a, b"
    cli("rename", "c", "a", "-l", lib)  # back to a key in ids: it leaves ids
    assert store.load(lib).find("a")[0].fields["ids"] == "b, c"


def test_rename_one_of_two_entries_with_the_same_key(cli, dups):
    before = dups.read_bytes()
    start, end = span(dups, "smith2020", 9)
    r = cli("rename", "smith2020@9", "jones2021", "-l", dups)
    assert r.exit_code == 0, r.output
    assert_only_entry_changed(before, dups.read_bytes(), start, end)
    lib = store.load(dups)
    assert [r.fields["title"] for r in lib.find("smith2020")] == ["First paper"]
    assert lib.find("jones2021")[0].fields["title"] == "Second paper"


@pytest.mark.parametrize("new,message", [("smith2020", "already used on line 2"),
                                         ("bad key", "not a valid BibTeX key"),
                                         ("other", "already called 'other'")])
def test_rename_refusals(cli, dups, new, message):
    before = dups.read_bytes()
    r = cli("rename", "other", new, "-l", dups)
    assert r.exit_code == 2 and message in r.stderr
    assert dups.read_bytes() == before


def test_rename_updates_the_not_duplicates_file(cli, library):
    distinct.add(library, [("wang2024zero", "rajbhandari2020zero")])
    r = cli("rename", "wang2024zero", "wang2024zeropp", "-l", library)
    assert r.exit_code == 0
    assert ("rajbhandari2020zero", "wang2024zeropp") in distinct.load(library)


def test_rename_dry_run_writes_nothing(cli, library):
    distinct.add(library, [("wang2024zero", "rajbhandari2020zero")])
    before, dbefore = library.read_bytes(), distinct.distinct_path(library).read_bytes()
    r = cli("rename", "wang2024zero", "zpp", "-n", "-l", library)
    assert r.exit_code == 0 and "+@inproceedings{zpp," in r.stdout
    assert library.read_bytes() == before
    assert distinct.distinct_path(library).read_bytes() == dbefore


def test_rename_names_entries_that_crossref_the_old_key(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@proceedings{conf,\n  title = {Conf},\n  year = {2020},\n}\n\n"
                "@inproceedings{paper,\n  title = {P},\n  crossref = {conf},\n}\n")
    before = lib.read_bytes()
    r = cli("rename", "conf", "conf2020", "-l", lib)
    assert r.exit_code == 0 and "entry 'paper' refers to 'conf' in crossref" in r.stderr
    assert lib.read_bytes().endswith(before[before.index(b"@inproceedings"):])


# ------------------------------------------------------------------ the core
def test_resolve_key_at_line():
    lib = store.loads(DUPS, "x.bib")
    assert editing.resolve(lib, "smith2020@9").fields["title"] == "Second paper"
    with pytest.raises(NotFound, match="no entry 'smith2020' starts on line 5 "
                                       r"\(it is on lines 2 and 9\)"):
        editing.resolve(lib, "smith2020@5")
    with pytest.raises(ValidationError, match="used by 2 entries"):
        editing.resolve(lib, "smith2020")


def test_library_replace_by_identity_changes_the_right_entry():
    lib = store.loads(DUPS, "x.bib")
    second = lib.find("smith2020")[1]
    lib.replace(second, second.copy(fields={**second.fields, "note": "n"}))
    text = store.render(lib)
    assert text.count("note = {n}") == 1
    assert text.index("note = {n}") > text.index("Second paper")
    with pytest.raises(ValidationError, match="lines 2 and 9"):
        lib.remove("smith2020")


def test_editor_repeated_field_is_refused(cli, dups, tmp_path, monkeypatch):
    make_editor(tmp_path, monkeypatch,
                "text = text.replace('year = {2019},', 'year = {2019},\\n  year = {2020},')")
    before = dups.read_bytes()
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2 and f"{dups}:16: the edited entry has a duplicate field" in r.stderr
    assert dups.read_bytes() == before


def test_editor_comment_above_the_entry_shifts_the_reported_line(cli, dups, tmp_path,
                                                                  monkeypatch):
    make_editor(tmp_path, monkeypatch,
                "text = 'note line\\n' + text.replace('year = {2019},', 'year = {2019')")
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2 and f"error: {dups}:16: the edited entry does not parse" in r.stderr


def test_edit_does_not_hold_the_lock_and_refuses_a_changed_entry(cli, dups, tmp_path,
                                                                 monkeypatch):
    """While the editor is open another pubcli may write; if it changed this entry,
    the edit writes nothing."""
    lib = str(dups)
    make_editor(tmp_path, monkeypatch,
                "import subprocess\n"
                f"subprocess.run([{sys.executable!r}, '-m', 'pubcli', 'edit', 'other', "
                f"'--set', 'note=meanwhile', '-l', {lib!r}], check=True, timeout=60)\n"
                "text = text.replace('2019', '2018')")
    r = cli("edit", "other", "-l", dups)
    assert r.exit_code == 2
    assert "entry 'other' changed while pubcli was waiting for you; nothing was written" \
        in r.stderr
    [rec] = store.load(dups).find("other")
    assert rec.fields["year"] == "2019" and rec.fields["note"] == "meanwhile"


def test_remove_asks_before_locking_and_refuses_a_changed_entry(cli, dups, monkeypatch):
    from pubcli.cli import dialogues

    def answer_after_someone_else_wrote(question, **kw):
        assert cli("edit", "other", "--set", "note=meanwhile", "-l", dups).exit_code == 0
        return True

    monkeypatch.setattr(dialogues, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(dialogues, "confirm", answer_after_someone_else_wrote)
    r = cli("remove", "other", "-l", dups)
    assert r.exit_code == 2 and "changed while pubcli was waiting" in r.stderr
    assert store.load(dups).find("other")


def test_edit_on_a_crlf_library_keeps_crlf_and_shows_a_clean_diff(cli, tmp_path):
    text = DUPS.replace("\n", "\r\n")
    lib = write(tmp_path / "crlf.bib", text)
    before = lib.read_bytes()
    start, end = span(lib, "other")
    r = cli("edit", "other", "--set", "note=N", "-l", lib)
    assert r.exit_code == 0, r.output
    assert "+  note = {N}," in r.stdout and "\r" not in r.stdout and "\u240d" not in r.stdout
    after = lib.read_bytes()
    assert_only_entry_changed(before, after, start, end)
    assert b"  note = {N},\r\n" in after and after.count(b"\n") == after.count(b"\r\n")


@pytest.mark.parametrize("args", [["edit", "twice"], ["edit", "twice", "--set", "note=x"],
                                  ["rename", "twice", "twice2"]])
def test_an_entry_pubcli_leaves_alone_is_refused_before_the_editor(cli, tmp_path,
                                                                    monkeypatch, args):
    lib = write(tmp_path / "l.bib", "@misc{twice,\n  title = {A},\n  title = {B},\n}\n")
    monkeypatch.setenv("VISUAL", "/nonexistent/editor")  # never started
    before = lib.read_bytes()
    r = cli(*args, "-l", lib)
    assert r.exit_code == 2
    assert f"error: {lib}:1: entry 'twice' has a duplicate field" in r.stderr
    assert "fix it in the file by hand" in r.stderr
    assert lib.read_bytes() == before


def test_show_marks_fields_inherited_through_crossref(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@proceedings{conf,\n  title = {Proc. of Things},\n"
                "  year = {2020},\n}\n\n@inproceedings{paper,\n  title = {P},\n"
                "  crossref = {conf},\n}\n")
    r = cli("show", "paper", "-l", lib)
    assert "  booktitle: Proc. of Things (inherited)" in r.stdout
    assert "  year:      2020 (inherited)" in r.stdout
    [data] = json.loads(cli("show", "paper", "-f", "json", "-l", lib).stdout)
    assert data["inherited"]["booktitle"] == "Proc. of Things" and "year" not in data["fields"]


# ------------------------------------------------------------ one key resolver
@pytest.mark.parametrize("args", [
    ["show", "wang2024"], ["show", "wang2024@5"], ["remove", "wang2024", "--dry-run"],
    ["rename", "wang2024", "wang2024z", "--dry-run"],
    ["edit", "wang2024", "--set", "note=x", "--dry-run"],
    ["tag", "wang2024", "--add", "Computer vision", "--dry-run"],
])
def test_every_command_taking_a_key_accepts_a_unique_prefix(cli, library, args):
    r = cli(*args, "-l", library)
    assert r.exit_code == 0, r.stderr


@pytest.mark.parametrize("args", [
    ["show", "rajb"], ["remove", "rajb", "--yes"], ["rename", "rajb", "x"],
    ["edit", "rajb", "--set", "note=x"], ["tag", "rajb", "--add", "Computer vision"],
    ["update", "rajb"], ["dedupe", "--explain", "rajb", "wang2024zero"],
])
def test_every_command_refuses_an_ambiguous_prefix_listing_the_keys(cli, library, args):
    before = library.read_bytes()
    r = cli(*args, "-l", library)
    assert r.exit_code == 2
    assert r.stderr.endswith("error: " + str(library) + ": 'rajb' is the start of 3 keys "
                             "(rajbhandari2021zeroinfinity, rajbhandari2020zero, "
                             "rajbhandari2017optimizing); type more of the key\n"), r.stderr
    assert library.read_bytes() == before


@pytest.mark.parametrize("cmd", [["show"], ["remove", "--yes"], ["tag", "--featured"],
                                 ["update"], ["rename", "-", "new"], ["edit", "-", "--set",
                                                                      "note=x"]])
def test_a_mistyped_key_gets_the_same_words_everywhere(cli, library, cmd):
    args = [a if a != "-" else "wagn2024zero" for a in cmd]
    if "wagn2024zero" not in args:
        args.insert(1, "wagn2024zero")
    r = cli(*args, "-l", library)
    assert r.exit_code == 2
    assert r.stderr.endswith(f"{library}: no entry with key 'wagn2024zero'; "
                             "did you mean 'wang2024zero'?\n"), r.stderr


@pytest.mark.parametrize("cmd", [["show"], ["tag", "--featured"]])
def test_a_wrong_line_gets_the_same_words_everywhere(cli, library, cmd):
    r = cli(cmd[0], "wang2024zero@99", *cmd[1:], "-l", library)
    assert r.exit_code == 2
    assert r.stderr.endswith("no entry 'wang2024zero' starts on line 99 (it is on line 5)\n"), \
        r.stderr
