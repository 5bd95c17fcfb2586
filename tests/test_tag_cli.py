"""`pubcli tag` and `pubcli areas` through the CLI."""

from __future__ import annotations

import difflib
import json

import pytest

from pubcli import store

from .conftest import write


def areas_of(path) -> dict[str, list[str]]:
    return {r.key: r.areas for r in store.load(path).records}


def changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.unified_diff(before.decode().splitlines(), after.decode().splitlines(),
                                lineterm="", n=0)
    return [ln for ln in diff if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


def test_add_area_by_key_touches_only_that_entry(cli, library):
    before = library.read_bytes()
    r = cli("tag", "wang2024zero", "--add", "SYSTEMS AND NETWORKING", "-l", library)
    assert r.exit_code == 0, r.output
    assert r.stdout == ("wang2024zero: areas: Artificial intelligence -> Artificial "
                        "intelligence, Systems and networking\n")
    assert "changed 1 entry" in r.stderr
    assert changed_lines(before, library.read_bytes()) == [
        "-  keywords = {Artificial intelligence},",
        "+  keywords = {Artificial intelligence, Systems and networking},"]


def test_remove_and_add_together_on_several_keys(cli, library):
    r = cli("tag", "rajbhandari2020zero", "ovtcharov2015toward", "--remove",
            "systems and networking", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 0, r.output
    got = areas_of(library)
    assert got["rajbhandari2020zero"] == ["Artificial intelligence", "Computer vision"]
    assert got["ovtcharov2015toward"] == ["Hardware and devices", "Computer vision"]


def test_near_miss_is_refused_with_did_you_mean(cli, library):
    before = library.read_bytes()
    r = cli("tag", "wang2024zero", "--add", "Sytems and networking", "-l", library)
    assert r.exit_code == 2
    assert r.stderr == ("error: --add: unknown area 'Sytems and networking'; did you mean "
                        "'Systems and networking'? (pass --new to add it as a new area)\n")
    assert library.read_bytes() == before


def test_new_area_with_new_is_added_to_the_config_with_its_comments(cli, library):
    config = library.with_name("pubcli.toml")
    before = config.read_text()
    r = cli("tag", "wang2024zero", "--add", "Sytems and networking", "--new", "-l", library)
    assert r.exit_code == 0, r.output
    assert areas_of(library)["wang2024zero"] == ["Artificial intelligence",
                                                 "Sytems and networking"]
    assert f"added 'Sytems and networking' to the 'areas' of {config}" in r.stderr
    assert "not in the 'areas'" not in r.stderr
    after = config.read_text()
    assert "# Research areas, in the order lists and pages show them." in after
    assert after.replace('    "Sytems and networking",\n', "") == before
    # from then on nothing warns about it
    assert "not in the 'areas'" not in cli("areas", "-l", library).stderr
    assert cli("check", "-l", library).stdout.count("Sytems") == 0


def test_new_area_dry_run_leaves_the_config(cli, library):
    config = library.with_name("pubcli.toml")
    before = config.read_text()
    r = cli("tag", "wang2024zero", "--add", "Quantum", "--new", "--dry-run", "-l", library)
    assert r.exit_code == 0 and "would add 'Quantum' to the 'areas'" in r.stderr
    assert config.read_text() == before


def test_without_config_the_library_is_the_vocabulary(cli, library):
    (library.parent / "pubcli.toml").unlink()
    r = cli("tag", "wang2024zero", "--add", "Hardware and devicess", "-l", library)
    assert r.exit_code == 2 and "did you mean 'Hardware and devices'" in r.stderr
    r = cli("tag", "wang2024zero", "--add", "hardware AND devices", "-l", library)
    assert r.exit_code == 0
    assert areas_of(library)["wang2024zero"][-1] == "Hardware and devices"


@pytest.mark.parametrize("name", ["AI, ML", "AI; ML"])
def test_separator_is_refused(cli, library, name):
    r = cli("tag", "wang2024zero", "--add", name, "--new", "-l", library)
    assert r.exit_code == 2 and "separator" in r.stderr


def test_filters_need_all_to_confirm(cli, library):
    before = library.read_bytes()
    r = cli("tag", "--search", "zero", "--add", "Hardware and devices", "-l", library)
    assert r.exit_code == 2
    assert "the filters select 4 entries; add --all" in r.stderr
    r = cli("tag", "--search", "zero", "--add", "Hardware and devices", "--dry-run",
            "-l", library)
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 4
    assert library.read_bytes() == before
    r = cli("tag", "--search", "zero", "--year", "2021..", "--add", "Hardware and devices",
            "--all", "-l", library)
    assert r.exit_code == 0, r.output
    got = areas_of(library)
    tagged = sorted(k for k, v in got.items() if "Hardware and devices" in v)
    assert tagged == ["ovtcharov2015accelerating", "ovtcharov2015toward",
                      "rajbhandari2021zeroinfinity", "ren2021zerooffload", "wang2024zero"]


def test_type_and_area_filters(cli, library):
    r = cli("tag", "--type", "techreport", "--area", "artificial intelligence", "--add",
            "Systems and networking", "--all", "-l", library)
    assert r.exit_code == 0
    assert sorted(ln.split(":")[0] for ln in r.stdout.splitlines()) == \
        ["abdin2024phi3", "yazdaniaminabadi2022deepspeed"]


def test_selection_errors(cli, library):
    r = cli("tag", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 2 and "name the entries by KEY" in r.stderr
    r = cli("tag", "wang2024zero", "-l", library)
    assert r.exit_code == 2 and "nothing to do" in r.stderr
    r = cli("tag", "wang2024zeor", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 2 and "did you mean 'wang2024zero'" in r.stderr
    r = cli("tag", "wang2024zero", "--all", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 2 and "not both" in r.stderr
    r = cli("tag", "wang2024zero", "--add", "Computer vision", "--remove", "computer VISION",
            "-l", library)
    assert r.exit_code == 2 and "both added and removed" in r.stderr


def test_keys_match_case_insensitively(cli, library):
    r = cli("tag", "WANG2024ZERO", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 0
    assert "Computer vision" in areas_of(library)["wang2024zero"]


def test_featured_on_and_off(cli, library):
    before = library.read_bytes()
    r = cli("tag", "yan2016serf", "--featured", "-l", library)
    assert r.exit_code == 0 and r.stdout == "yan2016serf: featured: no -> yes\n"
    assert changed_lines(before, library.read_bytes()) == ["+  featured = {true},"]
    r = cli("tag", "wang2024zero", "yan2016serf", "--not-featured", "-l", library)
    assert r.exit_code == 0
    assert not any(r.featured for r in store.load(library).records)
    r = cli("tag", "wang2024zero", "--not-featured", "-l", library)
    assert r.exit_code == 0 and "nothing to change" in r.stderr


def test_rename_across_the_library(cli, library):
    before = library.read_bytes()
    config_before = (library.parent / "pubcli.toml").read_text()
    r = cli("tag", "--rename", "hardware and devices", "Hardware", "-l", library)
    assert r.exit_code == 0, r.output
    assert "renamed 'Hardware and devices' to 'Hardware' in the 'areas' of" in r.stderr
    assert "changed 2 entries" in r.stderr
    # pubcli.toml: the one list item renamed, its comments and layout kept
    assert (library.parent / "pubcli.toml").read_text() == \
        config_before.replace('"Hardware and devices"', '"Hardware"')
    after = library.read_bytes()
    assert len(changed_lines(before, after)) == 4
    got = areas_of(library)
    assert got["ovtcharov2015toward"] == ["Systems and networking", "Hardware"]


def test_rename_merges_into_an_existing_area(cli, library):
    r = cli("tag", "--rename", "Computer vision", "Artificial intelligence", "-l", library)
    assert r.exit_code == 0
    assert areas_of(library)["ovtcharov2015accelerating"] == [
        "Artificial intelligence", "Systems and networking", "Hardware and devices"]


def test_rename_refusals(cli, library):
    before = library.read_bytes()
    r = cli("tag", "--rename", "Computer visoin", "CV", "-l", library)
    assert r.exit_code == 2 and "did you mean 'Computer vision'" in r.stderr
    r = cli("tag", "--rename", "Computer vision", "Sytems and networking", "-l", library)
    assert r.exit_code == 2 and "did you mean 'Systems and networking'" in r.stderr
    r = cli("tag", "--rename", "Computer vision", "A, B", "-l", library)
    assert r.exit_code == 2 and "separator" in r.stderr
    r = cli("tag", "wang2024zero", "--rename", "Computer vision", "CV", "-l", library)
    assert r.exit_code == 2 and "give it alone" in r.stderr
    assert library.read_bytes() == before


def test_dry_run_rename(cli, library):
    before = library.read_bytes()
    r = cli("tag", "--rename", "Computer vision", "Vision", "--dry-run", "-l", library)
    assert r.exit_code == 0
    assert r.stdout.startswith("ovtcharov2015accelerating: areas: ")
    assert library.read_bytes() == before


# ------------------------------------------------------------------ pubcli areas
def test_areas_lists_counts_in_config_order(cli, library):
    r = cli("areas", "-l", library)
    assert r.exit_code == 0
    assert r.stdout == ("Artificial intelligence\t10\n"
                        "Programming languages and software engineering\t5\n"
                        "Systems and networking\t11\n"
                        "Hardware and devices\t2\n"
                        "Computer vision\t1\n")


def test_areas_flags_areas_missing_from_the_config(cli, library):
    head, _, tail = library.read_text().partition("@inproceedings{wang2024zero,")
    tail = tail.replace("keywords = {Artificial intelligence}",
                        "keywords = {Artificial intelligence, Quantum}", 1)
    library.write_text(f"{head}@inproceedings{{wang2024zero,{tail}")  # by hand, not by tag
    r = cli("areas", "--format", "json", "-l", library)
    rows = json.loads(r.stdout)
    assert rows[-1] == {"area": "Quantum", "count": 1, "configured": False}
    assert "not in the 'areas'" in r.stderr


def test_areas_of_a_library_without_any(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{a, title = {T}}\n")
    r = cli("areas", "-l", lib)
    assert r.exit_code == 0 and r.stdout == "" and "no research areas yet" in r.stderr


def test_tag_with_a_repeated_key_changes_exactly_the_selected_entry(cli, tmp_path):
    """Issue 9.1: the first smith2020 must keep its fields; the second gets the area."""
    text = ("@article{smith2020,\n  author = {Ann Smith},\n  title = {First paper},\n"
            "  journal = {J. One},\n  year = {2020},\n}\n\n"
            "@article{smith2020,\n  author = {Bob Jones},\n  title = {Second paper},\n"
            "  journal = {J. Two},\n  year = {2021},\n}\n")
    lib = write(tmp_path / "lib.bib", text)
    r = cli("tag", "--year", "2021", "--add", "Late", "--new", "--all", "-l", lib)
    assert r.exit_code == 0, r.output
    first, second = store.load(lib).records
    assert first.fields == {"author": "Ann Smith", "title": "First paper",
                            "journal": "J. One", "year": "2020"}
    assert second.areas == ["Late"] and second.fields["title"] == "Second paper"
    assert lib.read_text().startswith(text.split("\n\n")[0] + "\n\n")


def test_tag_rename_keeps_the_config_comments(cli, library):
    cfg = library.parent / "pubcli.toml"
    cfg.write_text('# my areas\nareas = [\n  "Artificial intelligence",  # AI\n'
                   '  "Hardware and devices",  # chips\n]\nowner = "Me"  # me\n')
    r = cli("tag", "--rename", "Hardware and devices", "Hardware", "-l", library)
    assert r.exit_code == 0, r.output
    assert cfg.read_text() == ('# my areas\nareas = [\n  "Artificial intelligence",  # AI\n'
                               '  "Hardware",  # chips\n]\nowner = "Me"  # me\n')


def test_tag_rename_dry_run_leaves_the_config(cli, library):
    cfg = library.parent / "pubcli.toml"
    before = cfg.read_bytes()
    r = cli("tag", "--rename", "Hardware and devices", "Hardware", "-n", "-l", library)
    assert r.exit_code == 0 and "would rename 'Hardware and devices' to 'Hardware'" in r.stderr
    assert cfg.read_bytes() == before


def test_tag_rename_into_a_configured_area_drops_the_old_one(cli, library):
    cfg = library.parent / "pubcli.toml"
    cli("tag", "--rename", "Computer vision", "Artificial intelligence", "-l", library)
    assert '"Computer vision"' not in cfg.read_text()
    assert cfg.read_text().count('"Artificial intelligence"') == 1


def test_tag_rename_in_pyproject(cli, tmp_path):
    lib = write(tmp_path / "lib.bib", "@misc{a, title = {T}, keywords = {Old}}\n")
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.pubcli]\n'
                                       'areas = ["Old", "Other"]  # keep\n')
    r = cli("tag", "--rename", "Old", "New", "--new", "-l", lib)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "pyproject.toml").read_text() == \
        '[project]\nname = "x"\n\n[tool.pubcli]\nareas = ["New", "Other"]  # keep\n'


def test_tag_new_in_pyproject_keeps_the_rest_of_the_file(cli, tmp_path):
    lib = write(tmp_path / "lib.bib", "@misc{a, title = {T}, keywords = {Old}}\n")
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.pubcli]\n'
                                       'areas = ["Old", "Other"]  # keep\n')
    r = cli("tag", "a", "--add", "Quantum", "--new", "-l", lib)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "pyproject.toml").read_text() == \
        '[project]\nname = "x"\n\n[tool.pubcli]\nareas = ["Old", "Other", "Quantum"]  # keep\n'


def test_tag_new_without_an_areas_list_writes_no_config(cli, tmp_path):
    lib = write(tmp_path / "lib.bib", "@misc{a, title = {T}, keywords = {Old}}\n")
    r = cli("tag", "a", "--add", "Quantum", "--new", "-l", lib)
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "pubcli.toml").exists() and "to the 'areas'" not in r.stderr


