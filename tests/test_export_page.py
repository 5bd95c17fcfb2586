"""The page's second edition, outside the browser: resource links and their check,
award badges, BibTeX without private fields, long author lists, nested grouping,
Markdown's single default listing. (Chips, URL state and the expander in a real
browser: test_export_browser.py.)"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from pubcli import store
from pubcli.usecases.checks import check
from pubcli.schema.resources import link_problem, resources

from .conftest import write
from .test_export import check_html, md_html

RESOURCES = r"""
@inproceedings{res2023,
  author = {Ruwase, Olatunji and Lam, Monica S.},
  title = {A Paper With Resources},
  booktitle = {SOSP},
  year = {2023},
  url_pdf = {https://example.org/paper.pdf},
  url_slides = {slides/res2023.pdf},
  code = {https://github.com/example/res},
  poster = {javascript:alert(1)},
  url_video = {//evil.example/v},
  website = {data:text/html,<script>alert(1)</script>},
  award = {Best Paper Award},
  keywords = {Systems and networking},
  featured = {true},
  file = {/home/me/papers/res2023.pdf},
  note = {Camera-ready due Friday},
}
"""


def long_authors(n: int, owner_at: int) -> str:
    names = [f"Author{i:02d}, Ann" for i in range(n)]
    names[owner_at] = "Ruwase, Olatunji"
    return (f"@article{{big2024,\n  author = {{{' and '.join(names)}}},\n"
            "  title = {A Paper With Many Authors},\n  journal = {J. Big},\n  year = {2024},\n}\n")


def export(cli, *args) -> str:
    r = cli("export", *args)
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture
def reslib(tmp_path) -> Path:
    return write(tmp_path / "res.bib", RESOURCES)


# ------------------------------------------------------------------ resource links
@pytest.mark.parametrize("value, ok", [
    ("https://example.org/a.pdf", True), ("http://example.org/x", True),
    ("papers/a.pdf", True), ("../slides.pdf", True), ("a.pdf#page=2", True),
    ("javascript:alert(1)", False), ("data:text/html,x", False), ("ftp://x/y", False),
    ("//evil.example/v", False), ("a b.pdf", False), ('a".pdf', False), ("", False),
])
def test_only_http_and_relative_links_are_resources(value, ok):
    assert (link_problem(value) is None) is ok


def test_resource_fields_become_labelled_buttons(cli, reslib):
    page = export(cli, "html", "-l", reslib)
    check_html(page)
    buttons = re.findall(r'<a class="res" href="([^"]+)">([^<]+)</a>', page)
    assert buttons == [("https://example.org/paper.pdf", "PDF"),
                       ("slides/res2023.pdf", "Slides"),
                       ("https://github.com/example/res", "Code")]
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert not [h for h in hrefs if h.startswith(("javascript", "data:text", "//"))]
    assert '<span class="award">Best Paper Award</span>' in page
    md = export(cli, "markdown", "-l", reslib)
    assert "[PDF](https://example.org/paper.pdf) · [Slides](slides/res2023.pdf) · " \
           "[Code](https://github.com/example/res)" in md
    assert "— **Best Paper Award**" in md
    assert "javascript" not in md and "evil.example" not in md


def test_check_reports_bad_resource_links(reslib):
    found = [f for f in check(store.load(reslib)) if f.code == "bad-link"]
    assert sorted(f.field for f in found) == ["poster", "url_video", "website"]
    assert all(f.line == 2 and "res2023" in f.message for f in found)


def test_check_command_exits_1_on_a_bad_link(cli, reslib):
    r = cli("check", "-l", reslib)
    assert r.exit_code == 1 and "bad-link" in r.output and "poster" in r.output


def test_resources_keep_one_link_per_label():
    got = resources({"url_pdf": "https://a/x.pdf", "pdf": "local.pdf", "slides": "s.pdf"})
    assert [(r.label, r.url) for r in got] == [("PDF", "https://a/x.pdf"), ("Slides", "s.pdf")]


# ------------------------------------------------------------------ private fields
def test_bibtex_a_visitor_copies_leaves_out_private_fields(cli, reslib, tmp_path):
    write(tmp_path / "pubcli.toml", 'private_fields = ["note"]\n')
    page = export(cli, "html", "-l", reslib)
    [block] = [html.unescape(b) for b in re.findall(r"<pre><code>(.*?)</code></pre>", page,
                                                    re.S)]
    shown = store.loads(block).records[0]
    assert "title" in shown.fields and "booktitle" in shown.fields
    # pubcli's bookkeeping, the configured fields, and what only a page uses
    for private in ("keywords", "featured", "file", "note", "url_pdf", "award"):
        assert private not in shown.fields
        assert private not in block
    assert "/home/me" not in page and "Camera-ready" not in page
    # the library itself is untouched
    assert "Camera-ready due Friday" in reslib.read_text(encoding="utf-8")


@pytest.mark.parametrize("toml, message", [
    ("private_fields = \"note\"\n", "private_fields"),
    ("max_authors = 0\n", "max_authors"),
    ("max_authors = \"ten\"\n", "max_authors"),
])
def test_page_settings_are_checked(cli, reslib, tmp_path, toml, message):
    write(tmp_path / "pubcli.toml", toml)
    r = cli("export", "html", "-l", reslib)
    assert r.exit_code == 2 and message in r.stderr and r.stderr.count("\n") == 1


# ------------------------------------------------------------------ long author lists
def test_long_author_lists_show_the_first_ones_and_the_owner(cli, tmp_path):
    lib = write(tmp_path / "big.bib", long_authors(85, owner_at=69))
    page = export(cli, "html", "--owner", "Olatunji Ruwase", "-l", lib)
    check_html(page)
    authors = re.search(r'<div class="authors">(.*?)</div>', page, re.S).group(1)
    shown, more = authors.split('<details class="etal">')
    assert shown.count("Author") == 10 and '<strong class="owner">Olatunji Ruwase</strong>' \
        in shown
    assert "<summary>\u2026 and 74 more</summary>" in more and more.count("Author") == 74
    md = export(cli, "markdown", "--owner", "Olatunji Ruwase", "-l", lib)
    line = next(ln for ln in md.splitlines() if "Author00" in ln)
    assert line.count("Author") == 10 and line.endswith("**Olatunji Ruwase** \u2026 and 74 more\\")


def test_max_authors_setting_and_short_lists(cli, tmp_path):
    lib = write(tmp_path / "big.bib", long_authors(12, owner_at=2))
    write(tmp_path / "pubcli.toml", "max_authors = 5\n")
    page = export(cli, "html", "-l", lib)
    assert "<summary>\u2026 and 7 more</summary>" in page
    write(tmp_path / "pubcli.toml", "max_authors = 11\n")  # one more name: just show it
    assert 'class="etal"' not in export(cli, "html", "-l", lib)


# ------------------------------------------------------------------ grouping
def test_nested_grouping_gives_one_heading_per_type_with_years_inside(cli, library):
    page = export(cli, "html", "--by", "type,year", "-l", library)
    check_html(page)
    assert re.findall(r'<section class="grouping" id="([^"]+)"', page) == ["by-type-year"]
    assert "<h2 id=\"by-type-year-h\">Publications by Type and Year</h2>" in page
    heads = re.findall(r"<h([34]) id=\"[^\"]+\">([^<]+) <span", page)
    assert heads[:4] == [("3", "Technical reports"), ("4", "2024"), ("4", "2022"),
                         ("3", "Conference papers")]
    assert page.count('<li class="pub" id=') == 20
    md = md_html(export(cli, "markdown", "--by", "type,year", "-l", library))
    assert re.findall(r"<h[34]>([^<]+)</h[34]>", md)[:3] == [
        "Technical reports (2)", "2024 (1)", "2022 (1)"]


def test_markdown_gives_one_listing_by_default_and_more_on_request(cli, library):
    md = export(cli, "markdown", "-l", library)
    assert re.findall(r"^## (.*)$", md, re.M) == ["Featured publication", "Publications by Year"]
    md = export(cli, "markdown", "--by", "year", "--by", "area", "-l", library)
    assert re.findall(r"^## (.*)$", md, re.M)[1:] == ["Publications by Year",
                                                      "Publications by Research Area"]
    page = export(cli, "html", "-l", library)
    assert len(re.findall(r'<section class="grouping"', page)) == 3


@pytest.mark.parametrize("by", ["venue", "year,year", "type,year,area", ""])
def test_bad_groupings_are_refused(cli, library, by):
    r = cli("export", "html", "--by", by, "-l", library)
    assert r.exit_code == 2 and "--by" in r.stderr and r.stdout == ""


# ------------------------------------------------------------------ look
def test_venue_styled_apart_and_titles_one_colour(cli, library):
    page = export(cli, "html", "-l", library)
    assert '<p class="venue"><i class="where">ICLR 2024</i> | May 2024</p>' in page
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    assert re.search(r"\.title a, \.cite a \{ color: inherit;", style)
