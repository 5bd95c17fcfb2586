"""What fetched entries keep, one test per documented source format: Crossref's
work JSON (article numbers, suffixes, LNCS chapters, proceedings), DataCite's CSL
JSON through doi.org (software: publisher, version, URL), arXiv's Atom feed
(primary class, withdrawn, journal_ref, many ids at once), OpenAlex's work object
(placeholder dates), DBLP's BibTeX (DOI case, LaTeX names) and ORCID's summaries
(TeX titles, the best source winning, --explain)."""

from __future__ import annotations

import pytest

from . import test_online_server
from .test_online_add import crossref_work
from .test_online_server import Reply, json_reply
from .test_online_sync import ORCID_ID, openalex_work

web = test_online_server.web  # the loopback services fixture


@pytest.fixture
def lib(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "library.bib").write_text("% my papers\n")
    (d / "pubcli.toml").write_text('areas = ["Physics"]\n')
    return d / "library.bib"


def entry(path, key):
    """The text of the entry whose key starts with ``key``."""
    import re

    text = path.read_text()
    m = re.search(r"@\w+\{" + re.escape(key), text)
    assert m, text
    return text[m.start():text.index("\n}", m.start()) + 2]


# ---------------------------------------------------------------- Crossref works
PRL = "10.1103/PhysRevLett.126.012345"


