"""The formatted-reference cache of :mod:`pubcli.exporters.cslstyle` and the styled
export's progress: a page served from the cache after one entry changed is the
page formatted afresh, byte for byte, in every shipped style; what a style lets
the cache format alone; the cut of a reference at its title."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pubcli.exporters.styles import STYLE_DIR, STYLES

from .conftest import SHIPPED, record, write

pytestmark = pytest.mark.skipif(shutil.which("pandoc") is None, reason="needs pandoc")

# references that tie each other in a style: two Smith 2010 (APA's 2010a/2010b), one
# author three times (MLA's "———"), a reference with no author, one with no date
TIES = r"""
@article{smith2010x, author = {Smith, Jane}, title = {Xylophones in the {Wild}}, journal = {J. Sound}, year = 2010, keywords = {Sound}}
@article{smith2010a, author = {Smith, Jane}, title = {Apples of {Eden}}, journal = {J. Fruit}, year = 2010}
@book{smith2010b, author = {Smith, Jane}, title = {Bananas}, publisher = {Fruit Press}, year = 2010, keywords = {Fruit}}
@article{doe2010, author = {Doe, John}, title = {Other Things}, journal = {J. X}, year = 2010}
@misc{anon2010, title = {Nobody Wrote This}, howpublished = {Leaflet}, year = 2010}
@misc{undated, author = {Roe, Rick}, title = {Some Day}}
"""


def _library(tmp_path: Path) -> Path:
    return write(tmp_path / "lib.bib", SHIPPED.read_text(encoding="utf-8") + TIES)


def _page(cli, style: str, lib: Path, *more: str, env: dict | None = None) -> str:
    r = cli("export", "html", "--style", style, *more, "-l", lib, env=env)
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("style", list(STYLES))
def test_a_page_served_from_the_cache_after_one_change_is_the_fresh_page(cli, tmp_path, style):
    lib = _library(tmp_path)
    text = lib.read_text(encoding="utf-8")
    first = _page(cli, style, lib, "--owner", "Jane Smith")
    # one entry changed: the first Smith 2010 becomes another author's; its old
    # companions lose a year suffix (APA) or get their author back (MLA)
    write(lib, text.replace("author = {Smith, Jane}, title = {Xylophones",
                            "author = {Doe, John}, title = {Xylophones"))
    served = _page(cli, style, lib, "--owner", "Jane Smith")
    fresh = _page(cli, style, lib, "--owner", "Jane Smith", env={"PUBCLI_NO_CACHE": "1"})
    assert served == fresh
    assert served != first
    # and back: the first page again, from the cache
    write(lib, text)
    assert _page(cli, style, lib, "--owner", "Jane Smith") == first


@pytest.mark.slow
@pytest.mark.parametrize("style", ["ieee"])
def test_references_formatted_one_by_one_read_as_in_one_bibliography(tmp_path, style):
    """IEEE formats each reference on its own: the page is the one a bibliography per
    year gives."""
    from pubcli import store
    from pubcli.exporters import build_page, cslstyle, get
    from pubcli.schema.inherit import publications

    lib = store.load(_library(tmp_path), display=True)
    records = publications(lib.records)

    def page(per_reference: bool) -> str:
        styler = cslstyle.Styler(STYLE_DIR / STYLES[style], cache=False)
        styler.per_reference = styler.per_reference and per_reference
        assert styler.alone() is None
        built = build_page(records, source_text=lambda r: store.source_text(lib, r),
                           owner="Jane Smith", styler=styler)
        return get("html").render(built)

    assert page(True) == page(False)


def _units_pandoc() -> str | None:
    """A pandoc that formats several bibliographies in one call, if one is here."""
    from pubcli.exporters import citeproc, pandoc

    for exe in (shutil.which("pandoc"), pandoc._wheel_binary()):
        version = pandoc._version(exe) if exe else None
        if version is not None and version >= citeproc.UNITS_VERSION:
            return exe
    return None


@pytest.mark.slow
@pytest.mark.parametrize("style", ["mla", "apa", "acm"])
def test_units_formatted_in_one_pandoc_call_read_as_one_call_each(tmp_path, monkeypatch, style):
    """pandoc >= 2.19.1 formats every year of a page (every group of a listing) in one
    call, each its own bibliography: the page and the listing by type are those that
    one call per year (per group) gives."""
    from pubcli import store
    from pubcli.exporters import build_page, citeproc, cslstyle, get, pandoc
    from pubcli.usecases.grouping import group
    from pubcli.schema.model import GroupBy
    from pubcli.schema.inherit import publications

    exe = _units_pandoc()
    if exe is None:
        pytest.skip("needs pandoc >= 2.19.1")
    monkeypatch.setenv("PUBCLI_PANDOC", exe)
    pandoc.find.cache_clear()
    lib = store.load(_library(tmp_path), display=True)
    records = publications(lib.records)
    calls: list[int] = []
    real = pandoc.run

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(pandoc, "run", counting)

    def made(units: tuple[int, ...]) -> tuple[str, str, int]:
        monkeypatch.setattr(citeproc, "UNITS_VERSION", units)
        calls.clear()
        styler = cslstyle.Styler(STYLE_DIR / STYLES[style], cache=False)
        built = build_page(records, source_text=lambda r: store.source_text(lib, r),
                           owner="Jane Smith", styler=styler)
        by_type = cslstyle.text_listing(group(records, GroupBy("type")), styler, None,
                                        lambda name, n: name)
        return get("html").render(built), by_type, len(calls)

    try:
        one_call, one_call_listing, few = made(citeproc.UNITS_VERSION)
        each, each_listing, many = made((999,))
    finally:
        pandoc.find.cache_clear()
    assert one_call == each and one_call_listing == each_listing
    # ACM ties no reference to another: its units share one bibliography either way
    assert few < many if style != "acm" else few == many


HADDADS = r"""
@article{haddad2019, author = {Haddad, Priya and Kim, Ines and Lee, Ann}, title = {Answering}, journal = {J. Memory}, year = 2019, keywords = {Memory}}
@article{haddad2021, author = {Haddad, Priya and Costa, Qiang and Roe, Bo}, title = {Training}, journal = {J. Memory}, year = 2021, keywords = {Memory}}
"""


@pytest.mark.slow
def test_an_mla_reference_shown_apart_does_not_hang_on_other_years(cli, tmp_path):
    """MLA adds names to tell "Haddad et al." citations apart, in the bibliography too:
    a reference shown in the area tab reads as in its year's bibliography, whatever
    another year holds (and so a cached one never goes stale)."""
    def shown(text: str) -> str:
        lib = write(tmp_path / "h.bib", text)
        page = _page(cli, "mla", lib, env={"PUBCLI_NO_CACHE": "1"})
        return re.search(r'<li class="pub ref"[^>]*data-key="haddad2019">(.*?)</li>', page).group(1)

    both = shown(HADDADS)
    assert both == shown(HADDADS.split("\n@article{haddad2021")[0] + "\n")
    assert both.startswith('<p class="cite">Haddad, Priya, et al.')


def test_what_each_shipped_style_lets_the_cache_format_alone():
    from pubcli.exporters.cslstyle import Styler

    alone = {name: Styler(STYLE_DIR / file).per_reference for name, file in STYLES.items()}
    # IEEE: no sort, no year suffix, no "———", its number a label the page drops
    assert alone == {"apa": False, "ieee": True, "acm": False, "chicago": False,
                     "mla": False}
    traits = {name: Styler(STYLE_DIR / file).traits for name, file in STYLES.items()}
    assert traits["apa"].suffixes and traits["chicago"].suffixes
    assert traits["mla"].substitutes and not traits["mla"].suffixes
    assert traits["acm"].sorted and traits["acm"].alone
    # MLA's listings beside the year's need no order, but its names added to tell
    # citations apart (in the bibliography too) tie a reference to its year's others
    assert traits["mla"].names and not traits["ieee"].names and not traits["acm"].names
    mla_alone = Styler(STYLE_DIR / STYLES["mla"]).alone()
    assert mla_alone is not None and not mla_alone.per_reference


def test_a_numbered_style_whose_number_is_in_the_text_is_not_formatted_alone(tmp_path):
    from pubcli.exporters.cslstyle import Styler

    csl = (STYLE_DIR / STYLES["ieee"]).read_text(encoding="utf-8")
    inline = write(tmp_path / "inline.csl", csl.replace(' second-field-align="flush"', ""))
    assert not Styler(inline).per_reference


@pytest.mark.slow
def test_ieee_formats_only_the_changed_reference(cli, tmp_path, monkeypatch):
    from pubcli.exporters import citeproc

    lib = _library(tmp_path)
    _page(cli, "ieee", lib)
    asked: list[int] = []
    real = citeproc.format_bibliography

    def counting(items, *args, **kw):
        asked.append(len(items))
        return real(items, *args, **kw)

    monkeypatch.setattr(citeproc, "format_bibliography", counting)
    write(lib, lib.read_text(encoding="utf-8").replace("Bananas", "Cherries"))
    page = _page(cli, "ieee", lib)
    assert asked == [1] and "Cherries" in page
    # APA: the changed entry's year is formatted again, whole
    _page(cli, "apa", lib)
    write(lib, lib.read_text(encoding="utf-8").replace("Cherries", "Dates"))
    asked.clear()
    _page(cli, "apa", lib)
    from pubcli import store

    years = [r.year for r in store.load(lib).records]
    assert asked == [years.count(2010)]


def test_the_progress_of_formatting_is_reported_and_nothing_when_cached(tmp_path):
    from pubcli.exporters.cslstyle import Styler

    recs = [record(f"k{i}", "article", author="Doe, Jane", title=f"Title {i}",
                   journal="J", year=str(2000 + i % 3)) for i in range(6)]
    heard: list[tuple[str, int, int]] = []
    styler = Styler(STYLE_DIR / STYLES["ieee"])
    units = [[r for r in recs if r.year == y] for y in (2000, 2001, 2002)]
    styler.bibliographies(units, progress=lambda *a: heard.append(a))
    assert heard[0] == ("formatting references", 0, 6) and heard[-1][1:] == (6, 6)
    assert [d for _, d, _ in heard] == sorted(d for _, d, _ in heard)
    styler.save()
    heard.clear()
    Styler(STYLE_DIR / STYLES["ieee"]).bibliographies(units, progress=lambda *a: heard.append(a))
    assert heard == []


def test_a_reference_is_cut_at_its_title_and_the_owner_bolded_among_the_names():
    from pubcli.exporters.cite import Cite, owned_cite, owner_pattern, split_cite
    from pubcli.exporters.spans import Span

    owner = owner_pattern("Jane Smith")
    runs = [Span("Smith, J., & Doe, J. (2010). "), Span("Apples of Eden", em=True),
            Span(". J. Smith Fruit.")]
    split = split_cite(runs, "Apples of Eden")
    assert split.names_end == len("Smith, J., & Doe, J. (2010). ")
    assert owned_cite(split, owner) == Cite(
        (Span("Smith, J.", strong=True), Span(", & Doe, J. (2010). ")),
        (Span("Apples of Eden", em=True),), (Span(". J. Smith Fruit."),))
    assert owned_cite(split, None) == Cite((runs[0],), (runs[1],), (runs[2],))
    # a formula is never cut; a title not found leaves the runs whole, names anywhere
    math = split_cite([Span("J. Smith, \u201cA "), Span("x^2", math=True),
                       Span(" study,\u201d in P.")], "A x^2 study")
    assert math.title == (Span("A "), Span("x^2", math=True), Span(" study"))
    lost = owned_cite(split_cite([Span("Ed. Jane Smith. Other.")], "Missing"), owner)
    assert lost == Cite((Span("Ed. "), Span("Jane Smith", strong=True), Span(". Other.")),
                        (), ())
