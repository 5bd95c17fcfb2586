"""pubcli update against the loopback services."""

from __future__ import annotations

from .test_online_add import ARXIV_FEED, crossref_work
from . import test_online_server
from .test_online_server import Reply, json_reply

web = test_online_server.web  # the loopback services fixture

OFFLOAD_ATC = {
    "DOI": "10.5555/atc21.offload", "type": "proceedings-article", "score": 112.4,
    "title": ["ZeRO-Offload: Democratizing Billion-Scale Model Training"],
    "author": [{"given": "Jie", "family": "Ren"}, {"given": "Samyam", "family": "Rajbhandari"},
               {"given": "Reza Yazdani", "family": "Aminabadi"},
               {"given": "Olatunji", "family": "Ruwase"}, {"given": "Shuangyan", "family": "Yang"},
               {"given": "Minjia", "family": "Zhang"}, {"given": "Dong", "family": "Li"},
               {"given": "Yuxiong", "family": "He"}],
    "container-title": ["2021 USENIX Annual Technical Conference (USENIX ATC 21)"],
    "issued": {"date-parts": [[2021, 7]]}, "page": "551-564",
}
OTHER_HIT = {"DOI": "10.1000/other", "type": "journal-article", "score": 31.0,
             "title": ["Billion-Scale Similarity Search with GPUs"],
             "author": [{"given": "Jeff", "family": "Johnson"}],
             "container-title": ["IEEE Transactions on Big Data"],
             "issued": {"date-parts": [[2019]]}}


def items(*works):
    return json_reply({"status": "ok", "message-type": "work-list",
                       "message": {"total-results": len(works), "items": list(works)}})


def entry_text(text: str, key: str) -> str:
    start = text.index("@", text.index("{" + key + ",") - 20)
    return text[start:text.index("\n}\n", start) + 3]


def test_a_preprint_is_upgraded_to_its_proceedings_version_keeping_the_arxiv_id(
        cli, web, library):
    web.route("arxiv", "/api/query", Reply(200, ARXIV_FEED), query={"id_list": "2101.06840"})
    web.route("crossref", "/works", items(OFFLOAD_ATC, OTHER_HIT))
    before = library.read_text()
    r = cli("update", "ren2021zerooffload", "-l", library)
    assert r.exit_code == 0, r.stderr
    assert "~ ren2021zerooffload (line 62) [crossref]" in r.stdout
    assert "    - type = {misc}\n    + type = {inproceedings}" in r.stdout
    assert "    + booktitle = {2021 USENIX Annual Technical Conference (USENIX ATC 21)}" \
        in r.stdout
    assert "kept as written: author, month" in r.stdout
    after = library.read_text()
    old, new = entry_text(before, "ren2021zerooffload"), entry_text(after, "ren2021zerooffload")
    # the new fields go where they belong in the entry's order, not after keywords
    assert new == old.replace("@misc{", "@inproceedings{").replace(
        "Training},\n", "Training},\n"
        "  booktitle = {2021 USENIX Annual Technical Conference (USENIX ATC 21)},\n"
        "  pages = {551--564},\n").replace(
        "  month = jan,\n", "  month = jan,\n  doi = {10.5555/atc21.offload},\n")
    assert "eprint = {2101.06840}" in new and "archiveprefix = {arXiv}" in new
    assert after.replace(new, old) == before  # no other byte changed
    (_, _, query, _), = web.hits("crossref", "/works")
    assert query["query.bibliographic"].startswith("ZeRO-Offload") and query["query.author"] == "Ren"


def test_the_doi_arxiv_gives_leads_to_the_published_version(cli, web, library):
    feed = ARXIV_FEED.replace("</title>\n    <summary>",
                              "</title>\n    <arxiv:doi>10.5555/atc21.offload</arxiv:doi>\n"
                              "    <summary>", 1)
    web.route("arxiv", "/api/query", Reply(200, feed))
    web.route("crossref", "/works/10.5555/atc21.offload",
              json_reply({"status": "ok", "message": OFFLOAD_ATC}))
    r = cli("update", "ren2021zerooffload", "--dry-run", "-l", library)
    assert r.exit_code == 0, r.stderr
    assert "+ type = {inproceedings}" in r.stdout and "dry run" in r.stderr
    # no title query needed: the one request is the DOI's
    assert [q.get("filter") for _, _, q, _ in web.hits("crossref", "/works")] == \
        ["doi:10.5555/atc21.offload"]


def test_two_close_hits_are_not_picked(cli, web, library):
    a = {**OFFLOAD_ATC, "title": ["SimiGrad: Fine-Grained Adaptive Batching for Large Scale "
                                  "Training using Gradient Similarity Measurement"],
         "score": 60.2, "DOI": "10.1000/a"}
    b = {**a, "score": 58.9, "DOI": "10.1000/b"}
    web.route("crossref", "/works", items(a, b))
    before = library.read_bytes()
    r = cli("update", "qin2021simigrad", "-l", library)
    assert r.exit_code == 0, r.stderr
    assert "= qin2021simigrad (line 43): Crossref's two best hits are close " \
           "(scores 60.2 and 58.9); none was taken" in r.stdout
    assert library.read_bytes() == before