def test_an_article_number_is_the_pages_and_a_suffix_is_kept(cli, web, lib):
    web.route("crossref", f"/works/{PRL}", crossref_work(
        DOI=PRL.lower(), type="journal-article", title=["Light from Dark Matter"],
        author=[{"given": "Martin Luther", "family": "King", "suffix": "Jr.",
                 "sequence": "first"}, {"given": "Ann", "family": "Lee"}],
        **{"container-title": ["Physical Review Letters"], "article-number": "012345",
           "volume": "126", "issue": "1", "issued": {"date-parts": [[2021, 1]]}},
        page=None))
    r = cli("add", "--doi", PRL, "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert entry(lib, "king2021light") == """@article{king2021light,
  author = {King, Jr., Martin Luther and Lee, Ann},
  title = {Light from Dark Matter},
  journal = {Physical Review Letters},
  number = {1},
  volume = {126},
  pages = {012345},
  year = {2021},
  month = jan,
  doi = {10.1103/physrevlett.126.012345},
}"""


def test_a_date_known_to_the_year_has_no_month(cli, web, lib):
    web.route("crossref", f"/works/{PRL}", crossref_work(
        DOI=PRL, type="journal-article", issued={"date-parts": [[2021]]},
        **{"container-title": ["Physical Review Letters"]}))
    assert cli("add", "--doi", PRL, "-l", lib).exit_code == 0
    assert "year = {2021}" in lib.read_text() and "month" not in lib.read_text()


LNCS = "10.1007/978-3-030-58536-5_1"


def test_an_lncs_chapter_keeps_series_editors_isbn_and_publisher(cli, web, lib):
    web.route("crossref", f"/works/{LNCS}", crossref_work(
        DOI=LNCS.lower(), type="book-chapter", title=["Sparse Views of Things"],
        author=[{"given": "Ann", "family": "Lee"}],
        editor=[{"given": "Andrea", "family": "Vedaldi"}, {"given": "Horst",
                                                            "family": "Bischof"}],
        publisher="Springer International Publishing", page="1-17", volume="12346",
        ISBN=["9783030585358", "9783030585365"],
        issued={"date-parts": [[2020]]},
        **{"container-title": ["Computer Vision \u2013 ECCV 2020",
                               "Lecture Notes in Computer Science"],
           "isbn-type": [{"value": "9783030585365", "type": "electronic"},
                         {"value": "9783030585358", "type": "print"}]}))
    r = cli("add", "--doi", LNCS, "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert entry(lib, "lee2020sparse") == """@incollection{lee2020sparse,
  author = {Lee, Ann},
  editor = {Vedaldi, Andrea and Bischof, Horst},
  title = {Sparse Views of Things},
  booktitle = {Computer Vision \u2013 ECCV 2020},
  volume = {12346},
  pages = {1--17},
  publisher = {Springer International Publishing},
  year = {2020},
  doi = {10.1007/978-3-030-58536-5_1},
  isbn = {9783030585358},
  series = {Lecture Notes in Computer Science},
}"""


def test_proceedings_keep_their_editors_and_publisher(cli, web, lib):
    doi = "10.1145/3394486"
    web.route("crossref", f"/works/{doi}", crossref_work(
        DOI=doi, type="proceedings", author=None, title=["Proceedings of KDD 2020"],
        editor=[{"given": "Rajesh", "family": "Gupta"}], publisher="ACM",
        ISBN=["9781450379984"], issued={"date-parts": [[2020, 8, 23]]}, page=None))
    r = cli("add", "--doi", doi, "-l", lib, "--no-interactive")
    assert r.exit_code == 0, r.stderr
    text = lib.read_text()
    assert "editor = {Gupta, Rajesh}" in text and "publisher = {ACM}" in text
    assert "isbn = {9781450379984}" in text


# ---------------------------------------------------------------- DataCite via doi.org
ZENODO = "10.5281/zenodo.7654321"


def test_a_datacite_software_release_keeps_repository_version_and_url(cli, web, lib):
    # Crossref does not know it (404); doi.org answers DataCite's CSL JSON
    web.route("doi", f"/{ZENODO}", json_reply({
        "type": "software", "id": f"https://doi.org/{ZENODO.upper()}",
        "DOI": ZENODO.upper(), "URL": "https://zenodo.org/records/7654321",
        "title": "fastthing: a fast thing", "author": [{"family": "Lee", "given": "Ann"}],
        "publisher": "Zenodo", "issued": {"date-parts": [[2023, 5, 2]]},
        "version": "v1.2.3"}))
    r = cli("add", "--doi", ZENODO, "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert entry(lib, "lee2023fastthing") == """@misc{lee2023fastthing,
  author = {Lee, Ann},
  title = {fastthing: a fast thing},
  publisher = {Zenodo},
  year = {2023},
  month = may,
  doi = {10.5281/zenodo.7654321},
  url = {https://zenodo.org/records/7654321},
  version = {v1.2.3},
}"""


# ---------------------------------------------------------------- arXiv's Atom feed
def feed(*entries: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
            'xmlns:arxiv="http://arxiv.org/schemas/atom">\n' + "".join(entries) + "</feed>\n")


def atom_entry(aid: str, title: str, *, comment: str = "", doi: str = "",
               journal_ref: str = "", primary: str = "hep-th", summary: str = "Text.") -> str:
    extra = (f"<arxiv:comment>{comment}</arxiv:comment>" if comment else "") + \
        (f"<arxiv:doi>{doi}</arxiv:doi>" if doi else "") + \
        (f"<arxiv:journal_ref>{journal_ref}</arxiv:journal_ref>" if journal_ref else "")
    return (f"<entry><id>http://arxiv.org/abs/{aid}v2</id>"
            "<published>2019-03-04T10:00:00Z</published>"
            f"<title>{title}</title><summary>{summary}</summary>"
            "<author><name>Ann Lee</name></author>"
            f'<arxiv:primary_category term="{primary}" scheme="http://arxiv.org/schemas/atom"/>'
            f"{extra}</entry>")


def test_a_withdrawn_arxiv_paper_is_added_with_a_warning_and_its_primary_class(cli, web, lib):
    web.route("arxiv", "/api/query", Reply(200, feed(atom_entry(
        "1903.01234", "Strings Without Ends",
        comment="This paper has been withdrawn by the author due to an error in eq. 3"))))
    r = cli("add", "--arxiv", "1903.01234", "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert "arXiv marks 1903.01234 as withdrawn (This paper has been withdrawn" in r.stderr
    assert "primaryclass = {hep-th}" in lib.read_text()


PREPRINTS = "% preprints\n" + "".join(
    f"\n@misc{{p{i},\n  author = {{Lee, Ann}},\n  title = {{Paper Number {i}}},\n"
    f"  year = {{2019}},\n  eprint = {{1903.{i:05d}}},\n  archiveprefix = {{arXiv}},\n}}\n"
    for i in range(1, 4))


def test_update_asks_arxiv_once_for_many_ids_and_uses_journal_ref(cli, web, tmp_path):
    lib = tmp_path / "library.bib"
    lib.write_text(PREPRINTS)
    web.route("arxiv", "/api/query", Reply(200, feed(
        atom_entry("1903.00001", "Paper Number 1", doi="10.1000/J.ONE",
                   journal_ref="J. One 1 (2020) 1-10"),
        atom_entry("1903.00002", "Paper Number 2", journal_ref="Phys. Rev. D 76, 013009 (2007)"),
        atom_entry("1903.00003", "Paper Number 3"))))
    web.route("crossref", "/works/10.1000/j.one", crossref_work(
        DOI="10.1000/j.one", type="journal-article", title=["Paper Number 1"],
        author=[{"given": "Ann", "family": "Lee"}], issued={"date-parts": [[2020]]},
        **{"container-title": ["J. One"]}, page="1-10"))
    r = cli("update", "-l", lib)
    assert r.exit_code == 0, r.stderr
    (_, _, q, _), = web.hits("arxiv")
    assert q["id_list"] == "1903.00001,1903.00002,1903.00003" and q["max_results"] == "3"
    dois = [q["filter"] for _, _, q, _ in web.hits("crossref", "/works") if "filter" in q]
    assert dois == ["doi:10.1000/j.one"]
    text = lib.read_text()
    assert "@article{p1," in text and "journal = {J. One}" in text
    assert "note = {Phys. Rev. D 76, 013009 (2007)}" in entry(lib, "p2,")
    assert "kept as the note" in r.stdout


# ---------------------------------------------------------------- OpenAlex, DBLP, ORCID
def test_openalex_placeholder_dates_give_no_month(cli, web, lib):
    web.route("openalex", "/works", json_reply({"meta": {"next_cursor": None}, "results": [
        openalex_work("W1", "A Year Alone", doi="10.1000/a", year=2022, date="2022-01-01",
                      source=("J. Things", "journal"), authors=["Ann Lee"]),
        openalex_work("W2", "A Month Known", doi="10.1000/b", year=2022, date="2022-03-01",
                      source=("J. Things", "journal"), authors=["Ann Lee"])]}))
    r = cli("sync", "--openalex", "A5023888391", "--apply", "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert "month" not in entry(lib, "lee2022year")
    assert "month = mar" in entry(lib, "lee2022month")


def test_dblp_dois_in_one_form_and_names_in_the_library_form(cli, web, tmp_path):
    lib = tmp_path / "library.bib"
    lib.write_text("@misc{old, author = {Müller, Jürgen}, title = {Old}, year = {2001}}\n")
    web.route("dblp", "/pid/1/2.bib", Reply(200, r"""@inproceedings{DBLP:conf/x/M20,
  author = {J{\"{u}}rgen M{\"{u}}ller and Zo{\"{e}} Sch{\"{o}}n},
  title = {Vision Things},
  booktitle = {CVPR},
  year = {2020},
  doi = {10.1109/CVPR42600.2020.00001}
}
"""))
    r = cli("sync", "--dblp", "1/2", "--apply", "-l", lib)
    assert r.exit_code == 0, r.stderr
    text = lib.read_text()
    assert "author = {Müller, Jürgen and Schön, Zoë}" in text
    assert "doi = {10.1109/cvpr42600.2020.00001}" in text


ORCID_TEX = {"group": [{"work-summary": [{
    "put-code": 555, "type": "journal-article",
    "title": {"title": {"value": r"Sparse $\ell_1$ Recovery"}},
    "publication-date": {"year": {"value": "2021"}, "month": {"value": "12"}},
    "journal-title": {"value": "j. sparse"},
    "external-ids": {"external-id": [{"external-id-type": "doi",
                                      "external-id-value": "10.1000/SPARSE"}]}}]}]}


def test_with_orcid_alone_crossref_wins_field_by_field_and_explain_says_so(cli, web, lib):
    web.route("orcid", f"/v3.0/{ORCID_ID}/works", json_reply(ORCID_TEX))
    web.route("crossref", "/works/10.1000/sparse", crossref_work(
        DOI="10.1000/sparse", type="journal-article", title=["Sparse ℓ1 Recovery in Practice"],
        author=[{"given": "Ann", "family": "Lee"}], issued={"date-parts": [[2021, 12, 3]]},
        **{"container-title": ["Journal of Sparse Things"]}, page="5-9"))
    r = cli("sync", "--orcid", ORCID_ID, "--apply", "--explain", "-l", lib)
    assert r.exit_code == 0, r.stderr
    e = entry(lib, "lee2021sparse")
    assert "title = {Sparse ℓ1 Recovery in Practice}" in e
    assert "journal = {Journal of Sparse Things}" in e and "month = dec" in e
    assert "from Crossref: author, title, journal, pages, year, month, doi; " \
           "from ORCID: orcid-put-code" in r.stdout


def test_orcid_tex_is_not_escaped_twice(cli, web, lib):
    works = {"group": [{"work-summary": [dict(ORCID_TEX["group"][0]["work-summary"][0],
                                              **{"external-ids": {"external-id": []}})]}]}
    web.route("orcid", f"/v3.0/{ORCID_ID}/works", json_reply(works))
    web.route("orcid", f"/v3.0/{ORCID_ID}/works/555", json_reply({"bulk": [{"work": {
        "put-code": 555,
        "contributors": {"contributor": [{"credit-name": {"value": "Ann Lee"}}]}}}]}))
    r = cli("sync", "--orcid", ORCID_ID, "--apply", "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert r"title = {Sparse $\ell_1$ Recovery}" in lib.read_text()
    assert "textbackslash" not in lib.read_text()


def test_no_contact_address_is_said_once(cli, web, lib, monkeypatch):
    monkeypatch.delenv("PUBCLI_MAILTO")
    web.route("crossref", f"/works/{PRL}", crossref_work(DOI=PRL))
    r = cli("add", "--doi", PRL, "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.count("no contact address is set") == 1
    (_, _, q, h), = web.hits("crossref")
    assert "mailto" not in q and "mailto" not in h["User-Agent"]


def test_orcid_only_works_get_their_authors_in_one_bulk_read(cli, web, lib):
    summaries = [{"work-summary": [{
        "put-code": code, "type": "journal-article",
        "title": {"title": {"value": f"Work Number {code}"}},
        "publication-date": {"year": {"value": "2020"}},
        "journal-title": {"value": "J. Things"}, "external-ids": {"external-id": []}}]}
        for code in (11, 22, 33)]
    web.route("orcid", f"/v3.0/{ORCID_ID}/works", json_reply({"group": summaries}))
    web.route("orcid", f"/v3.0/{ORCID_ID}/works/11,22,33", json_reply({"bulk": [
        {"work": {"put-code": code, "contributors": {"contributor": [
            {"credit-name": {"value": f"Ann Lee{'' if code == 11 else ' Jr.'}"}}]}}}
        for code in (11, 22)] + [{"error": {"response-code": 404}}]}))
    r = cli("sync", "--orcid", ORCID_ID, "--apply", "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert len(web.hits("orcid")) == 2   # the summaries, then one bulk read
    text = lib.read_text()
    assert "author = {Lee, Ann}" in text and "author = {Lee, Jr., Ann}" in text
    assert "Work Number 33" not in text and "Work Number 33" in r.stderr  # no authors


@pytest.mark.parametrize("summary, comment, withdrawn", [
    ("This paper has been withdrawn by the authors.", "", True),
    ("Withdrawn.", "", True),
    ("We model how a drug that was withdrawn from the market ...", "12 pages", False),
    ("Text.", "withdrawn: a flaw in Lemma 2", True),
])
def test_withdrawn_is_read_from_the_comment_or_an_abstract_replaced_by_the_notice(
        summary, comment, withdrawn):
    from pubcli.online import arxiv

    body = feed(atom_entry("1903.01234", "T", comment=comment, summary=summary)).encode()
    pre = arxiv.parse(body, "1903.01234")
    assert pre.withdrawn is withdrawn
    assert any("withdrawn" in n for n in pre.found.notes) is withdrawn


def test_a_closing_brace_in_a_fetched_title_cannot_change_the_file(cli, web, lib):
    from pubcli import store

    web.route("crossref", f"/works/{PRL}", crossref_work(
        DOI=PRL, title=["Evil}, note = {pwned"],
        author=[{"given": "Ann", "family": "L}ee"}]))
    r = cli("add", "--doi", PRL, "-l", lib)
    assert r.exit_code == 0, r.stderr
    (rec,) = store.load(lib).records
    assert "note" not in rec.fields and "pwned" in rec.fields["title"]
    assert not store.load(lib).problems
