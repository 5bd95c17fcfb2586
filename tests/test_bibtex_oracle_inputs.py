"""What pubcli writes from plain text, BibTeX reads back as the text given (issue 18).

The plain-text input paths: a web service's answer (``add --doi``, ``update``) and a
pasted listing (``import``). Their text may hold ``{ } % # \\ @ " & $ _ ~ ^``; the
real ``bibtex`` must read the new field whole, the text a reader then sees must be the
text given, and every other entry must read as before.
"""

from __future__ import annotations

import pytest

from pubcli.text.latex import to_text

from . import bibtex_oracle as oracle
from . import test_online_server
from .test_online_add import DOI, crossref_work

web = test_online_server.web  # the loopback services fixture

pytestmark = pytest.mark.skipif(not oracle.available(),
                                reason="the bibtex program is not installed (texlive-binaries)")

NASTY = [
    "A } Lone Closing Brace",
    "Sets {x} and } and {",
    "50% of #1 \\ Backslash @ Home",
    'The "Quoted" & $5 Money_Bags ~ ^Hats',
]
HEAD = "% my papers: {braces} and @ signs in a comment\n@string{acm = {ACM}}\n\n"
OTHER = ("@article{other,\n  author = {Knuth, Donald E.},\n  title = {The {\\TeX}book},\n"
         "  journal = acm,\n  year = 1984,\n}\n")


def shown(value: str | None) -> str:
    return " ".join(to_text(value or "").split())


@pytest.fixture
def lib(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "library.bib").write_text(HEAD + OTHER, encoding="utf-8")
    (d / "pubcli.toml").write_text('areas = ["Artificial intelligence"]\n')
    return d / "library.bib"


def readings(path):
    return oracle.read(path.read_text(encoding="utf-8")).by_key()


@pytest.mark.parametrize("title", NASTY)
def test_a_fetched_title_reads_back_whole_and_as_given(cli, web, lib, title):
    before = readings(lib)
    web.route("crossref", f"/works/{DOI}", crossref_work(title=[title]))
    r = cli("add", "--doi", DOI, "-a", "Artificial intelligence", "--force", "-l", lib)
    assert r.exit_code == 0, r.stderr
    key = r.stdout.strip()
    after = readings(lib)
    assert after.pop(key.lower()).fields["title"] is not None
    assert after == before  # nothing else BibTeX reads changed
    got = oracle.read(lib.read_text(encoding="utf-8")).by_key()[key.lower()]
    assert shown(got.fields["title"]) == " ".join(title.split())
    assert oracle.balanced(got.fields["title"])


@pytest.mark.parametrize("title", NASTY)
def test_a_pasted_listing_reads_back_whole_and_as_given(cli, lib, title):
    before = readings(lib)
    page = f"{title}\nJan Novak, Olatunji Ruwase\nMarch 2021\n"
    r = cli("import", "-", "-l", lib, input=page)
    assert r.exit_code == 0, r.output
    after = readings(lib)
    new = [e for k, e in after.items() if k not in before]
    assert len(new) == 1 and {k: after[k] for k in before} == before
    assert shown(new[0].fields["title"]) == " ".join(title.split())


def test_an_author_with_braces_from_a_service_stays_one_field(cli, web, lib):
    before = readings(lib)
    work = crossref_work(author=[{"given": "Jo}e", "family": "Sm{ith", "sequence": "first"}])
    web.route("crossref", f"/works/{DOI}", work)
    r = cli("add", "--doi", DOI, "--force", "-l", lib)
    assert r.exit_code == 0, r.stderr
    after = readings(lib)
    new = after.pop(r.stdout.strip().lower())
    assert after == before
    assert shown(new.fields["author"]).replace(" ", "") == "Sm{ith,Jo}e"