def test_a_clear_hit_the_matcher_rejects_is_not_taken(cli, web, library):
    web.route("crossref", "/works", items({**OTHER_HIT, "score": 90.0}))
    before = library.read_bytes()
    r = cli("update", "qin2021simigrad", "-l", library)
    assert r.exit_code == 0
    assert "is not the same work by the matcher" in r.stdout
    assert library.read_bytes() == before


def test_fill_from_the_doi_never_overwrites_unless_asked(cli, web, tmp_path):
    lib = tmp_path / "library.bib"
    lib.write_text("@article{mine,\n  title = {Deepspeed: my own title},\n"
                   "  author = {Rasley, Jeff},\n  journal = {KDD},\n  year = {2020},\n"
                   "  doi = {10.1145/3394486.3406703}\n}\n\n@misc{other, title = {Other}}\n")
    web.route("crossref", "/works/10.1145/3394486.3406703", crossref_work())
    r = cli("update", "mine", "-l", lib)
    assert r.exit_code == 0, r.stderr
    text = lib.read_text()
    assert "title = {Deepspeed: my own title}" in text
    assert ("  journal = {KDD},\n  pages = {3505--3506},\n  year = {2020},\n  month = aug,\n"
            "  doi = {10.1145/3394486.3406703}\n}") in text
    assert text.endswith("@misc{other, title = {Other}}\n")
    assert "kept as written: type, author, title" in r.stdout
    r = cli("update", "mine", "--overwrite", "title", "-l", lib)
    assert "title = {{DeepSpeed}: System Optimizations" in lib.read_text()


def test_network_failure_writes_nothing_and_is_one_line(cli, web, library, monkeypatch):
    monkeypatch.setenv("PUBCLI_HTTP_TIMEOUT", "0.2")
    web.route("crossref", "/works", Reply(200, "{}", delay=1.0))
    before = library.read_bytes()
    r = cli("update", "-s", "SimiGrad", "-l", library)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: Crossref did not answer within 0.2 s")
    assert r.stderr.count("\n") == 1
    assert library.read_bytes() == before


def test_an_unknown_key_or_a_bad_field_name_is_an_error(cli, web, library):
    r = cli("update", "nope", "-l", library)
    assert r.exit_code == 2 and "no entry with key 'nope'" in r.stderr
    r = cli("update", "qin2021simigrad", "--overwrite", "my field", "-l", library)
    assert r.exit_code == 2 and "--overwrite: 'my field' is not a field name" in r.stderr
    assert web.requests == []


def test_entries_sharing_a_key_are_each_updated_in_place(cli, web, tmp_path):
    lib = tmp_path / "library.bib"
    text = ("@article{dup,\n  author = {Rasley, Jeff},\n  title = {First},\n"
            "  journal = {J},\n  year = {2020},\n  doi = {10.1000/a},\n}\n\n"
            "@article{dup,\n  author = {Rasley, Jeff},\n  title = {Second},\n"
            "  journal = {J},\n  year = {2021},\n  doi = {10.1000/b},\n}\n")
    lib.write_text(text)
    for doi, page in (("10.1000/a", "1-2"), ("10.1000/b", "3-4")):
        web.route("crossref", f"/works/{doi}", crossref_work(DOI=doi, page=page,
                                                             type="journal-article"))
    r = cli("update", "dup", "-l", lib)
    assert r.exit_code == 0, r.stderr
    def updated(year, page):
        return (f"  journal = {{J}},\n  pages = {{{page}}},\n  year = {{{year}}},\n"
                "  month = aug,\n")
    assert lib.read_text() == text.replace("  journal = {J},\n  year = {2020},\n",
                                           updated(2020, "1--2")).replace(
        "  journal = {J},\n  year = {2021},\n", updated(2021, "3--4"))


def test_the_core_reports_progress_of_the_batches_and_the_entries(web, tmp_path):
    from pubcli import store
    from pubcli.online import update
    from pubcli.online.http import Client

    from .test_online_formats import PREPRINTS, atom_entry, feed

    lib = tmp_path / "library.bib"
    lib.write_text(PREPRINTS)
    web.route("arxiv", "/api/query", Reply(200, feed(*(atom_entry(f"1903.0000{i}", f"P {i}")
                                                       for i in range(1, 4)))))
    seen = []
    update.plan(Client(), store.load(lib).records, progress=lambda *a: seen.append(a))
    assert ("asking arXiv", 3, 3) in seen
    assert seen[-1] == ("updating", 3, 3)
    assert len(web.hits("arxiv")) == 1
