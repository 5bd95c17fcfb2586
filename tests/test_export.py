"""`pubcli export html|markdown`: the publications page.

Golden files for both formats on the shipped library, the seed page's groups and
order, escaping, LaTeX, links, determinism, templates and errors. The browser
checks are in test_export_browser.py.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from pubcli import store
from pubcli.exporters import EXPORTERS, build_page, get
from pubcli.exporters.html import csp_hash
from pubcli.exporters.spans import rich

from .conftest import ROOT, SEED_PAGE, golden, write

def export(cli, *args):
    r = cli("export", *args)
    assert r.exit_code == 0, r.output
    return r.stdout


def md_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def md_html(text: str) -> str:
    return md_parser().render(text)


HOSTILE = r"""
@inproceedings{evil2024,
  author = {<img src=x onerror="window.__pwned=1"> and Ruwase, Olatunji and Bobby ](javascript:alert(1)) Tables},
  title = {<script>window.__pwned=1</script> *not bold* [click](javascript:alert(1)) \& \&amp; | \_ `tick`},
  booktitle = {<b>Venue</b> # not a heading},
  year = {2024},
  month = may,
  url = {javascript:alert(1)},
  abstract = {An </textarea><script>window.__pwned=1</script> abstract},
  keywords = {<i>Area</i>, Systems and networking},
}

