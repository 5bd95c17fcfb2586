"""pubcli add by identifier, against the loopback services (tests/test_online_server.py)."""

from __future__ import annotations

import pytest

from . import test_online_server
from .test_online_server import Reply, json_reply

web = test_online_server.web  # the loopback services fixture

DOI = "10.1145/3394486.3406703"


def crossref_work(**over):
    """A Crossref /works/{doi} answer, as the REST API documents it."""
    msg = {
        "DOI": DOI,
        "type": "proceedings-article",
        "title": ["DeepSpeed: System Optimizations Enable Training Deep Learning Models with "
                  "Over 100 Billion Parameters"],
        "author": [{"given": "Jeff", "family": "Rasley", "sequence": "first"},
                   {"given": "Samyam", "family": "Rajbhandari", "sequence": "additional"},
                   {"given": "Olatunji", "family": "Ruwase", "sequence": "additional"},
                   {"given": "Yuxiong", "family": "He", "sequence": "additional"}],
        "container-title": ["Proceedings of the 26th ACM SIGKDD International Conference on "
                            "Knowledge Discovery &amp; Data Mining"],
        "issued": {"date-parts": [[2020, 8, 23]]},
        "page": "3505-3506",
        "publisher": "ACM",
    }
    msg.update(over)
    return {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": msg}


@pytest.fixture
def empty_lib(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "library.bib").write_text("% my papers\n")
    (d / "pubcli.toml").write_text('areas = ["Artificial intelligence"]\n')
    return d / "library.bib"


def test_add_by_doi_maps_crossref_to_pubcli_conventions(cli, web, empty_lib):
    web.route("crossref", f"/works/{DOI}", crossref_work())
    r = cli("add", "--doi", DOI, "-a", "Artificial intelligence", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "rasley2020deepspeed\n"
    assert empty_lib.read_text() == """% my papers

@inproceedings{rasley2020deepspeed,
  author = {Rasley, Jeff and Rajbhandari, Samyam and Ruwase, Olatunji and He, Yuxiong},
  title = {{DeepSpeed}: System Optimizations Enable Training Deep Learning Models with Over 100 Billion Parameters},
  booktitle = {Proceedings of the 26th ACM SIGKDD International Conference on Knowledge Discovery \\& Data Mining},
  pages = {3505--3506},
  year = {2020},
  month = aug,
  doi = {10.1145/3394486.3406703},
  keywords = {Artificial intelligence},
}
"""


def test_add_by_doi_url_as_the_argument_and_options_override(cli, web, empty_lib):
    web.route("crossref", f"/works/{DOI}", crossref_work())
    r = cli("add", f"https://doi.org/{DOI}", "--venue", "KDD 2020", "--key", "deepspeed",
            "--dry-run", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert "@inproceedings{deepspeed," in r.stdout
    assert "booktitle = {KDD 2020}," in r.stdout
    assert empty_lib.read_text() == "% my papers\n"  # dry run


def test_a_doi_unknown_to_crossref_is_asked_of_doi_org(cli, web, empty_lib):
    csl = {"type": "dataset", "DOI": "10.5281/zenodo.1", "title": "A Dataset of Things",
           "author": [{"given": "Åsa", "family": "Ødegård"}],
           "issued": {"date-parts": [[2023, 2]]}, "publisher": "Zenodo"}
    web.route("doi", "/10.5281/zenodo.1", json_reply(csl))
    r = cli("add", "10.5281/zenodo.1", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "odegard2023dataset\n"
    text = empty_lib.read_text()
    assert "author = {Ødegård, Åsa}," in text and "month = feb," in text
    (_, _, _, headers), = web.hits("doi")
    assert headers["Accept"] == "application/vnd.citationstyles.csl+json"


def test_a_doi_nobody_knows_is_one_error_and_nothing_is_written(cli, web, empty_lib):
    r = cli("add", "--doi", "10.9999/nothing", "-l", empty_lib)
    assert r.exit_code == 2
    assert r.stderr == "error: the DOI 10.9999/nothing is not registered (doi.org answered 404)\n"
    assert empty_lib.read_text() == "% my papers\n"


def test_missing_fields_in_the_answer_are_refused_like_a_normal_add(cli, web, empty_lib):
    web.route("crossref", f"/works/{DOI}", crossref_work(**{"container-title": []}))
    r = cli("add", "--doi", DOI, "-l", empty_lib)
    assert r.exit_code == 2
    assert "@inproceedings needs booktitle" in r.stderr and r.stderr.count("\n") == 1
    assert empty_lib.read_text() == "% my papers\n"
    r = cli("add", "--doi", DOI, "--venue", "KDD", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr


def test_malformed_json_is_one_error(cli, web, empty_lib):
    web.route("crossref", f"/works/{DOI}", Reply(200, '{"message": {"title": ["x"'))
    r = cli("add", "--doi", DOI, "-l", empty_lib)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "not valid JSON" in r.stderr
    assert r.stderr.count("\n") == 1


def test_a_timeout_is_one_error(cli, web, empty_lib, monkeypatch):
    monkeypatch.setenv("PUBCLI_HTTP_TIMEOUT", "0.2")
    web.route("crossref", f"/works/{DOI}", Reply(200, "{}", delay=1.0))
    r = cli("add", "--doi", DOI, "-l", empty_lib)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: Crossref did not answer within 0.2 s")
    assert empty_lib.read_text() == "% my papers\n"


def test_429_with_retry_after_then_success(cli, web, empty_lib):
    web.route("crossref", f"/works/{DOI}", Reply(429, "", {"Retry-After": "0.05"}),
              json_reply(crossref_work()))
    r = cli("add", "--doi", DOI, "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert len(web.hits("crossref")) == 2


def test_the_duplicate_guard_applies(cli, web, library):
    # the shipped library has ZeRO-Offload as arXiv 2101.06840
    web.route("arxiv", "/api/query", Reply(200, ARXIV_FEED), query={"id_list": "2101.06840"})
    before = library.read_bytes()
    r = cli("add", "--arxiv", "arXiv:2101.06840v2", "-l", library)
    assert r.exit_code == 2
    assert "looks like a duplicate of 'ren2021zerooffload'" in r.stderr
    assert library.read_bytes() == before


ARXIV_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"
      xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <title type="html">ArXiv Query: id_list=2101.06840</title>
  <opensearch:totalResults>1</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/abs/2101.06840v1</id>
    <updated>2021-01-18T02:48:29Z</updated>
    <published>2021-01-18T02:48:29Z</published>
    <title>ZeRO-Offload: Democratizing
  Billion-Scale Model Training</title>
    <summary>Large-scale model training has been a playing ground ...</summary>
    <author><name>Jie Ren</name></author>
    <author><name>Samyam Rajbhandari</name></author>
    <author><name>Reza Yazdani Aminabadi</name></author>
    <author><name>Olatunji Ruwase</name></author>
    <arxiv:primary_category term="cs.DC" scheme="http://arxiv.org/schemas/atom"/>
    <link href="http://arxiv.org/abs/2101.06840v1" rel="alternate" type="text/html"/>
  </entry>
</feed>
"""


def test_add_by_arxiv_id_is_a_misc_with_eprint(cli, web, empty_lib):
    web.route("arxiv", "/api/query", Reply(200, ARXIV_FEED), query={"id_list": "2101.06840"})
    r = cli("add", "https://arxiv.org/abs/2101.06840v1", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "ren2021zerooffload\n"
    assert "@misc{ren2021zerooffload,\n  author = {Ren, Jie and Rajbhandari, Samyam and " \
           "Aminabadi, Reza Yazdani and Ruwase, Olatunji},\n  title = {{ZeRO-Offload}: " \
           "Democratizing Billion-Scale Model Training},\n  year = {2021},\n  month = jan,\n" \
           "  eprint = {2101.06840},\n  archiveprefix = {arXiv},\n  primaryclass = {cs.DC},\n}" \
        in empty_lib.read_text()


def test_an_unknown_arxiv_id_is_one_error(cli, web, empty_lib):
    feed = ('<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
            "<id>http://arxiv.org/api/errors#incorrect_id_format_for_9999.99999</id>"
            "<title>Error</title><summary>incorrect id format</summary></entry></feed>")
    web.route("arxiv", "/api/query", Reply(200, feed))
    r = cli("add", "--arxiv", "9999.99999", "-l", empty_lib)
    assert r.exit_code == 2 and r.stderr == "error: arXiv does not know 9999.99999\n"


def test_add_by_isbn_from_open_library(cli, web, empty_lib):
    book = {"ISBN:9781467388153": {
        "title": "Deep Learning & Things", "subtitle": "A Primer",
        "authors": [{"url": "https://openlibrary.org/authors/OL1A", "name": "José Müller"}],
        "publishers": [{"name": "O'Reilly Media"}], "publish_date": "June 1, 2016",
        "number_of_pages": 300}}
    web.route("openlibrary", "/api/books", json_reply(book),
              query={"bibkeys": "ISBN:9781467388153"})
    r = cli("add", "--isbn", "978-1-4673-8815-3", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "muller2016deep\n"
    text = empty_lib.read_text()
    assert "@book{muller2016deep,\n  author = {Müller, José},\n" \
           "  title = {Deep Learning \\& Things: A Primer},\n  publisher = {O'Reilly Media},\n" \
           "  year = {2016},\n  month = jun,\n  isbn = {9781467388153},\n}" in text


def test_an_unknown_isbn_and_a_bad_isbn(cli, web, empty_lib):
    web.route("openlibrary", "/api/books", json_reply({}))
    r = cli("add", "--isbn", "9781467388153", "-l", empty_lib)
    assert r.exit_code == 2 and "Open Library does not know the ISBN 9781467388153" in r.stderr
    r = cli("add", "--isbn", "9781467388154", "-l", empty_lib)
    assert r.exit_code == 2 and "check digit" in r.stderr
    assert not web.hits("openlibrary", "/api/books")[1:]


def test_latex_specials_and_markup_in_the_answer(cli, web, empty_lib):
    web.route("crossref", "/works/10.1000/x_1", crossref_work(
        DOI="10.1000/x_1", type="journal-article",
        title=["Costs of 50% on <i>C#</i> &amp; $HOME_DIR {sets}"],
        author=[{"given": "Zoë", "family": "Brontë-Šimić"}, {"name": "The ATLAS Collaboration"}],
        **{"container-title": ["J. R&D"], "volume": "3", "issue": "2"}))
    r = cli("add", "--doi", "10.1000/x_1", "--dry-run", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert "author = {Brontë-Šimić, Zoë and {The ATLAS Collaboration}}," in r.stdout
    assert r"title = {Costs of 50\% on C\# \& \${HOME}\_{DIR} \{sets\}}," in r.stdout
    assert r"journal = {J. R\&D}," in r.stdout
    assert "doi = {10.1000/x_1}," in r.stdout
    assert "number = {2},\n  volume = {3}," in r.stdout


def test_one_identifier_at_a_time_and_a_doi_with_a_title_is_not_fetched(cli, web, empty_lib):
    r = cli("add", "--arxiv", "2101.06840", "--isbn", "9781467388153", "-l", empty_lib)
    assert r.exit_code == 2 and "give one identifier" in r.stderr
    r = cli("add", "--doi", DOI, "--title", "Mine", "--author", "A B", "--year", "2020",
            "-l", empty_lib)
    assert r.exit_code == 0 and web.requests == []
    r = cli("add", "not-an-id", "-l", empty_lib)
    assert r.exit_code == 2 and "is not a DOI, an arXiv id or an ISBN" in r.stderr


def test_arxiv_tex_math_in_titles_is_kept(cli, web, empty_lib):
    feed = ARXIV_FEED.replace("ZeRO-Offload: Democratizing\n  Billion-Scale Model Training",
                              r"Learning $\alpha$-Divergences in 50% of GPU Time")
    web.route("arxiv", "/api/query", Reply(200, feed))
    r = cli("add", "arXiv:2101.06840", "--dry-run", "-l", empty_lib)
    assert r.exit_code == 0, r.stderr
    assert r"title = {Learning $\alpha$-Divergences in 50\% of {GPU} Time}," in r.stdout
