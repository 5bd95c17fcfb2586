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
from pubcli.exporters.styles import STYLE_DIR, STYLES

from .conftest import ROOT, golden, write
from .test_export import HOSTILE, check_html, md_html

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
    # institution and publisher, both, as pandoc's BibTeX reader joins them
    assert phi["publisher"] == "Microsoft Research; Microsoft" and phi["issued"] == {"date-parts": [[2024, 4]]}
    assert len(phi["author"]) == 84 and {"family": "Rosa", "given": "Gustavo",
                                         "dropping-particle": "de"} in phi["author"]
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
    # English titles in sentence case, as CSL expects; italics as <i>
    assert art["type"] == "article-journal" and art["title"] == "A Python study — with <i>style</i>"
    assert art["author"] == [
        {"family": "Rossum", "given": "Guido", "dropping-particle": "van"},
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
    assert web["publisher"] == "https://example.org/x"  # as pandoc reads \url in howpublished
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
@pytest.mark.parametrize("style", [pytest.param(s, marks=pytest.mark.slow) if s == "chicago" else s for s in STYLES])
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
    assert '<a href="https://doi.org/10.1000/abc">A linked paper</a>' in cite  # sentence case
    assert not cite.startswith("[1]")  # a numeric label means nothing on a page
    md = md_html(export(cli, "markdown", "--style", "apa", "--owner", "Olatunji Ruwase",
                        "-l", lib))
    assert "Lam, M. S., &amp; <strong>Ruwase, O.</strong> (2020)" in md
    assert '<a href="https://doi.org/10.1000/abc">A linked paper</a>' in md


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
    return sorted(Path(os.environ["PUBCLI_CACHE_DIR"]).glob("cite-*.marshal"))


def test_a_broken_cache_file_is_ignored(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{a2020, author = {Doe, Jane}, title = {T One}, "
                                    "year = 2020}\n")
    cli("list", "--style", "apa", "-l", lib)
    [cache] = _cache_files()
    cache.write_bytes(cache.read_bytes()[:-7] + b"garbage")
    r = cli("list", "--style", "apa", "-l", lib)
    assert r.exit_code == 0 and "T one" in r.stdout


@pytest.mark.slow
def test_private_fields_stay_out_of_styled_pages_and_exported_csl_json(cli, tmp_path):
    lib = write(tmp_path / "l.bib", "@misc{a2020, author = {Doe, Jane}, title = {T}, "
                                    "year = 2020, note = {Secret remark}}\n")
    assert "Secret remark" in export(cli, "html", "--style", "apa", "-l", lib)
    write(tmp_path / "pubcli.toml", 'private_fields = ["note"]\n')
    for args in (("html", "--style", "apa"), ("markdown", "--style", "chicago"),
                 ("csl-json",)):
        assert "Secret remark" not in export(cli, *args, "-l", lib), args


# ------------------------------------------------------------------ pandoc's citeproc
REPEATS = r"""
@article{smith2010x, author = {Smith, Jane}, title = {Xylophones in the {Wild}}, journal = {J. Sound}, year = 2010}
@article{smith2010a, author = {Smith, Jane}, title = {Apples of {Eden}}, journal = {J. Fruit}, year = 2010}
@book{smith2010b, author = {Smith, Jane}, title = {Bananas}, publisher = {Fruit Press}, year = 2010}
@article{doe2010, author = {Doe, John}, title = {Other Things}, journal = {J. X}, year = 2010}
"""


def test_apa_year_suffixes_and_mla_repeated_author_match_their_golden_files(cli, tmp_path):
    lib = write(tmp_path / "repeats.bib", REPEATS)
    apa = cli("list", "--style", "apa", "-l", lib)
    assert apa.exit_code == 0, apa.output
    golden("list_style_apa_suffixes.txt", apa.stdout)
    # the style's sort (author, then title) and its year suffixes, in one bibliography
    lines = [ln.strip() for ln in apa.stdout.splitlines() if ln.startswith("  ")]
    assert [ln[:20] for ln in lines] == ["Doe, J. (2010). Othe", "Smith, J. (2010a). A",
                                         "Smith, J. (2010b). B", "Smith, J. (2010c). X"]
    mla = cli("list", "--style", "mla", "-l", lib)
    golden("list_style_mla_repeated.txt", mla.stdout)
    lines = [ln.strip() for ln in mla.stdout.splitlines() if ln.startswith("  ")]
    assert lines[1].startswith("Smith, Jane. ") and lines[2].startswith("———. ") \
        and lines[3].startswith("———. ")


# one author's 2010 works in two types and two areas (one work in both areas)
GROUPED = r"""
@article{smith2010x, author = {Smith, Jane}, title = {Xylophones in the {Wild}}, journal = {J. Sound}, year = 2010, keywords = {Sound}}
@article{smith2010a, author = {Smith, Jane}, title = {Apples of {Eden}}, journal = {J. Fruit}, year = 2010, keywords = {Fruit}}
@book{smith2010b, author = {Smith, Jane}, title = {Bananas}, publisher = {Fruit Press}, year = 2010, keywords = {Fruit, Sound}}
@misc{doe2010, author = {Doe, John}, title = {Other Things}, howpublished = {Leaflet}, year = 2010}
"""


def test_each_group_of_a_styled_listing_is_its_own_bibliography(cli, tmp_path):
    """APA's year suffixes tell apart the references of one bibliography: a listing by
    type or area has one per group, so a suffix never counts another group's works
    (and a work listed in two areas is no other work's "b" in either)."""
    lib = write(tmp_path / "grouped.bib", GROUPED)
    out = []
    for by in ("type", "area"):
        r = cli("list", "--style", "apa", "--by", by, "-l", lib)
        assert r.exit_code == 0, r.output
        out.append(r.stdout)
    golden("list_style_apa_groups.txt", "\n".join(out))
    by_type, by_area = ([ln.strip()[:19] for ln in o.splitlines() if ln.startswith("  ")]
                        for o in out)
    assert by_type == ["Smith, J. (2010a). ", "Smith, J. (2010b). ", "Smith, J. (2010). B",
                       "Doe, J. (2010). Oth"]
    assert by_area == ["Smith, J. (2010a). ", "Smith, J. (2010b). ", "Smith, J. (2010a). ",
                       "Smith, J. (2010b). ", "Doe, J. (2010). Oth"]


def test_styled_page_lists_a_year_in_the_styles_order_with_suffixes(cli, tmp_path):
    lib = write(tmp_path / "repeats.bib", REPEATS)
    page = export(cli, "html", "--style", "apa", "--by", "year", "-l", lib)
    cites = re.findall(r'<p class="cite">(.*?)</p>', page)
    assert [c[:18] for c in cites] == ["Doe, J. (2010). <s", "Smith, J. (2010a).",
                                       "Smith, J. (2010b).", "Smith, J. (2010c)."]


MAPPING = r"""
@book{series1999, author = {Doe, Jane and Roe, Richard}, title = {The {Fourier} Transform and {NASA}},
  subtitle = {An Introduction}, series = {Lecture Notes in Physics}, number = {42},
  publisher = {Springer and Wiley}, location = {Berlin and New York}, year = 1999,
  origdate = 1950, volumes = 3, edition = 2}
@article{german2001, author = {M{\"u}ller, Hans}, title = {{\"U}ber die Theorie der Zahlen},
  langid = {ngerman}, journal = {Math. Annalen}, year = 2001}
@inbook{chap2005, author = {Poe, Edgar}, bookauthor = {Editor, Book}, title = {A Chapter of {van der Waals}},
  booktitle = {The Big Book}, maintitle = {All the Books}, pages = {3--9}, year = 2005}
@article{math2003, author = {Lee, Ann}, title = {Sorting in $O(n \log n)$ Time}, journal = {J. Alg.},
  year = 2003}
"""


def test_csl_json_mapping_follows_biblatex_as_pandoc_reads_it(cli, tmp_path):
    lib = write(tmp_path / "m.bib", MAPPING)
    book, german, chap, math = json.loads(export(cli, "csl-json", "-l", lib))
    validate([book, german, chap, math])
    # braced words keep their case; a style may title-case the rest again
    assert book["title"] == "The Fourier transform and NASA: An introduction"
    assert book["collection-title"] == "Lecture notes in physics"
    assert book["collection-number"] == "42" and "number" not in book
    assert book["publisher"] == "Springer; Wiley"
    assert book["publisher-place"] == "Berlin; New York"
    assert book["original-date"] == {"date-parts": [[1950]]}
    assert book["number-of-volumes"] == "3"
    # not English: no sentence case, the language travels
    assert german["language"] == "de-DE" and german["title"] == "Über die Theorie der Zahlen"
    assert chap["container-author"] == [{"family": "Editor", "given": "Book"}]
    assert chap["container-title"] == "All the books"  # (volume-title: not in the schema)
    assert chap["title"] == 'A chapter of <span class="nocase">van der Waals</span>'
    assert math["title"] == 'Sorting in <span class="nocase">$O(n \\log n)$</span> time'


@pytest.mark.slow
def test_styled_math_is_mathml_and_keeps_its_case(cli, tmp_path):
    lib = write(tmp_path / "m.bib", MAPPING)
    page = export(cli, "html", "--style", "chicago", "-l", lib)
    cite = next(c for c in re.findall(r'<p class="cite">(.*?)</p>', page) if "Lee" in c)
    # Chicago title-cases the title; the formula is MathML, its letters untouched
    assert "Sorting in <math" in cite and "</math> Time" in cite
    assert "<mi>O</mi>" in cite and "$" not in cite
    check_html(page)


def test_without_pandoc_a_style_is_a_one_line_error(cli, library, tmp_path, monkeypatch):
    from pubcli.exporters import pandoc

    monkeypatch.setenv("PUBCLI_PANDOC", str(tmp_path / "no-pandoc-here"))
    pandoc.find.cache_clear()
    try:
        out = tmp_path / "page.html"
        for args in (("export", "html", "--style", "apa", "-o", out),
                     ("list", "--style", "ieee")):
            r = cli(*args, "-l", library)
            assert r.exit_code == 2, r.output
            assert r.stderr.startswith("error: citation styles need pandoc") and \
                'pip install "pubcli[styles]"' in r.stderr and r.stderr.count("\n") == 1
        assert not out.exists()
        # no style, no pandoc needed
        assert cli("export", "html", "-o", out, "-l", library).exit_code == 0
    finally:
        monkeypatch.delenv("PUBCLI_PANDOC")
        pandoc.find.cache_clear()


def _payload() -> tuple:
    from pubcli.store import cache

    [file] = _cache_files()
    return tuple(cache.frames(file.read_bytes()))


def _units() -> dict:
    return _payload()[1]


def test_formatted_years_are_cached_and_one_changed_entry_reformats_its_year(cli, tmp_path):
    from pubcli.store import atomic_write, cache

    two = ("@misc{a2020, author = {Doe, Jane}, title = {First Title}, year = 2020}\n"
           "@misc{b2019, author = {Roe, Rick}, title = {Older Title}, year = 2019}\n")
    lib = write(tmp_path / "l.bib", two)
    first = export(cli, "html", "--style", "apa", "-l", lib)
    assert "First title" in first
    units = _units()
    assert len(units) == 2  # one per year
    # a warm run takes the references from the cache: a doctored one shows (escaped)
    key = next(k for k, v in units.items() if v[0][0] == "a2020")
    head, payload = _payload()
    ident, before, title, after, end = payload[key][0]
    after = (*after[:-1], (after[-1][0] + " <b>cached</b>", *after[-1][1:]))
    payload[key] = [(ident, before, title, after, end)]
    atomic_write(_cache_files()[0], cache.frame(head) + cache.frame(payload))
    assert "&lt;b&gt;cached&lt;/b&gt;" in export(cli, "html", "--style", "apa", "-l", lib)
    # one entry changed: its year is formatted afresh, the other year's unit is reused
    write(lib, two.replace("First Title", "Second Title"))
    assert "Second title" in cli("list", "--style", "apa", "-l", lib).stdout  # sentence case
    after_units = _units()
    assert len(after_units) == 3 and set(units) < set(after_units)
    cli("list", "--style", "mla", "-l", lib)
    assert len(_cache_files()) == 2  # another style, its own cache file


def test_mla_page_writes_the_author_again_where_the_reference_before_is_not_theirs(cli, tmp_path):
    lib = write(tmp_path / "repeats.bib", REPEATS.replace(
        "publisher = {Fruit Press}, year = 2010}",
        "publisher = {Fruit Press}, year = 2010, keywords = {Fruit}}"))
    page = export(cli, "html", "--style", "mla", "--by", "year", "--by", "area", "-l", lib)
    year = page.split('id="by-year"')[1].split('id="by-area"')[0]
    area = page.split('id="by-area"')[1]
    # in the year's bibliography the second Smith reference is "———"
    assert [c[:12] for c in re.findall(r'<p class="cite">(.*?)</p>', year)] == \
        ["Doe, John. “", "Smith, Jane.", "———. <span c", "———. “<span "]
    # alone in the Fruit listing, the same reference names its author
    fruit_group = area.split('id="by-area-fruit"')[1].split("</section>")[0]
    [fruit] = re.findall(r'<p class="cite">(.*?)</p>', fruit_group)
    assert fruit.startswith("Smith, Jane. <span") and "Bananas" in fruit and "———" not in fruit


PREFIXES = r"""
@book{gennep, author = {van Gennep, Arnold}, title = {Les rites de passage}, year = 1909,
  publisher = {Nourry}, options = {useprefix}, langid = {french}}
@book{beethoven, author = {van Beethoven, Ludwig}, title = {Letters}, year = 1909,
  publisher = {Nourry}}
@article{onarxiv, author = {Baez, John}, title = {Higher algebra}, year = 2004,
  journal = {Theory and Applications of Categories}, eprint = {math/0307200},
  archiveprefix = {arXiv}}
@misc{said, author = {Mandel, Jan}, title = {A tutorial}, year = 2009,
  howpublished = {arXiv:0901.3725v1 [physics.ao-ph]}, eprint = {0901.3725},
  archiveprefix = {arXiv}}
@patent{horn, author = {Almendro, Jos{\'e} L.}, title = {Signalhorn}, number = {EU-29702195U},
  location = {countryfr and countryuk and countryde}, date = {1998-01-01}}
"""


def test_useprefix_and_arxiv_copies_follow_biblatex_and_say_things_once(cli, tmp_path):
    lib = write(tmp_path / "p.bib", PREFIXES)
    gennep, beethoven, onarxiv, said, horn = json.loads(export(cli, "csl-json", "-l", lib))
    # biblatex's country keys are the countries' names
    assert horn["publisher-place"] == "France; United Kingdom; Germany"
    # options = {useprefix}: "van" is part of the family name, sorted and printed first
    assert gennep["author"] == [{"family": "Gennep", "given": "Arnold",
                                 "non-dropping-particle": "van"}]
    assert beethoven["author"][0]["dropping-particle"] == "van"
    # the data keep the arXiv copy of a journal article; a reference says it once
    assert onarxiv["archive_location"] == "math/0307200"
    # an entry naming its id itself is no made-up preprint (no "arXiv" publisher again)
    assert said["type"] == "document" and said["publisher"] == "arXiv:0901.3725v1 [physics.ao-ph]"
    text = cli("list", "--format", "text", "--style", "apa", "-l", lib).stdout
    assert "van Gennep, A. (1909)" in text and "Beethoven, L. van. (1909)" in text
    assert "arXiv (math/0307200)" not in text and text.count("arXiv:0901.3725") == 1


def test_a_year_that_says_more_than_its_number_is_printed_as_written(cli, tmp_path):
    # BibTeX prints the year field as written: "c. 1934" stays, a range is a range,
    # a sort hack prints nothing
    lib = write(tmp_path / "y.bib", r"""
@book{circa, title = {A}, year = {c. 1934}}
@book{span, title = {B}, year = {1924--50}}
@book{hack, title = {C}, year = {{\noopsort{1973c}}1981}, month = nov}
@book{macro, title = {D}, year = {{\noopsort{1973a}}{\switchargs{--90}{1968}}}}
""")
    circa, span, hack, macro = json.loads(export(cli, "csl-json", "-l", lib))
    validate([circa, span, hack, macro])
    assert macro["issued"] == {"date-parts": [[1968]]}
    assert circa["issued"] == {"literal": "c. 1934"}
    assert span["issued"] == {"date-parts": [[1924], [1950]]}
    assert hack["issued"] == {"date-parts": [[1981, 11]]}


SENTENCE_CASE = r"""
@inproceedings{conf, author = {A. Author}, title = {Memory of J. W. T. Youngs},
  booktitle = {Graph Theory (Proc. Conf., Western Michigan Univ., Kalamazoo)}, year = 1972}
@inproceedings{proc, author = {A. Author}, title = {A Preface by Donald {E}. Knuth},
  booktitle = {Proc. Int. Conf. Commun.}, year = 1997}
@article{starts, author = {A. Author}, title = {Word. (Paren) Next: self-Made Words2 End},
  journal = {J}, year = 2000}
@misc{ftp, author = {A. Author}, title = {Mail}, year = 1990,
  url = {ftp://ftp.example.org/pub/mail.txt}}
@misc{mailto, author = {A. Author}, title = {Reports}, year = 1986,
  url = {mailto:reports@example.org}}
@misc{script, author = {A. Author}, title = {Bad}, year = 1986, url = {javascript:alert(1)}}
"""


def test_sentence_case_follows_pandocs_bibtex_reader(cli, tmp_path):
    lib = write(tmp_path / "s.bib", SENTENCE_CASE)
    conf, proc, starts, *_ = json.loads(export(cli, "csl-json", "-l", lib))
    # a comma after an abbreviation's dot ends the sentence start; the last word of a
    # title is no sentence start; after ". " a word is capitalised, also after "("
    assert conf["title"] == "Memory of j. W. T. youngs"
    assert conf["container-title"] == "Graph theory (proc. Conf., western michigan univ., kalamazoo)"
    assert proc["container-title"] == "Proc. Int. Conf. commun."
    assert proc["title"] == "A preface by donald E. knuth"
    assert starts["title"] == "Word. (Paren) next: Self-made Words2 end"


def test_a_reference_prints_an_ftp_or_mailto_address_but_no_script(cli, tmp_path):
    lib = write(tmp_path / "s.bib", SENTENCE_CASE)
    *_, ftp, mailto, script = json.loads(export(cli, "csl-json", "-l", lib))
    assert ftp["URL"] == "ftp://ftp.example.org/pub/mail.txt"
    assert mailto["URL"] == "mailto:reports@example.org"
    assert "URL" not in script


NAMES_AND_MONTHS = r"""
@book{goudy, author = {Frederic W. (Frederic William) Goudy}, title = {Typologia},
  year = 1977, month = nov # ", " # dec, publisher = {P}}
@article{dual, author = {M. (Michael) Crump}, title = {T}, journal = {J}, year = 1995,
  month = sep # "/" # oct}
@inproceedings{days, author = {A. Author}, title = {T}, booktitle = {B}, year = 1999,
  month = dec # " 5--9,"}
@article{one, author = {A. Author}, title = {T}, journal = {J}, year = 2005, month = {August}}
"""


def test_full_names_in_parentheses_and_months_as_bibtex_prints_them(cli, tmp_path):
    lib = write(tmp_path / "n.bib", NAMES_AND_MONTHS)
    goudy, dual, days, one = json.loads(export(cli, "csl-json", "-l", lib))
    # the names the initials stand for are printed after the given names, not abbreviated
    assert goudy["author"] == [{"family": "Goudy", "given": "Frederic W.",
                                "dropping-particle": "(Frederic William)"}]
    assert dual["author"] == [{"family": "Crump", "given": "M.", "dropping-particle": "(Michael)"}]
    # two months, or days of a month, are a date range
    assert goudy["issued"] == {"date-parts": [[1977, 11], [1977, 12]]}
    assert dual["issued"] == {"date-parts": [[1995, 9], [1995, 10]]}
    assert days["issued"] == {"date-parts": [[1999, 12, 5], [1999, 12, 9]]}
    assert one["issued"] == {"date-parts": [[2005, 8]]}


def test_a_parents_subtitle_goes_to_the_book_not_to_the_chapter(cli, tmp_path):
    lib = write(tmp_path / "x.bib", r"""
@incollection{part, author = {D. Klausner}, crossref = {whole}, pages = {403--425},
  title = {The Literature of Medieval Wales}}
@collection{whole, editor = {Z. Izydorczyk}, title = {The Medieval Gospel},
  subtitle = {Texts and Contexts}, shorttitle = {Gospel}, publisher = {MRTS}, year = 1997}
""")
    part = json.loads(export(cli, "csl-json", "-l", lib))[0]
    # biblatex: a collection's subtitle is its part's booksubtitle, its shorttitle stays
    assert part["title"] == "The literature of medieval wales"
    assert part["container-title"] == "The medieval gospel: Texts and contexts"
    assert "title-short" not in part