@misc{evil2023,
  author = {Mallory, Eve},
  title = {Quotes " and ' and a URL with "quotes"},
  year = {2023},
  url = {https://example.org/a"onmouseover="window.__pwned=1},
  doi = {10.1000/"><svg onload=alert(1)>},
}
"""

LATEX = r"""
@article{muller2019,
  author = {M{\"u}ller, J{\"o}rg and Ruwase, Olatunji and Garc{\'\i}a, Ana},
  title = {On the \emph{Bounded} {GPU} Problem for $k$-means with $O(n \log n)$ and \textbf{Strong} Claims},
  journal = {Journal of {B}ad {T}ypes --- Series~A},
  year = {2019},
  month = {3},
  doi = {https://doi.org/10.1145/3190508.3190517},
  abstract = {We show that $x_1 < x_2$ holds, \textit{always}.},
  featured = {true},
}

@misc{plain2018,
  author = {Doe, Jane},
  title = {A Web Page},
  year = {2018},
  url = {https://example.org/page?a=1&b=(2)},
}

@misc{ftp2017,
  author = {Doe, Jane},
  title = {An FTP Site},
  year = {2017},
  url = {ftp://example.org/file},
}
"""


@pytest.fixture
def hostile(tmp_path) -> Path:
    return write(tmp_path / "hostile.bib", HOSTILE)


@pytest.fixture
def latexlib(tmp_path) -> Path:
    return write(tmp_path / "latex.bib", LATEX)


# ------------------------------------------------------------------ golden files
def test_markdown_golden(cli, library):
    golden("export_shipped.md", export(cli, "markdown", "-l", library))


def test_html_golden(cli, library):
    golden("export_shipped.html", export(cli, "html", "-l", library))


# ------------------------------------------------------------------ the seed page
def seed_structure() -> dict[str, list[list[str]]]:
    """{"Publications by Year": [[title, ...] per group], ...} from the seed page."""
    lib = store.load(ROOT / "data" / "library.bib")
    from pubcli.text.latex import to_text
    titles = {to_text(r.title) for r in lib.records}
    sections: dict[str, list[list[str]]] = {}
    current = None
    for line in SEED_PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("Publications by "):
            current = sections.setdefault(line, [])
        elif current is None:
            continue
        elif line == "-":
            current.append([])
        elif line in titles:
            current[-1].append(line)
    return sections


def markdown_structure(text: str) -> dict[str, list[tuple[str, list[str]]]]:
    """Sections -> [(group heading, [titles])] read from the parsed Markdown."""
    tokens = md_parser().parse(text)
    sections: dict[str, list[tuple[str, list[str]]]] = {}
    section = None
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            content = tokens[i + 1].content
            if t.tag == "h2":
                section = sections.setdefault(content, []) if content.startswith(
                    "Publications by") else None
            elif t.tag == "h3" and section is not None:
                section.append((content, []))
        elif t.type == "list_item_open" and section is not None:
            inline = tokens[i + 2]
            first_line = inline.children[:next(
                (k for k, c in enumerate(inline.children) if c.type == "hardbreak"),
                len(inline.children))]
            section[-1][1].append("".join(c.content for c in first_line if c.type == "text"))
        i += 1
    return sections


def test_same_papers_in_the_same_groups_and_order_as_the_seed_page(cli, library):
    seed = seed_structure()
    ours = markdown_structure(export(cli, "markdown", "--by", "year", "--by", "area", "--by", "type", "-l", library))
    assert list(ours) == ["Publications by Year", "Publications by Research Area",
                          "Publications by Type"] == list(seed)
    # Two documented differences between the seed page and the shipped library:
    # 1. the seed's year list leaves out ZeRO++ (shown as featured above it), which
    #    its area and type lists do include; pubcli lists it under 2024 too;
    # 2. the seed shows "A Practical Dynamic Buffer Overflow Detector" alone in a
    #    last type group; the library records it as @inproceedings (NDSS), so it
    #    closes the conference papers.
    zeropp = "ZeRO++: Extremely Efficient Collective Communication for Giant Model Training"
    practical = "A Practical Dynamic Buffer Overflow Detector"
    seed["Publications by Year"][0].insert(0, zeropp)
    by_type = seed["Publications by Type"]
    assert by_type[-1] == [practical]
    by_type[1].append(by_type.pop()[0])
    for name, groups in ours.items():
        assert [titles for _, titles in groups] == seed[name], name
    assert [h for h, _ in ours["Publications by Year"]][:3] == ["2024 (2)", "2022 (1)",
                                                                 "2021 (3)"]
    assert [h for h, _ in ours["Publications by Research Area"]] == [
        "Artificial intelligence (10)", "Programming languages and software engineering (5)",
        "Systems and networking (11)", "Hardware and devices (2)", "Computer vision (1)"]
    assert [h for h, _ in ours["Publications by Type"]] == [
        "Technical reports (2)", "Conference papers (14)", "Preprints and other (4)"]


def test_header_featured_venue_and_details_read_like_the_seed_page(cli, library):
    out = export(cli, "markdown", "-l", library)
    tokens = md_parser().parse(out)
    heads = [(t.tag, tokens[i + 1].content) for i, t in enumerate(tokens)
             if t.type == "heading_open"]
    assert heads[:2] == [("h1", "Olatunji Ruwase"), ("h2", "Featured publication")]
    assert tokens[3].type == "paragraph_open" and tokens[4].content == "Team Lead"
    text = md_html(out)
    featured = text.split("<h2>Featured publication</h2>")[1].split("<h2>")[0]
    assert featured.count("<li>") == 1 and "ZeRO++: Extremely Efficient" in featured
    assert "<em>ICLR 2024</em> | May 2024" in featured  # the venue apart from the date
    assert "<strong>Olatunji Ruwase</strong>" in featured
    assert "<em>MSR-TR-2024-12</em> | April 2024<br />\nPublished by Microsoft" in text
    assert "<em>SC'16</em> | November 2016<br />\nISBN: 978-1-4673-8815-3" in text
    page = export(cli, "html", "-l", library)
    assert "<h1>Olatunji Ruwase</h1>" in page and '<p class="role">Team Lead</p>' in page
    body = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "ICLR 2024 | May 2024" in body and '<i class="where">ICLR 2024</i>' in page
    assert "MSR-TR-2024-12 | April 2024\nPublished by Microsoft" in body
    assert "ISBN: 978-1-4673-8815-3" in body


def test_owner_option_changes_the_header_and_the_highlighted_author(cli, library):
    out = export(cli, "markdown", "--owner", "Yuxiong He", "-l", library)
    assert out.startswith("# Yuxiong He\n")
    assert "**Yuxiong He**" in out and "**Olatunji Ruwase**" not in out


def test_no_featured_section_without_featured_records(cli, tmp_path):
    lib = write(tmp_path / "x.bib", "@misc{a2020, title = {Alone}, author = {Doe, Jane}, "
                                    "year = 2020}\n")
    out = export(cli, "markdown", "-l", lib)
    assert "Featured" not in out and out.startswith("# Publications\n")
    assert "Featured" not in export(cli, "html", "-l", lib).split("<main")[1]


# ------------------------------------------------------------------ markdown form
def test_markdown_has_a_heading_with_count_and_one_list_item_per_publication(cli, library):
    out = export(cli, "markdown", "--by", "year", "--by", "area", "--by", "type", "-l", library)
    tokens = md_parser().parse(out)
    groups = []
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.tag == "h3":
            groups.append([tokens[i + 1].content, 0])
        elif t.type == "list_item_open" and t.level == 1 and groups:
            groups[-1][1] += 1
    assert len(groups) == 11 + 5 + 3
    for heading, items in groups:
        assert heading.endswith(f"({items})"), heading
    # each list item is one paragraph; no stray lists, code blocks or raw HTML
    kinds = {t.type for t in tokens}
    assert not kinds & {"code_block", "fence", "html_block", "blockquote_open", "hr"}
    assert not any(c.type == "html_inline" for t in tokens if t.children for c in t.children)
    assert all(line == line.rstrip() for line in out.splitlines())


def test_markdown_escapes_every_field(cli, hostile):
    out = export(cli, "markdown", "--by", "year", "--by", "area", "--by", "type", "-l", hostile)
    page = MarkdownIt("commonmark").render(out)  # raw HTML allowed: must stay text
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "<i>" not in page and 'href="javascript' not in page
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    # "&amp;" in a field is an HTML entity from a web export: it reads as "&"
    assert ("<script>window.__pwned=1</script> *not bold* [click](javascript:alert(1)) "
            "& & | _ `tick`") in text
    assert "<b>Venue</b> # not a heading | May 2024" in text
    assert "### <i>Area</i> (1)" not in out and "<h3>&lt;i&gt;Area&lt;/i&gt; (1)</h3>" in page
    assert "<em>not bold</em>" not in page
    tokens = md_parser().parse(out)
    hrefs = [c.attrs.get("href") for t in tokens if t.children for c in t.children
             if c.type == "link_open"]
    assert all(h.startswith("https://") for h in hrefs), hrefs
    assert "javascript" not in " ".join(hrefs)


def test_markdown_line_starts_that_look_like_blocks_are_escaped():
    from pubcli.exporters import markdown as md

    for text in ("- item", "+ item", "1. item", "12) item", "# head", "> quote", "=== x"):
        rendered = MarkdownIt("commonmark").render(f"- first\\\n  {md.escape(text)}\n")
        assert rendered.count("<li>") == 1 and "<h1>" not in rendered, text
        assert "<blockquote>" not in rendered and text in html.unescape(rendered)


# ------------------------------------------------------------------ LaTeX
def test_latex_becomes_unicode_emphasis_and_math_stays_intact(cli, latexlib):
    out = export(cli, "markdown", "--owner", "Olatunji Ruwase", "-l", latexlib)
    page = md_html(out)
    assert ("On the <em>Bounded</em> GPU Problem for $<code>k</code>$-means with "
            "$<code>O(n \\log n)</code>$ and Strong Claims") in page  # title already bold
    assert "Jörg Müller, <strong>Olatunji Ruwase</strong>, Ana García" in page
    assert "<em>Journal of Bad Types — Series A</em> | March 2019" in page
    doc = export(cli, "html", "-l", latexlib)
    # formulas as MathML (pandoc --mathml), the TeX kept as its annotation
    title = re.search(r'<p class="title">(.*?)</p>', doc.split('<main')[1]).group(1)
    assert 'On the <em>Bounded</em> GPU Problem for <math display="inline"' in title
    assert "<mi>k</mi>" in title and '<annotation encoding="application/x-tex">k</annotation>' \
        in title and "-means with <math" in title
    assert "</math> and <strong>Strong</strong> Claims" in title and "$" not in title
    assert re.search(r"We show that <math [^>]*>.*<mo>&lt;</mo>.*</math> holds, "
                     r"<em>always</em>\.", doc)
    assert "Jörg Müller" in doc and "{" not in doc.split("<main")[1].split("<pre>")[0]


@pytest.mark.parametrize("latex, spans", [
    (r"Plain {GPU} title", [("Plain GPU title", False, False, False)]),
    (r"A \emph{b} c", [("A ", False, False, False), ("b", True, False, False),
                       (" c", False, False, False)]),
    (r"{\em Deep} {\bf Net}", [("Deep", True, False, False), (" ", False, False, False),
                               ("Net", False, True, False)]),
    (r"\textit{$k$-NN}", [("$k$", True, False, True), ("-NN", True, False, False)]),
    (r"Cost \$5 and $a  <  b$", [("Cost $5 and ", False, False, False),
                                 ("$a < b$", False, False, True)]),
    (r"M{\"u}ller~\emph{et~al.}", [("Müller ", False, False, False),
                                   ("et al.", True, False, False)]),
])
def test_rich_spans(latex, spans):
    assert [(s.text, s.em, s.strong, s.math) for s in rich(latex)] == spans


# ------------------------------------------------------------------ links
def test_only_http_urls_and_dois_become_links(cli, latexlib, hostile):
    md = export(cli, "markdown", "-l", latexlib)
    assert "**[On the *Bounded* GPU Problem" in md
    assert "](https://doi.org/10.1145/3190508.3190517)**" in md
    assert "[DOI](https://doi.org/10.1145/3190508.3190517)" in md
    assert "**[A Web Page](https://example.org/page?a=1&b=%282%29)**" in md
    assert "**An FTP Site**" in md and "ftp:" not in md
    doc = export(cli, "html", "-l", latexlib)
    assert '<a href="https://doi.org/10.1145/3190508.3190517">On the' in doc
    assert 'href="https://example.org/page?a=1&amp;b=(2)"' in doc
    assert 'href="ftp:' not in doc and "ftp://example.org/file" in doc  # BibTeX only
    bad = export(cli, "html", "-l", hostile)
    hrefs = re.findall(r'href="([^"]*)"', bad)
    assert all(h.startswith(("#", "https://", "data:")) for h in hrefs), hrefs
    assert "javascript:" not in " ".join(hrefs)
    assert 'href="https://example.org/a%22onmouseover=%22window.__pwned=1"' not in bad
    # a URL with quotes is no URL at all, nor is a "DOI" with markup (values.parse_doi)
    assert not any("doi.org/10.1000" in h for h in hrefs)


# ------------------------------------------------------------------ HTML page
class Checker(HTMLParser):
    """A strict-enough HTML5 check: nesting, ids, references, scripts, handlers."""

    VOID = {"meta", "link", "br", "hr", "img", "input", "source", "wbr", "area", "base",
            "col", "embed", "track"}
    CLOSES_P = {"p", "ul", "ol", "div", "section", "details", "pre", "h1", "h2", "h3",
                "header", "footer", "nav", "main"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.ids, self.refs, self.errors = [], [], [], []
        self.tags, self.scripts, self.handlers, self.doctype = [], [], [], None
        self.labels, self.text_in = [], {}
        self.data_blocks: list[str] = []  # <script type="application/ld+json">: data, never run
        self._script = None
        self._data = False

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids.append(a["id"])
        for name in ("aria-controls", "aria-labelledby", "aria-describedby", "for",
                     "data-ref"):
            if name in a:
                self.refs.append(a[name])
        if a.get("href", "").startswith("#") and len(a["href"]) > 1:
            self.refs.append(a["href"][1:])
        self.handlers += [n for n in a if n.startswith("on")]
        if tag == "p" and self.stack and self.stack[-1] == "p":
            self.errors.append("p inside p")
        if tag in self.CLOSES_P and "p" in self.stack:
            self.errors.append(f"<{tag}> inside <p>")
        if tag == "script":
            self._script = []
            self._data = a.get("type") == "application/ld+json"
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.errors.append(f"self-closing <{tag}/>")

    def handle_endtag(self, tag):
        if tag in self.VOID:
            self.errors.append(f"end tag for void <{tag}>")
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        if tag == "script":
            (self.data_blocks if self._data else self.scripts).append("".join(self._script))
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)


def check_html(page: str) -> Checker:
    c = Checker()
    c.feed(page)
    c.close()
    assert page.startswith("<!DOCTYPE html>\n")
    assert not c.errors, c.errors[:5]
    assert not c.stack, c.stack
    assert len(c.ids) == len(set(c.ids)), [i for i in c.ids if c.ids.count(i) > 1]
    missing = [r for ref in c.refs for r in ref.split() if r not in set(c.ids)]
    assert not missing, missing
    assert not c.handlers, c.handlers
    return c


def test_html_is_valid_self_contained_and_accessible(cli, library):
    page = export(cli, "html", "-l", library)
    c = check_html(page)
    tags = [t for t, _ in c.tags]
    assert tags[0] == "html" and c.tags[0][1] == {"lang": "en"}
    assert tags.count("h1") == 1 and tags.count("main") == 1 and tags.count("nav") == 1
    assert tags.count("header") == 1 and tags.count("footer") == 1
    # nothing is fetched: no src, no external stylesheet, every href local or a link
    assert not [a for _, a in c.tags if "src" in a]
    assert all(a.get("href", "#").startswith(("#", "https://", "data:")) for _, a in c.tags)
    # the search box is labelled; tabs point at their panels
    assert ("label", {"for": "q"}) in c.tags
    tabs = [a for t, a in c.tags if a.get("role") == "tab"]
    assert [a["aria-controls"] for a in tabs] == ["by-year", "by-area", "by-type"]
    # exactly one script, allowed by the CSP hash; the style too
    assert len(c.scripts) == 1
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert f"script-src '{csp_hash(c.scripts[0])}'" in csp and "default-src 'none'" in csp
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    assert f"style-src '{csp_hash(style)}'" in csp
    assert "prefers-color-scheme: dark" in style and "@media print" in style
    assert 'name="viewport"' in page


def test_html_shows_each_entrys_verbatim_bibtex_once(cli, library):
    page = export(cli, "html", "-l", library)
    lib = store.load(library)
    blocks = [html.unescape(b) for b in re.findall(r"<pre><code>(.*?)</code></pre>", page, re.S)]
    assert len(blocks) == 20  # not once per listing (featured + by year + by area + by type)
    by_key = {store.loads(b).records[0].key: b for b in blocks}
    for rec in lib.records:  # as written, less the private keywords and featured lines
        block = by_key[rec.key]
        shown = store.loads(block).records[0]
        assert shown.fields == {k: v for k, v in rec.fields.items()
                                if k not in ("keywords", "featured")}
        source = store.source_text(lib, rec)
        assert all(line.rstrip(",") in source for line in block.splitlines())


def test_every_other_listing_refers_to_the_one_full_entry(cli, library):
    page = export(cli, "html", "-l", library)
    homes = re.findall(r'<li class="pub" id="([^"]+)" data-key="([^"]+)"', page)
    assert len(homes) == 20 and len({k for _, k in homes}) == 20
    refs = re.findall(r'<li class="pub ref" data-ref="([^"]+)" data-key="[^"]+"><p class="title">'
                      r'<a href="#([^"]+)">', page)
    # featured 1 + by area 29 + by type 20; the by-year listing holds the homes
    assert len(refs) == 1 + 29 + 20 and all(a == b for a, b in refs)
    year = page[page.index('id="by-year"'):page.index('id="by-area"')]
    assert 'class="pub ref"' not in year and year.count('class="pub"') == 20
    check_html(page)  # every data-ref and #link names an id on the page


def test_page_grows_by_under_2_kb_per_entry(cli, tmp_path):
    """A generated library of 300 entries, each in two areas with 8 authors."""
    def lib(n: int) -> Path:
        text = "".join(
            f"@inproceedings{{k{i},\n  author = {{" +
            " and ".join(f"M{{\\\"u}}ller{j}, J{{\\'e}}r{i}" for j in range(8)) +
            f"}},\n  title = {{A {{GPU}} Study of Scalable Learning Systems, Part {i}}},\n"
            f"  booktitle = {{International Symposium on Computer Architecture}},\n"
            f"  year = {{{2000 + i % 25}}},\n  month = may,\n  doi = {{10.1000/x{i}}},\n"
            f"  keywords = {{Artificial intelligence, Systems and networking}},\n}}\n\n"
            for i in range(n))
        return write(tmp_path / f"lib{n}.bib", text)
    small = len(export(cli, "html", "-l", lib(1)).encode())
    page = export(cli, "html", "-l", lib(301))
    big = len(page.encode())
    # the entry rendered once (under 2 KB), plus its schema.org data for scholarly search
    # engines (about 0.6 KB with 8 authors) and its other listings readable without the
    # script (title, first author, venue: about 0.2 KB each)
    ld = len(re.search(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
             .group(1).encode())
    assert (big - small - ld) / 300 < 2048 and ld / 300 < 700


def test_a_big_pages_schema_org_data_is_one_json_document_its_csp_allows(cli, tmp_path):
    """Over a thousand entries (the data is written in pieces): every publication is in
    it, in page order, with the title's quotes and markup as data; the CSP hash is the
    block's; a user template's ``{{ jsonld }}`` writes the same block whole."""
    import json

    n = 1100
    text = "".join(f"@article{{k{i},\n  author = {{M{{\\\"u}}ller, Ana and Doe{i % 7}, Jo}},\n"
                   f"  title = {{Paper {i}: \"</script>\" & <b>}},\n  journal = {{J}},\n"
                   f"  year = {{{2000 + i % 20}}},\n  doi = {{10.1000/x{i}}},\n}}\n\n"
                   for i in range(n))
    lib = write(tmp_path / "big.bib", text)
    page = export(cli, "html", "-l", lib)
    block = re.search(r'<script type="application/ld\+json">(.*?)</script>', page, re.S).group(1)
    assert "<" not in block and "&" not in block
    data = json.loads(block)
    parts = data["hasPart"]
    assert len(parts) == n and data["@type"] == "CollectionPage"
    homes = re.findall(r'<li class="pub" id="[^"]+" data-key="([^"]+)"', page)
    assert [a["sameAs"].rsplit("x", 1)[1] for a in parts] == [k[1:] for k in homes]
    first = next(a for a in parts if a["sameAs"].endswith("/x0"))
    assert first == {"@type": "ScholarlyArticle", "name": 'Paper 0: "</script>" & <b>',
                     "author": [{"@type": "Person", "name": "Ana M\u00fcller"},
                                {"@type": "Person", "name": "Jo Doe0"}],
                     "datePublished": "2000", "isPartOf": "J",
                     "sameAs": "https://doi.org/10.1000/x0", "url": "https://doi.org/10.1000/x0"}
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert f"'{csp_hash(block)}'" in csp
    tpl = write(tmp_path / "mine.html.j2", "{{ jsonld_hash }} {{ jsonld }}")
    own = export(cli, "html", "--template", tpl, "-l", lib)
    assert own == f"{csp_hash(block)} {block}"


def test_html_escapes_every_field(cli, hostile):
    page = export(cli, "html", "-l", hostile)
    c = check_html(page)
    assert len(c.scripts) == 1 and "__pwned" not in c.scripts[0]
    assert "__pwned=1</" not in c.data_blocks[0] and "<script" not in c.data_blocks[0]
    assert [t for t, _ in c.tags].count("img") == 0 and "<b>" not in page
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt; *not bold*" in page
    assert '&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;' in page
    assert "&lt;i&gt;Area&lt;/i&gt;" in page


def test_shipped_template_groups_follow_by_options(cli, library):
    out = export(cli, "html", "--by", "type", "--by", "year", "-l", library)
    assert re.findall(r'<section class="grouping" id="([^"]+)"', out) == ["by-type", "by-year"]
    one = export(cli, "html", "--by", "area", "-l", library)
    assert 'role="tablist"' not in one and 'id="by-area"' in one
    md = export(cli, "markdown", "--by", "year", "--by", "year", "-l", library)
    assert re.findall(r"^## (.*)$", md, re.M) == ["Featured publication",
                                                  "Publications by Year"]


def test_filters_are_those_of_list(cli, library):
    out = export(cli, "markdown", "--year", "2015", "--by", "year", "-l", library)
    assert re.findall(r"^### (.*)$", out, re.M) == ["2015 (4)"]
    assert "Featured" not in out  # ZeRO++ (2024) is filtered out
    out = export(cli, "markdown", "--search", "zero", "--area", "Systems and networking",
                 "--by", "area", "-l", library)
    assert re.findall(r"^### (.*)$", out, re.M) == ["Artificial intelligence (1)",
                                                    "Systems and networking (1)"]
    r = cli("export", "markdown", "--author", "Nobody Atall", "-l", library)
    assert r.exit_code == 0 and "no publications match" in r.stderr
    assert "No publications." in r.stdout


# ------------------------------------------------------------------ determinism
def test_same_library_same_bytes_and_no_timestamp_without_stamp(cli, library, tmp_path):
    env = {**os.environ, "PUBCLI_CACHE_DIR": str(tmp_path / "c")}
    outs = set()
    for seed in ("1", "2"):
        for fmt in ("html", "markdown"):
            p = subprocess.run([sys.executable, "-m", "pubcli", "export", fmt, "-l",
                                str(library)], capture_output=True,
                               env={**env, "PYTHONHASHSEED": seed}, check=True)
            outs.add((fmt, p.stdout))
    assert len(outs) == 2
    both = b"".join(o for _, o in outs).decode()
    assert not re.search(r"20\d\d-\d\d-\d\d|\d\d:\d\d:\d\d", both)


def test_stamp_adds_the_date(cli, library):
    out = export(cli, "html", "--stamp", "-l", library)
    r = cli("export", "markdown", "--stamp", "-l", library,
            env={"SOURCE_DATE_EPOCH": "1714521600"})
    assert "Last updated 2024-05-01" in r.stdout
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\d">', out)
    r = cli("export", "markdown", "--stamp", "-l", library, env={"SOURCE_DATE_EPOCH": "soon"})
    assert r.exit_code == 2 and "SOURCE_DATE_EPOCH" in r.stderr


# ------------------------------------------------------------------ output, templates, errors
def test_output_file_is_written_and_folders_created(cli, library, tmp_path):
    target = tmp_path / "site" / "deep" / "index.html"
    r = cli("export", "html", "-o", target, "-l", library)
    assert r.exit_code == 0, r.output
    assert r.stdout == "" and "wrote" in r.stderr and "20 publications" in r.stderr
    assert target.read_text(encoding="utf-8") == export(cli, "html", "-l", library)


def test_output_to_a_folder_is_an_error(cli, library, tmp_path):
    r = cli("export", "html", "-o", tmp_path, "-l", library)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "folder" in r.stderr
    assert r.stderr.count("\n") == 1 and r.stdout == ""


def test_unknown_format_exits_2(cli, library):
    r = cli("export", "pdf", "-l", library)
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and "pdf" in r.stderr and "html" in r.stderr


def test_user_template_can_extend_the_shipped_one(cli, library, tmp_path):
    tpl = write(tmp_path / "mine.html.j2",
                '{% extends "pubcli/page.html.j2" %}'
                "{% block footer %}<footer><p>{{ page.total }} papers, "
                "{{ page.owner }}</p></footer>{% endblock %}")
    out = export(cli, "html", "--template", tpl, "-l", library)
    assert "<footer><p>20 papers, Olatunji Ruwase</p></footer>" in out
    assert "Made with pubcli" not in out and "<h1>Olatunji Ruwase</h1>" in out


def test_user_markdown_template_escapes_values(cli, hostile, tmp_path):
    tpl = write(tmp_path / "list.md.j2",
                "{% for e in page.entries %}* {{ e.title_text }} ({{ e.year }})\n{% endfor %}")
    out = export(cli, "markdown", "--template", tpl, "-l", hostile)
    rendered = MarkdownIt("commonmark").render(out)
    assert "<script" not in rendered and "<em>" not in rendered
    assert rendered.count("<li>") == 2


@pytest.mark.parametrize("body, message", [
    ("{% for x in %}", "template syntax error"),
    ("{{ page.nothing_here }}", "template error"),
])
def test_broken_user_template_is_a_one_line_error(cli, library, tmp_path, body, message):
    tpl = write(tmp_path / "bad.html.j2", "line one\n" + body)
    r = cli("export", "html", "--template", tpl, "-l", library)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and message in r.stderr
    assert r.stderr.count("\n") == 1 and r.stdout == ""
    if "syntax" in message:
        assert f"{tpl}:2:" in r.stderr


def test_missing_template_is_an_error(cli, library, tmp_path):
    r = cli("export", "html", "--template", tmp_path / "nope.j2", "-l", library)
    assert r.exit_code == 2 and "template file not found" in r.stderr


def test_empty_library_gives_an_empty_page(cli, tmp_path):
    lib = write(tmp_path / "empty.bib", "")
    r = cli("export", "html", "-l", lib)
    assert r.exit_code == 0 and "No publications." in r.stdout
    check_html(r.stdout)
    assert "holds no publications" in r.stderr


def test_registry_names_every_format():
    assert sorted(EXPORTERS) == ["html", "markdown"]
    assert get("html").backend.TEMPLATE != get("markdown").backend.TEMPLATE
    from pubcli.errors import PubcliError
    with pytest.raises(PubcliError, match="unknown export format 'pdf'"):
        get("pdf")


def test_a_record_in_several_areas_is_one_shared_entry(library):
    lib = store.load(library)
    page = build_page(lib.records, source_text=lambda r: store.source_text(lib, r),
                      area_order=["Artificial intelligence"])
    area = next(s for s in page.sections if s.by == "area")
    found = [e for g in area.groups for e in g.entries if e.key == "ovtcharov2015accelerating"]
    assert len(found) == 4 and all(e is found[0] for e in found)
    assert page.total == 20 and [e.key for e in page.featured] == ["wang2024zero"]