def test_tag_rename_with_a_repeated_key_renames_both_entries_separately(cli, tmp_path):
    text = ("@misc{dup,\n  title = {One},\n  keywords = {Old},\n}\n\n"
            "@misc{dup,\n  title = {Two},\n  keywords = {Old, Other},\n}\n")
    lib = write(tmp_path / "lib.bib", text)
    r = cli("tag", "--rename", "Old", "New", "--new", "-l", lib)
    assert r.exit_code == 0, r.output
    one, two = store.load(lib).records
    assert (one.fields["title"], one.areas) == ("One", ["New"])
    assert (two.fields["title"], two.areas) == ("Two", ["New", "Other"])


def test_tag_picks_one_of_a_repeated_key_by_its_line(cli, tmp_path):
    text = ("@misc{dup,\n  title = {One},\n}\n\n@misc{dup,\n  title = {Two},\n}\n")
    lib = write(tmp_path / "lib.bib", text)
    r = cli("tag", "dup", "--add", "X", "--new", "-l", lib)
    assert r.exit_code == 2 and "name one as dup@1 or dup@5" in r.stderr
    r = cli("tag", "dup@5", "--add", "X", "--new", "-l", lib)
    assert r.exit_code == 0, r.output
    one, two = store.load(lib).records
    assert one.areas == [] and two.areas == ["X"]
    assert lib.read_text().startswith("@misc{dup,\n  title = {One},\n}\n\n@misc{dup,\n")
