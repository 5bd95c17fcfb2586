"""One rule, one home (issue 22, item 1): what a user met when a rule had copies that
disagreed, and a scan that fails when a second home appears."""

from __future__ import annotations

import json
import re

import pytest

from pubcli.schema.identifiers import arxiv_of, parse_arxiv
from pubcli.schema.values import web_link
from pubcli.text.fold import fold

from .conftest import write
from .test_layers import MODULES, _imports, _in

LIB = r"""@article{old2000,
  author = {Edward Witten},
  title = {Old-Style Identifiers},
  journal = {Nucl. Phys. B},
  year = {2000},
  eprint = {hep-th/9901001},
}

@misc{vaswani2017,
  author = {Ashish Vaswani},
  title = {Attention Is All You Need},
  howpublished = {arXiv preprint arXiv:1706.03762},
  year = {2017},
}

@article{sorensen2019,
  author = {S{\o}ren S{\o}rensen and Jens M{\"u}ller},
  title = {Folded Names},
  journal = {J. Tests},
  year = {2019},
  keywords = {Reseaux},
  note = {A private remark},
}
"""


@pytest.fixture
def lib(tmp_path):
    (tmp_path / "pubcli.toml").write_text('areas = ["Réseaux"]\nprivate_fields = ["note"]\n',
                                          encoding="utf-8")
    return write(tmp_path / "library.bib", LIB)


# ------------------------------------------------------------------ arXiv ids
@pytest.mark.parametrize("fields, want", [
    ({"eprint": "hep-th/9901001"}, "hep-th/9901001"),
    ({"eprint": "2101.06840v2", "archiveprefix": "arXiv"}, "2101.06840"),
    ({"eprint": "12345678", "eprinttype": "pubmed"}, ""),
    ({"journal": "arXiv preprint arXiv:1706.03762"}, "1706.03762"),
    ({"doi": "10.48550/arXiv.2101.06840"}, "2101.06840"),
    ({"url": "https://arxiv.org/pdf/2101.06840v3.pdf"}, "2101.06840"),
    ({"journal": "Phys. Rev. 1234.5678"}, ""),  # no arXiv named
])
def test_an_entrys_arxiv_id_is_found_in_one_place(fields, want):
    assert arxiv_of(fields) == want


def test_parse_arxiv_keeps_the_version_only_when_asked():
    assert parse_arxiv("arXiv:2101.06840v2") == "2101.06840"
    assert parse_arxiv("arXiv:2101.06840v2", version=True) == "2101.06840v2"
    assert parse_arxiv("https://arxiv.org/abs/math.AG/0601001") == "math.AG/0601001"
    assert parse_arxiv("10.1145/1234") is None


def test_page_and_csl_json_link_the_same_arxiv_ids(cli, lib, tmp_path):
    page = cli("export", "html", "-l", lib).stdout
    assert 'href="https://arxiv.org/abs/hep-th/9901001"' in page
    assert 'href="https://arxiv.org/abs/1706.03762"' in page
    items = {i["id"]: i for i in json.loads(cli("export", "csl-json", "-l", lib).stdout)}
    assert "hep-th/9901001" in json.dumps(items["old2000"])
    assert "1706.03762" in json.dumps(items["vaswani2017"])


# ------------------------------------------------------------------ private fields
def test_every_csl_json_output_drops_the_private_fields(cli, lib):
    exported = json.loads(cli("export", "csl-json", "-l", lib).stdout)
    listed = json.loads(cli("list", "--format", "csl-json", "-l", lib).stdout)
    for out in (exported, listed):
        assert "A private remark" not in json.dumps(out)
    assert {i["id"] for i in exported} == {i["id"] for i in listed}


# ------------------------------------------------------------------ the fold
def test_the_fold_writes_out_letters_unicode_does_not_decompose():
    assert fold("Sørensen") == fold("Sorensen") == "sorensen"
    assert fold("Straße") == "strasse" and fold("Łódź") == "lodz" and fold("Réseaux") == "reseaux"


def test_author_search_finds_a_latex_accented_name_typed_without_accents(cli, lib):
    for args in (("--author", "Sorensen"), ("--author", "Muller"), ("--search", "sorensen")):
        out = cli("list", "--format", "keys", "-l", lib, *args).stdout.split()
        assert out == ["sorensen2019"], args


def test_a_new_key_folds_as_search_does(cli, tmp_path):
    lib = write(tmp_path / "library.bib", "")
    cli("add", "-l", lib, "--type", "misc", "--title", "Paths", "--author", "Ørsted, Hans",
        "--year", "1820")
    assert lib.read_text(encoding="utf-8").startswith("@misc{orsted1820")


# ------------------------------------------------------------------ area names
def test_check_list_and_tag_agree_on_an_area_written_without_its_accent(cli, lib):
    result = cli("check", "-l", lib)
    assert "unknown-area" not in result.stdout + result.stderr
    assert cli("list", "--area", "Réseaux", "--format", "keys", "-l", lib).stdout.split() \
        == ["sorensen2019"]


def test_check_suggests_a_configured_area_for_a_typo(cli, lib):
    text = lib.read_text(encoding="utf-8").replace("{Reseaux}", "{Reseau}")
    lib.write_text(text, encoding="utf-8")
    result = cli("check", "-l", lib)
    assert "did you mean 'Réseaux'?" in result.stdout + result.stderr


# ------------------------------------------------------------------ links
def test_one_url_rule_for_every_link():
    assert web_link("https://example.org/a b") is None
    assert web_link('https://example.org/a"onmouseover') is None
    assert web_link("ftp://example.org/file") is None
    assert web_link("https://example.org/caf\u00e9") == "https://example.org/caf%C3%A9"
    assert web_link(r"\url{https://example.org/x}") == "https://example.org/x"


# ------------------------------------------------------------------ no second home
def _sources(pattern: str) -> dict[str, list[int]]:
    rx = re.compile(pattern)
    hits: dict[str, list[int]] = {}
    for name, path in MODULES.items():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if rx.search(line):
                hits.setdefault(name, []).append(n)
    return hits


@pytest.mark.parametrize("what, pattern, home", [
    ("an arXiv id pattern", r"\\d\{4\}\\\.\\d\{4,5\}", ("pubcli.schema.identifiers",)),
    ("a web-link pattern", r"https\?://\[\^", ("pubcli.schema.values",)),
    ("a did-you-mean cutoff", r"cutoff=\d", ("pubcli.text.similar",)),
])
def test_a_rule_has_one_home(what, pattern, home):
    hits = {m: lines for m, lines in _sources(pattern).items() if not _in(m, home)}
    assert hits == {}, f"{what} outside {home}: {hits}"


def test_only_pubcli_text_normalises_unicode():
    users = {m for m in MODULES if any(i == "unicodedata" for i, _ in _imports(m))}
    assert users and all(_in(m, ("pubcli.text",)) for m in users), users


def test_a_comma_list_of_keys_is_read_in_one_place():
    from pubcli.schema.keys import split_keys

    assert split_keys(" a, b,,c ") == ["a", "b", "c"] and split_keys(None) == []
    hits = {m: lines for m, lines in _sources(r"""split\(","\)""").items()}
    readers = {m for m, lines in hits.items()
               if any("k.strip()" in MODULES[m].read_text(encoding="utf-8").splitlines()[n - 1]
                      for n in lines)}
    assert readers <= {"pubcli.schema.keys"}, readers


def test_is_a_terminal_is_asked_in_one_place():
    hits = {m for m in _sources(r"\.isatty\(\)")}
    assert hits <= {"pubcli.cli.common"}, hits
