"""The exported HTML page in a real browser (headless Chromium via Playwright).

Skipped, with the reason, where /usr/bin/chromium is absent (.ci/run installs
Debian's chromium). No browser is ever downloaded.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from pubcli import store

from .conftest import write
from .test_export import HOSTILE

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"{CHROMIUM} not found: install Debian's chromium "
                              "(apt-get install chromium) to run the browser tests"),
]


try:  # the test extra installs playwright; without it the tests are skipped
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover
    expect = sync_playwright = None


@pytest.fixture(scope="module")
def browser():
    if sync_playwright is None:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Page:
    """A page plus what it logged and what it fetched."""

    def __init__(self, browser, url: str, **context):
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in
                     ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = url
        self.page.goto(url)

    def visible_keys(self, selector: str) -> list[str]:
        return self.page.eval_on_selector_all(
            f"{selector} li.pub",
            "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.key)")

    def close(self):
        self.context.close()


@pytest.fixture
def exported(cli, library, tmp_path):
    def make(lib: Path | None = None, *args: str) -> str:
        out = tmp_path / "site" / "index.html"
        r = cli("export", "html", "-o", out, "-l", lib or library, *args)
        assert r.exit_code == 0, r.output
        return out.as_uri()
    return make


@pytest.fixture
def opened(browser):
    pages = []

    def open_(url: str, **context) -> Page:
        p = Page(browser, url, **context)
        pages.append(p)
        return p
    yield open_
    for p in pages:
        p.close()


def test_page_loads_without_errors_or_network_requests(exported, opened):
    p = opened(exported())
    assert p.page.title() == "Olatunji Ruwase \u2014 Publications"
    assert p.page.locator("h1").inner_text() == "Olatunji Ruwase"
    assert p.page.locator(".featured li.pub").count() == 1
    assert p.errors == []
    assert p.requests == [p.url]  # the page itself, nothing else


def test_tabs_switch_with_mouse_and_keyboard(exported, opened):
    p = opened(exported())
    pg = p.page
    year, area, kind = (pg.locator(f"#by-{n}") for n in ("year", "area", "type"))
    assert year.is_visible() and not area.is_visible() and not kind.is_visible()
    pg.get_by_role("tab", name="By type").click()
    assert kind.is_visible() and not year.is_visible()
    assert pg.get_by_role("tab", name="By type").get_attribute("aria-selected") == "true"
    assert pg.get_by_role("tabpanel").get_attribute("id") == "by-type"
    pg.keyboard.press("ArrowLeft")
    assert area.is_visible() and not kind.is_visible()
    assert pg.evaluate("document.activeElement.textContent") == "By research area"
    pg.keyboard.press("Home")
    assert year.is_visible()
    # a table-of-contents link into another tab opens that tab (the contents open first)
    pg.locator(".toc summary").click()
    pg.locator(".toc a[href='#by-type-preprints-and-other']").click()
    assert kind.is_visible() and pg.locator("#by-type-preprints-and-other").is_visible()
    assert p.errors == []


def test_search_filters_as_you_type_and_hides_emptied_groups(exported, opened):
    p = opened(exported())
    pg = p.page
    box = pg.get_by_label("Search publications")
    box.press_sequentially("zero")
    status = expect(pg.locator("#status"))
    status.to_have_text("4 of 20 publications match \u201czero\u201d")
    assert p.visible_keys("#by-year") == ["wang2024zero", "rajbhandari2021zeroinfinity",
                                          "ren2021zerooffload", "rajbhandari2020zero"]
    groups = pg.eval_on_selector_all("#by-year section.group",
                                     "els => els.filter(e => !e.hidden).map(e => e.id)")
    assert groups == ["by-year-2024", "by-year-2021", "by-year-2020"]
    assert pg.locator("#by-year-2021 .count").inner_text() == "(2 of 3)"
    assert not pg.locator(".toc [data-group='by-year-2015']").is_visible()
    # accent- and case-insensitive, all words must match
    box.fill("SEBASTIEN bubeck")
    status.to_have_text(re.compile(r"^1 of 20 "))
    assert p.visible_keys("#by-year") == ["abdin2024phi3"]
    box.fill("sébastien")
    status.to_have_text("1 of 20 publications match \u201csébastien\u201d")
    box.fill("no such paper")
    status.to_have_text(re.compile(r"^0 of 20 "))
    assert p.visible_keys("main") == []
    assert pg.locator("#by-year .empty").is_visible()
    assert not pg.locator("#featured").is_visible()
    box.press("Escape")
    status.to_have_text("")
    assert len(p.visible_keys("#by-year")) == 20 and pg.locator("#featured").is_visible()
    assert p.errors == []


def test_bibtex_toggle_shows_the_verbatim_entry_and_copies_it(exported, opened, library):
    lib = store.load(library)
    source = store.source_text(lib, next(r for r in lib.records if r.key == "yan2016serf"))
    source = source.replace("  keywords = {Systems and networking},\n", "")  # private
    p = opened(exported(), permissions=["clipboard-read", "clipboard-write"])
    pg = p.page
    entry = pg.locator("#by-year li.pub[data-key='yan2016serf']")
    pre = entry.locator(".bibtex pre")
    assert not pre.is_visible()
    entry.locator(".bibtex summary").click()
    assert pre.is_visible()
    assert pre.evaluate("e => e.textContent") == source
    entry.get_by_role("button", name="Copy BibTeX of yan2016serf").click()
    expect(pg.locator("#status")).to_have_text("BibTeX copied to the clipboard")
    assert pg.evaluate("navigator.clipboard.readText()") == source
    # keyboard: the summary is focusable and toggles with Enter
    entry.locator(".bibtex summary").focus()
    pg.keyboard.press("Enter")
    assert not pre.is_visible()
    assert p.errors == []


def test_abstract_toggle(exported, opened, tmp_path):
    lib = write(tmp_path / "abs.bib", "@misc{a2020, title = {T}, author = {Doe, Jane}, "
                                      "year = 2020, abstract = {We show $x<y$ \\emph{fast}.}}\n")
    p = opened(exported(lib))
    body = p.page.locator("#by-year .abstract p")
    assert not body.is_visible()
    p.page.locator("#by-year .abstract summary").click()
    # the formula is MathML, rendered by the browser itself
    assert body.locator("math").count() == 1
    assert " ".join(body.inner_text().split()) == "We show 𝑥 < 𝑦 fast."
    assert body.locator("em").inner_text() == "fast"
    assert p.errors == []


def test_injected_script_never_runs(exported, opened, tmp_path):
    lib = write(tmp_path / "hostile.bib", HOSTILE)
    p = opened(exported(lib))
    pg = p.page
    pg.locator("#by-year .bibtex summary").first.click()
    pg.locator("#by-year .abstract summary").first.click()
    pg.get_by_role("tab", name="By research area").click()
    pg.locator("#by-area .pub .title").first.hover()
    assert pg.evaluate("window.__pwned") is None
    assert pg.locator("script:not([type])").count() == 1 and pg.locator("img, svg").count() == 0
    title = pg.locator("#by-year li.pub[data-key='evil2024'] .title").inner_text()
    assert title.startswith("<script>window.__pwned=1</script> *not bold*")
    hrefs = pg.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    assert all(h.startswith(("https:", "file:")) for h in hrefs), hrefs
    assert p.errors == []


def test_dark_mode_and_phone_width(exported, opened):
    url = exported()
    light = opened(url, color_scheme="light").page
    dark = opened(url, color_scheme="dark", viewport={"width": 360, "height": 740},
                  is_mobile=True, has_touch=True).page
    bg = "getComputedStyle(document.body).backgroundColor"
    assert light.evaluate(bg) == "rgb(255, 255, 255)"
    assert dark.evaluate(bg) == "rgb(15, 19, 24)"
    # nothing wider than the phone screen
    assert dark.evaluate("document.documentElement.scrollWidth") <= 360
    dark.get_by_role("tab", name="By type").tap()
    assert dark.locator("#by-type").is_visible()
    # an open BibTeX entry scrolls inside its box, not the page; its copy button shows
    entry = dark.locator("#by-type li.pub").first
    entry.locator(".bibtex summary").tap()
    assert entry.locator(".copy").is_visible()
    box = entry.locator(".copy").bounding_box()
    assert box["x"] + box["width"] <= 360
    assert dark.evaluate("document.documentElement.scrollWidth") <= 360


def test_without_javascript_every_grouping_is_shown(exported, opened):
    p = opened(exported(), java_script_enabled=False)
    for n in ("year", "area", "type"):
        assert p.page.locator(f"#by-{n}").is_visible()
    assert not p.page.locator("[role=tablist]").is_visible()
    assert not p.page.get_by_label("Search publications").is_visible()
    assert p.page.locator(".bibtex summary").first.is_visible()  # <details> needs no script


def test_other_listings_show_the_full_entry_from_its_one_copy(exported, opened, library):
    lib = store.load(library)
    source = store.source_text(lib, next(r for r in lib.records
                                         if r.key == "ovtcharov2015accelerating"))
    source = re.sub(r",\n  keywords = \{[^}]*\}", "", source)  # private: left out
    p = opened(exported())
    pg = p.page
    pg.get_by_role("tab", name="By research area").click()
    items = pg.locator("#by-area li.pub[data-key='ovtcharov2015accelerating']")
    assert items.count() == 4  # one per research area, each filled from the home entry
    second = items.nth(1)
    second.scroll_into_view_if_needed()  # a group is filled as it comes near the screen
    expect(second.locator(".authors")).to_have_text(re.compile(r"^Kalin Ovtcharov"))
    second.locator(".bibtex summary").click()
    assert second.locator(".bibtex pre").evaluate("e => e.textContent") == source
    # the search still finds it in every listing
    pg.get_by_label("Search publications").fill("ovtcharov2015accelerating")
    expect(pg.locator("#status")).to_have_text(re.compile(r"^1 of 20 "))
    assert p.visible_keys("#by-area") == ["ovtcharov2015accelerating"] * 4
    assert p.errors == []


def test_without_javascript_a_reference_links_to_the_full_entry(exported, opened):
    p = opened(exported(), java_script_enabled=False)
    pg = p.page
    ref = pg.locator("#by-area li.ref").first
    target = ref.locator(".title a").get_attribute("href")
    ref.locator(".title a").click()
    home = pg.locator(target)
    assert home.locator(".bibtex summary").is_visible() and home.locator(".authors").count() == 1
    assert pg.evaluate("location.hash") == target


# ------------------------------------------------------------------ second edition
def chip(pg, facet: str, value: str):
    return pg.locator(f".chip[data-facet='{facet}'][data-value='{value}']")


def test_facet_chips_combine_with_search_and_live_in_the_url(exported, opened):
    url = exported()
    p = opened(url)
    pg = p.page
    status = expect(pg.locator("#status"))
    chip(pg, "area", "Systems and networking").click()
    status.to_have_text("11 of 20 publications match (Systems and networking)")
    assert chip(pg, "area", "Systems and networking").get_attribute("aria-pressed") == "true"
    chip(pg, "type", "Conference papers").click()
    pg.locator("#year-from").select_option("2015")
    pg.locator("#year-to").select_option("2016")
    pg.get_by_label("Search publications").fill("ovtcharov")
    status.to_have_text(re.compile(r"^1 of 20 publications match \u201covtcharov\u201d "
                                   r"\(Systems and networking; Conference papers; 2015\u20132016\)"))
    assert p.visible_keys("#by-year") == ["ovtcharov2015toward"]  # the other is @misc
    frag = pg.evaluate("location.hash")
    assert "area=Systems+and+networking" in frag and "type=Conference+papers" in frag
    assert "years=2015-2016" in frag and "q=ovtcharov" in frag
    # the link opens the same filtered view
    again = opened(url.split("#")[0] + frag).page
    expect(again.locator("#status")).to_have_text(re.compile(r"^1 of 20 "))
    assert again.get_by_label("Search publications").input_value() == "ovtcharov"
    assert chip(again, "type", "Conference papers").get_attribute("aria-pressed") == "true"
    assert again.locator("#year-to").input_value() == "2016"
    # a chip pressed twice is off again; "Clear filters" resets the chips
    chip(pg, "type", "Conference papers").click()
    pg.get_by_role("button", name="Clear filters").click()
    status.to_have_text(re.compile(r"^2 of 20 publications match \u201covtcharov\u201d$"))
    pg.get_by_label("Search publications").fill("")
    status.to_have_text("")
    assert pg.evaluate("location.hash") == ""
    assert p.errors == []


def test_unknown_fragment_values_are_ignored(exported, opened):
    p = opened(exported() + "#area=Nope,Computer+vision&years=abc-20166&type=<x>")
    expect(p.page.locator("#status")).to_have_text(
        "1 of 20 publications match (Computer vision)")
    assert p.errors == []


def test_long_author_list_expands(exported, opened):
    p = opened(exported())
    pg = p.page
    entry = pg.locator("#by-year li.pub[data-key='abdin2024phi3']")
    authors = entry.locator(".authors")
    summary = authors.locator("summary")
    assert summary.inner_text() == "\u2026 and 73 more"
    assert not authors.get_by_text("Xiren Zhou").is_visible()
    assert authors.locator(".owner").is_visible()  # the owner is never hidden
    summary.click()
    assert authors.get_by_text("Xiren Zhou", exact=False).is_visible()
    # search finds a hidden author
    pg.get_by_label("Search publications").fill("xiren")
    expect(pg.locator("#status")).to_have_text(re.compile(r"^1 of 20 "))
    assert p.errors == []


def test_long_author_list_expands_without_javascript(exported, opened):
    p = opened(exported(), java_script_enabled=False)
    authors = p.page.locator("#p-abdin2024phi3 .authors")
    authors.locator("summary").click()
    assert authors.get_by_text("Xiren Zhou", exact=False).is_visible()


def test_resource_buttons_and_bibtex_without_private_fields(exported, opened, tmp_path):
    from .test_export_page import RESOURCES

    lib = write(tmp_path / "res.bib", RESOURCES)
    p = opened(exported(lib), permissions=["clipboard-read", "clipboard-write"])
    pg = p.page
    entry = pg.locator("#by-year li.pub").first
    buttons = entry.locator("a.res")
    assert buttons.all_inner_texts() == ["PDF", "Slides", "Code"]
    assert buttons.nth(1).evaluate("a => a.href").endswith("/site/slides/res2023.pdf")
    assert entry.locator(".award").inner_text() == "Best Paper Award"
    entry.locator(".bibtex summary").click()
    entry.get_by_role("button", name="Copy BibTeX of res2023").click()
    expect(pg.locator("#status")).to_have_text("BibTeX copied to the clipboard")
    copied = pg.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@inproceedings{res2023,") and "booktitle = {SOSP}" in copied
    # what only the page uses (al-folio's and BibBase's fields) is not pasted into papers
    for private in ("keywords", "featured", "file =", "/home/me", "url_pdf", "award"):
        assert private not in copied
    assert p.errors == []


def test_styled_page_in_the_browser(exported, opened):
    p = opened(exported(None, "--style", "apa"))
    pg = p.page
    cite = pg.locator("#by-year li.pub[data-key='ruwase2004practical'] .cite")
    cite.scroll_into_view_if_needed()  # groups off screen are not rendered (content-visibility)
    expect(cite).to_have_text(re.compile(r"^Ruwase, O., & Lam, M. S. \(2004"))
    expect(cite.locator("strong")).to_have_text("Ruwase, O.")
    pg.get_by_label("Search publications").fill("lam practical")
    expect(pg.locator("#status")).to_have_text(re.compile(r"^1 of 20 "))
    assert p.errors == []


def test_a_long_page_fills_listings_as_they_come_near_the_screen(exported, opened, tmp_path):
    text = "".join(f"@inproceedings{{k{i},\n  author = {{Doe{i}, Jane}},\n  title = {{Paper {i}}},\n"
                   f"  booktitle = {{Venue}},\n  year = {{{1990 + i % 30}}},\n"
                   f"  keywords = {{Systems and networking, Computer vision}},\n}}\n\n"
                   for i in range(300))
    p = opened(exported(write(tmp_path / "big.bib", text)))
    pg = p.page
    pg.get_by_role("tab", name="By research area").click()
    last = pg.locator("#by-area li.pub").last
    assert last.get_attribute("class") == "pub ref"  # far below: not filled yet
    last.scroll_into_view_if_needed()
    expect(last.locator(".bibtex summary")).to_be_visible()
    expect(last.locator(".authors")).to_have_text(re.compile(r"^Jane Doe\d+$"))
    assert p.errors == []


@pytest.mark.parametrize("size, mobile", [((1280, 900), False), ((390, 844), True)])
def test_the_first_listing_is_on_the_first_screen(exported, opened, size, mobile):
    w, h = size
    for js in (True, False):
        p = opened(exported(), viewport={"width": w, "height": h}, is_mobile=mobile,
                   has_touch=mobile, java_script_enabled=js)
        for first in ("main li.pub", "section.grouping li.pub"):  # featured, then a grouping
            top = p.page.eval_on_selector(first, "e => e.getBoundingClientRect().top")
            assert top < 900, (size, js, first, top)
        # the contents are one line until opened
        assert p.page.locator(".toc summary").is_visible()
        assert not p.page.locator(".toc .toc-groups").first.is_visible()
        assert not p.errors


def test_controls_on_a_phone_are_at_least_24_px(exported, opened):
    p = opened(exported(), viewport={"width": 390, "height": 844}, is_mobile=True,
               has_touch=True)
    small = p.page.eval_on_selector_all(
        "main button, main summary, main select, main a.res, main a.link, .toc summary",
        """els => els.filter(e => e.offsetParent !== null)
               .map(e => [e.outerHTML.slice(0, 60), e.getBoundingClientRect()])
               .filter(([_, r]) => r.height < 24 || r.width < 24).map(([h]) => h)""")
    assert small == []


def test_search_highlights_the_matched_words(exported, opened):
    import time

    def until(expr: str) -> None:  # page.evaluate: not subject to the page's CSP
        for _ in range(100):
            if p.page.evaluate(expr):
                return
            time.sleep(0.05)
        raise AssertionError(expr)
    p = opened(exported())
    p.page.fill("#q", "zero")
    until("() => CSS.highlights.has('q') && CSS.highlights.get('q').size > 0")
    texts = p.page.evaluate(
        "() => Array.from(CSS.highlights.get('q')).map(r => r.toString().toLowerCase())")
    assert texts and set(texts) == {"zero"}
    p.page.fill("#q", "")
    until("() => !CSS.highlights.has('q')")
    assert not p.errors


def test_page_metadata_is_allowed_by_the_csp_and_describes_each_publication(exported, opened,
                                                                           library):
    p = opened(exported())
    assert not p.errors  # no CSP violation for the JSON-LD block
    desc = p.page.get_attribute('meta[name="description"]', "content")
    assert desc.startswith("20 publications by Olatunji Ruwase")
    assert p.page.get_attribute('meta[property="og:title"]', "content") == \
        "Olatunji Ruwase \u2014 Publications"
    import json

    data = json.loads(p.page.inner_text('script[type="application/ld+json"]'))
    parts = data["hasPart"]
    assert len(parts) == 20 and all(a["@type"] == "ScholarlyArticle" for a in parts)
    zero = next(a for a in parts if a["name"].startswith("ZeRO++"))
    assert {"@type": "Person", "name": "Olatunji Ruwase"} in zero["author"]
    assert zero["datePublished"] == "2024"


def test_a_styled_listing_keeps_its_own_author_when_the_script_fills_it(exported, opened,
                                                                       tmp_path):
    from .test_export_csl import REPEATS

    lib = write(tmp_path / "r.bib", REPEATS.replace(
        "publisher = {Fruit Press}, year = 2010}",
        "publisher = {Fruit Press}, year = 2010, keywords = {Fruit}}"))
    p = opened(exported(lib, "--style", "mla", "--by", "year", "--by", "area"))
    pg = p.page
    pg.get_by_role("tab", name="By research area").click()
    li = pg.locator("#by-area-fruit li.pub").first
    expect(li).not_to_have_class(re.compile(r"\bref\b"))  # filled from its home
    assert li.locator("p.cite").inner_text().startswith("Smith, Jane. Bananas.")
    assert li.locator(".bibtex").count() == 1  # the rest of the home entry came along
    assert pg.locator("#by-year li.pub p.cite").nth(2).inner_text().startswith("———. ")
    assert not p.errors
