"""`export -o` never replaces the library (or any BibTeX file) and writes atomically;
`export html` does not spill a page onto a terminal."""

from __future__ import annotations

import os

import pytest

from .conftest import write


def _refused(r, lib_bytes, lib):
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert lib.read_bytes() == lib_bytes


@pytest.mark.parametrize("how", ["same", "relative", "dotdot", "symlink", "hardlink"])
def test_output_that_is_the_library_is_refused_and_nothing_is_written(cli, library, tmp_path,
                                                                      chdir, how):
    before = library.read_bytes()
    folder = library.parent
    (folder / "sub").mkdir()
    chdir(folder)
    target = {"same": str(library), "relative": "library.bib",
              "dotdot": "sub/../library.bib"}.get(how)
    if how == "symlink":
        os.symlink(library, folder / "page.html")
        target = "page.html"
    elif how == "hardlink":
        os.link(library, folder / "page.html")
        target = "page.html"
    r = cli("export", "html", "-o", target, "-l", library)
    _refused(r, before, library)
    assert "library" in r.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["library.bib", "pubcli.toml", "sub"] + (["page.html"] if how in ("symlink", "hardlink")
                                                  else []))


def test_library_given_by_a_symlink_is_still_protected(cli, library, tmp_path):
    link = tmp_path / "link.bib"
    os.symlink(library, link)
    before = library.read_bytes()
    _refused(cli("export", "markdown", "-o", library, "-l", link), before, library)


@pytest.mark.parametrize("name", ["other.bib", "OTHER.BIB"])
def test_output_that_is_another_bibtex_file_is_refused(cli, library, tmp_path, name):
    other = write(tmp_path / name, "@misc{a, title = {Keep me}}\n")
    before = other.read_bytes()
    r = cli("export", "markdown", "-o", other, "-l", library)
    _refused(r, before, other)
    assert ".bib" in r.stderr


def test_symlink_to_a_bibtex_file_is_refused(cli, library, tmp_path):
    other = write(tmp_path / "other.bib", "@misc{a, title = {Keep me}}\n")
    os.symlink(other, tmp_path / "out.html")
    r = cli("export", "html", "-o", tmp_path / "out.html", "-l", library)
    _refused(r, other.read_bytes(), other)


def test_a_new_bib_named_output_is_allowed_only_if_it_does_not_exist(cli, library, tmp_path):
    # a new file may be called anything; an existing .bib is never replaced
    target = tmp_path / "new.bib.html"
    assert cli("export", "html", "-o", target, "-l", library).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_export_replaces_an_old_page_atomically_leaving_no_temp_files(cli, library, tmp_path):
    target = write(tmp_path / "index.html", "old page")
    os.chmod(target, 0o640)
    r = cli("export", "html", "-o", target, "-l", library)
    assert r.exit_code == 0, r.output
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    assert [p.name for p in tmp_path.iterdir() if p.name != "data"] == ["index.html"]


def test_read_only_old_page_is_an_error_and_stays(cli, library, tmp_path):
    target = write(tmp_path / "index.html", "old page")
    os.chmod(target, 0o444)
    r = cli("export", "html", "-o", target, "-l", library)
    assert r.exit_code == 2 and target.read_text() == "old page"


def test_html_to_a_terminal_is_refused_with_a_hint(cli, library):
    r = cli("export", "html", "-l", library, env={"TTY_COMPATIBLE": "1"})
    assert r.exit_code == 2 and r.stdout == ""
    assert "-o FILE" in r.stderr and "redirect" in r.stderr
    assert r.stderr.count("\n") == 1


def test_html_to_a_pipe_and_markdown_to_a_terminal_are_fine(cli, library):
    r = cli("export", "html", "-l", library, env={"TTY_COMPATIBLE": "0"})
    assert r.exit_code == 0 and r.stdout.startswith("<!DOCTYPE html>")
    r = cli("export", "markdown", "-l", library, env={"TTY_COMPATIBLE": "1"})
    assert r.exit_code == 0 and r.stdout.startswith("# Olatunji Ruwase")
    r = cli("export", "html", "-o", "-", "-l", library, env={"TTY_COMPATIBLE": "1"})
    assert r.exit_code == 2


def test_a_page_failing_part_way_leaves_the_old_file_and_no_temporary_one(cli, library, tmp_path):
    # the page is written as the template makes it: an error after the first entries
    # must not leave half a page behind
    page = tmp_path / "out" / "index.html"
    page.parent.mkdir()
    page.write_text("old page\n", encoding="utf-8")
    tpl = write(tmp_path / "t.html.j2", "{% for e in page.entries %}{{ e.key }}\n"
                                        "{% if loop.index == 3 %}{{ e.key.nope() }}{% endif %}"
                                        "{% endfor %}")
    r = cli("export", "html", "--template", tpl, "-o", page, "-l", library)
    assert r.exit_code == 2 and "template error" in r.stderr and r.stderr.count("\n") == 1
    assert page.read_text(encoding="utf-8") == "old page\n"
    assert [p.name for p in page.parent.iterdir()] == ["index.html"]


def test_streamed_text_keeps_crlf_across_chunks_and_cleans_controls():
    from pubcli.cli.export_cmd import _encoded
    from pubcli.render import clean
    from pubcli.render.text import clean_utf8

    pieces = ["a\r", "\nb\x1b", "c\r", "\n", "d\re"]
    out = b"".join(_encoded(pieces, clean_utf8, size=2)).decode("utf-8")
    assert out == clean("".join(pieces)) == "a\r\nb\u241bc\r\nd\u240de"


@pytest.mark.parametrize("text", ["plain \u00e9t\u00e9 \u00a0\u00c2 page\r\n\t", "a lone\rCR",
                                  "ESC \x1b[2J", "DEL \x7f", "C1 \u0085 NEL", "\u00c2\u0080",
                                  "end CR\r", "nul \x00", "\U0001d11e \x0b"])
def test_the_bytes_a_page_is_written_as_are_the_sanitisers_text_encoded(text):
    """A page is checked for controls in its UTF-8 bytes: what it finds is what the
    sanitiser's search of the characters finds."""
    from pubcli.render import clean
    from pubcli.render.text import clean_utf8

    assert clean_utf8(text) == clean(text).encode("utf-8")
    assert (clean_utf8(text) == text.encode("utf-8")) == (clean(text) == text)
