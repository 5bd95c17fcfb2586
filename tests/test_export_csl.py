"""CSL-JSON and citation styles: `export csl-json`, `list --format csl-json`,
`--style` / `--csl` in export and list, the formatted-reference cache.

Golden files per shipped style (the shipped library as a text listing, and the
HTML page in APA); CSL-JSON validated against the CSL-JSON schema
(tests/data/csl-data.json) and rendered by pandoc --citeproc where pandoc exists.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pubcli import store
from pubcli.exporters import csl
from pubcli.styles import STYLE_DIR, STYLES

from .conftest import ROOT, write
from .test_export import HOSTILE, check_html, golden, md_html

SCHEMA = ROOT / "tests" / "data" / "csl-data.json"
PANDOC = shutil.which("pandoc")

MAPPED = r"""
@article{vanrossum2001,
  author = {van Rossum, Guido and {\"O}zt{\"u}rk, Ay{\c{s}}e and Smith, Jr., John and {Microsoft Research}},
  title = {A {Python} Study --- with \emph{Style}},
  journal = {J. {\'E}tudes},
  volume = {12},
  number = {3},
  pages = {101--120},
  year = {2001},
  month = mar,
  doi = {https://doi.org/10.1000/XYZ.1},
}

@misc{arxiv2020,
  author = {Doe, Jane},
  title = {A Preprint},
  eprint = {2001.01234},
  archiveprefix = {arXiv},
  date = {2020-02-14},
}

@phdthesis{thesis2019,
  author = {Roe, Richard},
  title = {Deep Things},
  school = {Example University},
  address = {Springfield},
  year = 2019,
}

@misc{web2018,
  author = {Doe, Jane},
  title = {A Web Page},
  howpublished = {\url{https://example.org/x}},
  year = 2018,
}

@misc{web2018,
  author = {Doe, Jane},
  title = {The Same Key Again},
  year = 2018,
}
"""


@pytest.fixture
def mapped(tmp_path) -> Path:
    return write(tmp_path / "mapped.bib", MAPPED)


def export(cli, *args) -> str:
    r = cli("export", *args)
    assert r.exit_code == 0, r.output
    return r.stdout


def validate(items) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="the test extra installs jsonschema")
    jsonschema.validate(items, json.loads(SCHEMA.read_text(encoding="utf-8")))


# ------------------------------------------------------------------ CSL-JSON
def test_csl_json_of_the_shipped_library_is_valid_and_complete(cli, library):
    items = json.loads(export(cli, "csl-json", "-l", library))
    validate(items)
    lib = store.load(library)
    assert [i["id"] for i in items] == [r.key for r in lib.records]
    phi = next(i for i in items if i["id"] == "abdin2024phi3")
    assert phi["type"] == "report" and phi["number"] == "MSR-TR-2024-12"
    assert phi["publisher"] == "Microsoft Research" and phi["issued"] == {"date-parts": [[2024, 4]]}
    assert len(phi["author"]) == 84 and {"family": "Rosa", "given": "Gustavo",
                                         "non-dropping-particle": "de"} in phi["author"]
    assert phi["archive"] == "arXiv" and phi["archive_location"] == "2404.14219"
    zero = next(i for i in items if i["id"] == "wang2024zero")
    assert zero["type"] == "paper-conference" and zero["container-title"] == "ICLR 2024"
    assert zero["title"].startswith("ZeRO++: Extremely")  # braces gone, text kept
    # areas and the featured flag are pubcli's own bookkeeping, not bibliographic data
    assert not any("keyword" in i or "featured" in i for i in items)


def test_csl_json_maps_names_dates_dois_pages_and_preprints(cli, mapped):
    items = json.loads(export(cli, "csl-json", "-l", mapped))
    validate(items)
    art, pre, thesis, web, again = items
    assert art["type"] == "article-journal" and art["title"] == "A Python Study — with Style"
    assert art["author"] == [
        {"family": "Rossum", "given": "Guido", "non-dropping-particle": "van"},
        {"family": "Öztürk", "given": "Ayşe"},
        {"family": "Smith", "given": "John", "suffix": "Jr."},
        {"literal": "Microsoft Research"}]
    assert art["container-title"] == "J. Études" and art["volume"] == "12"
    assert art["issue"] == "3" and art["page"] == "101-120" and art["DOI"] == "10.1000/XYZ.1"
    assert art["issued"] == {"date-parts": [[2001, 3]]}
    assert pre["type"] == "article" and pre["publisher"] == "arXiv"
    assert pre["number"] == "arXiv:2001.01234" and pre["URL"] == "https://arxiv.org/abs/2001.01234"
    assert pre["issued"] == {"date-parts": [[2020, 2, 14]]}
    assert thesis["type"] == "thesis" and thesis["genre"] == "PhD thesis"
    assert thesis["publisher"] == "Example University" and thesis["publisher-place"] == "Springfield"
    assert web["URL"] == "https://example.org/x"
    # a key used twice still gives unique ids, as CSL-JSON requires
    assert (web["id"], again["id"]) == ("web2018", "web2018-2")


def test_list_format_csl_json_lists_each_record_once(cli, library):
    r = cli("list", "--format", "csl-json", "--by", "area", "-l", library)
    assert r.exit_code == 0, r.output
    items = json.loads(r.stdout)
    validate(items)
    assert len(items) == 20 == len({i["id"] for i in items})  # 29 area memberships
    r = cli("list", "--format", "csl-json", "--year", "2015", "-l", library)
    assert len(json.loads(r.stdout)) == 4


def test_export_csl_json_to_a_file_follows_the_filters(cli, library, tmp_path):
    out = tmp_path / "refs.json"
    r = cli("export", "csl-json", "--search", "zero", "-o", out, "-l", library)
    assert r.exit_code == 0 and "4 publications" in r.stderr
    assert len(json.loads(out.read_text(encoding="utf-8"))) == 4


@pytest.mark.skipif(PANDOC is None, reason="pandoc is not installed (apt-get install pandoc)")
def test_pandoc_citeproc_renders_the_csl_json(cli, mapped, library, tmp_path):
    for lib, expect in ((library, ["Extremely Efficient Collective Communication",
                                   "Ruwase", "ICLR 2024", "MSR-TR-2024-12"]),
                        (mapped, ["Rossum", "Öztürk", "Example University",
                                  "A Python Study"])):
        refs = tmp_path / "refs.json"
        refs.write_text(export(cli, "csl-json", "-l", lib), encoding="utf-8")
        doc = tmp_path / "doc.md"
        doc.write_text("---\nnocite: '@*'\n---\n\n# References\n", encoding="utf-8")
        p = subprocess.run([PANDOC, "--citeproc", "--bibliography", str(refs), "-t", "plain",
                            str(doc)], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        text = " ".join(p.stdout.split())
        for word in expect:
            assert word in text, (word, text[:500])


# ------------------------------------------------------------------ styles
@pytest.mark.parametrize("style", list(STYLES))
def test_list_in_each_style_matches_its_golden_file(cli, library, style):
    r = cli("list", "--format", "text", "--style", style, "-l", library)
    assert r.exit_code == 0, r.output
    golden(f"list_style_{style}.txt", r.stdout)
    assert r.stdout.count("\n  ") == 20 and "\ue000" not in r.stdout


def test_html_page_in_apa_matches_its_golden_file(cli, library):
    page = export(cli, "html", "--style", "apa", "-l", library)
    golden("export_shipped_apa.html", page)
    check_html(page)


def test_markdown_page_in_ieee_matches_its_golden_file(cli, library):
    golden("export_shipped_ieee.md", export(cli, "markdown", "--style", "ieee", "-l", library))


def test_styled_page_highlights_the_owner_and_links_titles(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@article{a2020, author = {Lam, Monica S. and Ruwase, "
                                    "Olatunji}, title = {A Linked Paper}, journal = {J. X}, "
                                    "year = 2020, doi = {10.1000/abc}}\n")
    page = export(cli, "html", "--style", "ieee", "--owner", "Olatunji Ruwase", "-l", lib)
    cite = re.search(r'<p class="cite">(.*?)</p>', page).group(1)
    assert cite.startswith("M. S. Lam and <strong>O. Ruwase</strong>, “")
    assert '<a href="https://doi.org/10.1000/abc">A Linked Paper</a>' in cite
    assert not cite.startswith("[1]")  # a numeric label means nothing on a page
    md = md_html(export(cli, "markdown", "--style", "apa", "--owner", "Olatunji Ruwase",
                        "-l", lib))
    assert "Lam, M. S., &amp; <strong>Ruwase, O.</strong> (2020)" in md
    assert '<a href="https://doi.org/10.1000/abc">A Linked Paper</a>' in md


def test_styled_output_escapes_every_field(cli, tmp_path):
    lib = write(tmp_path / "hostile.bib", HOSTILE)
    page = export(cli, "html", "--style", "apa", "-l", lib)
    c = check_html(page)
    assert len(c.scripts) == 1 and "__pwned" not in c.scripts[0]
    assert "<img" not in page and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    md = md_html(export(cli, "markdown", "--style", "mla", "-l", lib))
    assert "<script" not in md and "<img" not in md


def test_csl_file_option_takes_any_style(cli, library, tmp_path):
    mine = tmp_path / "mine.csl"
    shutil.copy(STYLE_DIR / "ieee.csl", mine)
    a = export(cli, "markdown", "--csl", mine, "-l", library)
    assert a == export(cli, "markdown", "--style", "ieee", "-l", library)
    r = cli("list", "--csl", mine, "-l", library)
    assert r.exit_code == 0 and "O. Ruwase" in r.stdout


@pytest.mark.parametrize("body, message", [
    (None, "CSL style file not found"),
    ("<style>not closed", "not a CSL style"),
    ('<?xml version="1.0"?><style xmlns="http://purl.org/net/xbiblio/csl" version="1.0">'
     "<info><title>x</title></info></style>", "no <bibliography>"),
])
def test_bad_csl_file_is_a_one_line_error(cli, library, tmp_path, body, message):
    path = tmp_path / "bad.csl"
    if body is not None:
        path.write_text(body, encoding="utf-8")
    out = tmp_path / "page.html"
    r = cli("export", "html", "--csl", path, "-o", out, "-l", library)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and message in r.stderr
    assert r.stderr.count("\n") == 1 and not out.exists()


def test_style_options_are_checked(cli, library):
    r = cli("export", "html", "--style", "harvard", "-l", library)
    assert r.exit_code == 2 and "harvard" in r.stderr
    r = cli("list", "--format", "json", "--style", "apa", "-l", library)
    assert r.exit_code == 2 and "--style" in r.stderr


# ------------------------------------------------------------------ the cache
def _cache_files() -> list[Path]:
    return sorted(Path(os.environ["PUBCLI_CACHE_DIR"]).glob("cite-*.json"))


def test_formatted_references_are_cached_by_content_and_style(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{a2020, author = {Doe, Jane}, title = {First Title}, "
                                    "year = 2020}\n")
    first = cli("list", "--style", "apa", "-l", lib).stdout
    assert "First Title" in first
    [cache] = _cache_files()
    # a warm run takes the reference from the cache instead of formatting it again
    payload = json.loads(cache.read_text(encoding="utf-8"))
    [key] = payload["refs"]
    payload["refs"][key] = payload["refs"][key].replace("First Title", "Cached <b>Title</b>")
    cache.write_text(json.dumps(payload), encoding="utf-8")
    assert "Cached <b>Title</b>" in cli("list", "--style", "apa", "-l", lib).stdout
    page = export(cli, "html", "--style", "apa", "-l", lib)
    assert "Cached &lt;b&gt;Title&lt;/b&gt;" in page  # cache text is data: escaped
    # a changed entry is formatted afresh; another style has its own cache
    write(lib, "@misc{a2020, author = {Doe, Jane}, title = {Second Title}, year = 2020}\n")
    assert "Second Title" in cli("list", "--style", "apa", "-l", lib).stdout
    cli("list", "--style", "mla", "-l", lib)
    assert len(_cache_files()) == 2


def test_a_broken_cache_file_is_ignored(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{a2020, author = {Doe, Jane}, title = {T One}, "
                                    "year = 2020}\n")
    cli("list", "--style", "apa", "-l", lib)
    [cache] = _cache_files()
    cache.write_text("{not json", encoding="utf-8")
    r = cli("list", "--style", "apa", "-l", lib)
    assert r.exit_code == 0 and "T One" in r.stdout


def test_styler_parses_marked_references():
    c = csl.parse("[3]G. Wang, O. \ue000Ruwase\ue001, and A. B. Lam, \u201c\ue002T \ue010x"
                  "\ue011\ue003\u201d, in \ue010Venue\ue011.", number_prefix=True)
    assert c.text == "G. Wang, O. Ruwase, and A. B. Lam, \u201cT x\u201d, in Venue."
    assert [s.text for s in c.before if s.strong] == ["O. Ruwase"]
    assert [(s.text, s.em) for s in c.title] == [("T ", False), ("x", True)]


def test_an_entry_citeproc_cannot_format_falls_back_to_pubclis_layout(cli, tmp_path):
    # citeproc-py 0.11 fails on an entry with neither author nor title in MLA
    lib = write(tmp_path / "l.bib", "@misc{bare, note = {Just a note}}\n\n"
                                    "@misc{ok2020, author = {Doe, Jane}, title = {Fine}, "
                                    "year = 2020}\n")
    r = cli("export", "html", "--style", "mla", "-l", lib)
    assert r.exit_code == 0, r.output
    assert "warning: citeproc-py could not format entry 'bare'" in r.stderr
    assert '<p class="cite">Doe, J. “<span class="title">Fine</span>”. 2020.</p>' in r.stdout
    assert '<li class="pub" id="p-bare" data-key="bare" data-t="0">\n<p class="title">bare</p>' \
        in r.stdout
    r = cli("list", "--style", "mla", "-l", lib)
    assert r.exit_code == 0 and "  bare.\n" in r.stdout and "'bare'" in r.stderr


def test_private_fields_stay_out_of_styled_pages_and_exported_csl_json(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{a2020, author = {Doe, Jane}, title = {T}, "
                                    "year = 2020, note = {Secret remark}}\n")
    assert "Secret remark" in export(cli, "html", "--style", "apa", "-l", lib)
    write(tmp_path / "pubcli.toml", 'private_fields = ["note"]\n')
    for args in (("html", "--style", "apa"), ("markdown", "--style", "chicago"),
                 ("csl-json",)):
        assert "Secret remark" not in export(cli, *args, "-l", lib), args
