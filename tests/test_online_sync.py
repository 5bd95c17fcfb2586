"""pubcli sync against the loopback DBLP, OpenAlex, ORCID and Crossref."""

from __future__ import annotations

from . import test_online_server
from .test_online_server import Reply, json_reply

web = test_online_server.web  # the loopback services fixture

ORCID_ID = "0000-0002-1825-0097"

# DBLP's person export (https://dblp.org/pid/251/3272.bib), in its own style.
DBLP_BIB = r"""@inproceedings{DBLP:conf/iclr/WangQJHRRYYH24,
  author       = {Guanhua Wang and
                  Heyang Qin and
                  Sam Ade Jacobs and
                  Connor Holmes and
                  Samyam Rajbhandari and
                  Olatunji Ruwase and
                  Feng Yan and
                  Lei Yang and
                  Yuxiong He},
  title        = {ZeRO++: Extremely Efficient Collective Communication for Giant Model
                  Training},
  booktitle    = {The Twelfth International Conference on Learning Representations,
                  {ICLR} 2024, Vienna, Austria, May 7-11, 2024},
  publisher    = {OpenReview.net},
  year         = {2024},
  url          = {https://openreview.net/forum?id=gx2BT0a9MQ},
  timestamp    = {Wed, 07 Aug 2024 17:11:53 +0200},
  biburl       = {https://dblp.org/rec/conf/iclr/WangQJHRRYYH24.bib},
  bibsource    = {dblp computer science bibliography, https://dblp.org}
}

@article{DBLP:journals/corr/abs-2101-06840,
  author       = {Jie Ren and
                  Samyam Rajbhandari and
                  Reza Yazdani Aminabadi and
                  Olatunji Ruwase and
                  Shuangyan Yang and
                  Minjia Zhang and
                  Dong Li and
                  Yuxiong He},
  title        = {ZeRO-Offload: Democratizing Billion-Scale Model Training},
  journal      = {CoRR},
  volume       = {abs/2101.06840},
  year         = {2021},
  url          = {https://arxiv.org/abs/2101.06840},
  eprinttype    = {arXiv},
  eprint       = {2101.06840},
  timestamp    = {Thu, 21 Jan 2021 14:42:30 +0100},
  biburl       = {https://dblp.org/rec/journals/corr/abs-2101-06840.bib},
  bibsource    = {dblp computer science bibliography, https://dblp.org}
}

@inproceedings{DBLP:conf/usenix/RenRARYZ0H21,
  author       = {Jie Ren and
                  Samyam Rajbhandari and
                  Reza Yazdani Aminabadi and
                  Olatunji Ruwase and
                  Shuangyan Yang and
                  Minjia Zhang and
                  Dong Li 0001 and
                  Yuxiong He},
  title        = {ZeRO-Offload: Democratizing Billion-Scale Model Training},
  booktitle    = {2021 {USENIX} Annual Technical Conference, {USENIX} {ATC} 2021, July
                  14-16, 2021},
  pages        = {551--564},
  publisher    = {{USENIX} Association},
  year         = {2021},
  url          = {https://www.usenix.org/conference/atc21/presentation/ren-jie},
  timestamp    = {Mon, 20 Nov 2023 08:59:59 +0100},
  biburl       = {https://dblp.org/rec/conf/usenix/RenRARYZ0H21.bib},
  bibsource    = {dblp computer science bibliography, https://dblp.org}
}

@inproceedings{DBLP:conf/kdd/RasleyRRH20,
  author       = {Jeff Rasley and
                  Samyam Rajbhandari and
                  Olatunji Ruwase and
                  Yuxiong He},
  title        = {DeepSpeed: System Optimizations Enable Training Deep Learning Models
                  with Over 100 Billion Parameters},
  booktitle    = {{KDD} '20: The 26th {ACM} {SIGKDD} Conference on Knowledge Discovery
                  and Data Mining, Virtual Event, CA, USA, August 23-27, 2020},
  pages        = {3505--3506},
  publisher    = {{ACM}},
  year         = {2020},
  url          = {https://doi.org/10.1145/3394486.3406703},
  doi          = {10.1145/3394486.3406703},
  timestamp    = {Fri, 09 Apr 2021 18:47:35 +0200},
  biburl       = {https://dblp.org/rec/conf/kdd/RasleyRRH20.bib},
  bibsource    = {dblp computer science bibliography, https://dblp.org}
}

@article{DBLP:journals/corr/abs-2404-99999,
  author       = {S{\'{e}}bastien Bubeck and
                  Olatunji Ruwase},
  title        = {Phi-4 at Scale: {R\&D} Notes},
  journal      = {CoRR},
  volume       = {abs/2404.99999},
  year         = {2024},
  eprinttype    = {arXiv},
  eprint       = {2404.99999}
}
"""


def openalex_work(wid, title, doi=None, year=2020, date=None, kind="article", source=None,
                  authors=(), biblio=None, landing=None):
    """An OpenAlex work object (https://docs.openalex.org/api-entities/works/work-object)."""
    return {
        "id": f"https://openalex.org/{wid}", "doi": f"https://doi.org/{doi}" if doi else None,
        "title": title, "display_name": title, "publication_year": year,
        "publication_date": date or f"{year}-01-01", "type": kind,
        "authorships": [{"author_position": "first" if i == 0 else "middle",
                         "author": {"id": f"https://openalex.org/A{i}", "display_name": a},
                         "raw_author_name": a} for i, a in enumerate(authors)],
        "primary_location": {"landing_page_url": landing,
                             "source": source and {"display_name": source[0],
                                                   "type": source[1]}},
        "biblio": biblio or {"volume": None, "issue": None, "first_page": None,
                             "last_page": None},
        "locations": [],
    }


OPENALEX_PAGE_1 = {
    "meta": {"count": 3, "per_page": 200, "next_cursor": "IlsxNjA5MzcyODAwMDAwLCAnaHR0cHM6"},
    "results": [
        openalex_work("W3080310498", "DeepSpeed: System Optimizations Enable Training Deep "
                      "Learning Models with Over 100 Billion Parameters",
                      doi="10.1145/3394486.3406703", date="2020-08-20",
                      source=("Knowledge Discovery and Data Mining", "conference"),
                      authors=["Jeff Rasley", "Samyam Rajbhandari", "Olatunji Ruwase",
                               "Yuxiong He"],
                      biblio={"volume": None, "issue": None, "first_page": "3505",
                              "last_page": "3506"}),
        openalex_work("W4200000001", "Scheduling &amp; Caching for <i>Sparse</i> Models",
                      doi="10.1000/j.sched.2022", year=2022, date="2022-03-15",
                      source=("Journal of Systems & Software", "journal"),
                      authors=["Zoë Ødegård", "Olatunji Ruwase", "Ludwig van Beethoven"],
                      biblio={"volume": "187", "issue": "4", "first_page": "111",
                              "last_page": "130"}),
    ],
}
OPENALEX_PAGE_2 = {
    "meta": {"count": 3, "per_page": 200, "next_cursor": None},
    "results": [openalex_work("W4200000002", None, year=2023, authors=["Olatunji Ruwase"])],
}

ORCID_WORKS = {
    "last-modified-date": {"value": 1700000000000},
    "group": [
        {"external-ids": {"external-id": [
            {"external-id-type": "doi", "external-id-value": "10.1145/3394486.3406703",
             "external-id-relationship": "self"}]},
         "work-summary": [{
             "put-code": 81234567, "type": "conference-paper",
             "title": {"title": {"value": "DeepSpeed: System Optimizations Enable Training "
                                          "Deep Learning Models with Over 100 Billion "
                                          "Parameters"}},
             "publication-date": {"year": {"value": "2020"}, "month": {"value": "08"}},
             "journal-title": {"value": "KDD '20"},
             "external-ids": {"external-id": [
                 {"external-id-type": "doi", "external-id-value": "10.1145/3394486.3406703",
                  "external-id-relationship": "self"}]}}]},
        {"external-ids": {"external-id": []},
         "work-summary": [{
             "put-code": 99887766, "type": "conference-paper",
             "title": {"title": {"value": "Lifeguards on Many Cores: A Retrospective"}},
             "publication-date": {"year": {"value": "2019"}, "month": None},
             "journal-title": {"value": "Workshop on Runtime Checking"},
             "external-ids": {"external-id": []}}]},
    ],
}
ORCID_WORK_DETAIL = {
    "put-code": 99887766,
    "title": {"title": {"value": "Lifeguards on Many Cores: A Retrospective"}},
    "contributors": {"contributor": [
        {"credit-name": {"value": "Olatunji Ruwase"}, "contributor-attributes": None},
        {"credit-name": {"value": "Phillip B. Gibbons"}}]},
}


def serve_all(web):
    web.route("dblp", "/pid/251/3272.bib", Reply(200, DBLP_BIB, {"Content-Type": "text/plain"}))
    web.route("openalex", "/works", json_reply(OPENALEX_PAGE_1), query={"cursor": "*"})
    web.route("openalex", "/works", json_reply(OPENALEX_PAGE_2),
              query={"cursor": OPENALEX_PAGE_1["meta"]["next_cursor"]})
    web.route("orcid", f"/v3.0/{ORCID_ID}/works", json_reply(ORCID_WORKS))
    # ORCID's bulk read of the works no other source describes
    web.route("orcid", f"/v3.0/{ORCID_ID}/works/99887766",
              json_reply({"bulk": [{"work": ORCID_WORK_DETAIL}]}))


ALL = ("--dblp", "251/3272", "--openalex", "A5023888391", "--orcid", ORCID_ID)


def test_sync_dry_run_shows_what_would_be_added_and_gained(cli, web, library):
    serve_all(web)
    before = library.read_bytes()
    r = cli("sync", *ALL, "-l", library)
    assert r.exit_code == 0, r.stderr
    assert library.read_bytes() == before
    out = r.stdout
    assert "would add 4 entries:" in out
    assert "  + rasley2020deepspeed: DeepSpeed: System Optimizations Enable Training Deep " \
           "Learning Models with Over 100 Billion Parameters [DBLP, OpenAlex, ORCID]" in out
    assert "  + odegard2022scheduling: Scheduling & Caching for Sparse Models [OpenAlex]" in out
    assert "  + ruwase2019lifeguards: Lifeguards on Many Cores: A Retrospective [ORCID]" in out
    assert "  + bubeck2024phi4: Phi-4 at Scale: R&D Notes [DBLP]" in out
    assert "  ~ wang2024zero: dblp" in out
    assert "  ~ ren2021zerooffload: dblp" in out
    assert "2 of the 7 works found are already in the library" in out
    assert "not added: @misc needs title" in r.stderr  # the untitled OpenAlex work
    assert "'pubcli update ren2021zerooffload' upgrades the preprint" in r.stderr
    assert "pass --apply to write" in r.stderr


def test_sync_apply_writes_the_conventions_and_a_second_run_adds_nothing(cli, web, library):
    serve_all(web)
    before = library.read_text()
    r = cli("sync", *ALL, "--apply", "-a", "Systems and networking", "-l", library)
    assert r.exit_code == 0, r.stderr
    text = library.read_text()
    assert text.startswith(before.split("@inproceedings{wang2024zero,")[0])
    assert """@inproceedings{rasley2020deepspeed,
  author = {Rasley, Jeff and Rajbhandari, Samyam and Ruwase, Olatunji and He, Yuxiong},
  title = {{DeepSpeed}: System Optimizations Enable Training Deep Learning Models with Over 100 Billion Parameters},
  booktitle = {{KDD} '20: The 26th {ACM} {SIGKDD} Conference on Knowledge Discovery and Data Mining, Virtual Event, CA, USA, August 23-27, 2020},
  pages = {3505--3506},
  year = {2020},
  month = aug,
  doi = {10.1145/3394486.3406703},
  dblp = {conf/kdd/RasleyRRH20},
  openalex = {W3080310498},
  orcid-put-code = {81234567},
  keywords = {Systems and networking},
}""" in text
    assert """@article{odegard2022scheduling,
  author = {Ødegård, Zoë and Ruwase, Olatunji and van Beethoven, Ludwig},
  title = {Scheduling \\& Caching for Sparse Models},
  journal = {Journal of Systems \\& Software},
  number = {4},
  volume = {187},
  pages = {111--130},
  year = {2022},
  month = mar,
  doi = {10.1000/j.sched.2022},
  openalex = {W4200000001},
  keywords = {Systems and networking},
}""" in text
    # DBLP's S{\'{e}}bastien takes the spelling the library already gives him
    assert "author = {Bubeck, S{\\'e}bastien and Ruwase, Olatunji}," in text
    assert "title = {Phi-4 at Scale: {R\\&D} Notes}," in text
    assert "author = {Ruwase, Olatunji and Gibbons, Phillip B.}," in text
    assert "  archiveprefix = {arXiv},\n  dblp = {conf/iclr/WangQJHRRYYH24},\n" \
           "  keywords = {Artificial intelligence},\n  featured = {true},\n}" in text
    # the upgraded-to entry of ZeRO-Offload gains the DBLP id of its conference version
    assert "dblp = {conf/usenix/RenRARYZ0H21}" in text
    once = library.read_bytes()
    r = cli("sync", *ALL, "--apply", "-l", library)
    assert r.exit_code == 0, r.stderr
    assert library.read_bytes() == once
    assert "would add" not in r.stdout and "added" not in r.stdout
    assert "6 of the 7 works found are already in the library" in r.stdout


def test_sync_uses_the_ids_of_pubcli_toml(cli, web, library):
    serve_all(web)
    cfg = library.parent / "pubcli.toml"
    cfg.write_text(cfg.read_text() + '\ndblp = "https://dblp.org/pid/251/3272.html"\n')
    r = cli("sync", "-l", library)
    assert r.exit_code == 0, r.stderr
    assert "would add 2 entries:" in r.stdout
    assert {h[0] for h in web.requests} == {"dblp"}


def test_a_failing_source_is_a_warning_and_the_others_go_on(cli, web, library):
    serve_all(web)
    web.route("openalex", "/works", Reply(429, "", {"Retry-After": "0.01"}))
    web.route("orcid", f"/v3.0/{ORCID_ID}/works", Reply(200, "{not json"))
    r = cli("sync", *ALL, "-l", library)
    assert r.exit_code == 0, r.stderr
    assert "warning: OpenAlex (A5023888391): OpenAlex answered HTTP 429 after 4 tries" in r.stderr
    assert "warning: ORCID (0000-0002-1825-0097): " in r.stderr and "not valid JSON" in r.stderr
    assert "would add 2 entries:" in r.stdout


def test_every_source_failing_is_an_error_and_writes_nothing(cli, web, library):
    before = library.read_bytes()
    r = cli("sync", "--dblp", "1/2", "--orcid", ORCID_ID, "--apply", "-l", library)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: no source answered: DBLP (1/2): DBLP does not know")
    assert r.stderr.count("\n") == 1
    assert library.read_bytes() == before


def test_bad_ids_and_no_ids(cli, web, library):
    r = cli("sync", "--orcid", "0000-0002-1825-0098", "-l", library)
    assert r.exit_code == 2 and "is not an ORCID iD" in r.stderr
    r = cli("sync", "-l", library)
    assert r.exit_code == 2 and "nothing to sync" in r.stderr
    assert web.requests == []


def test_an_orcid_work_with_a_doi_takes_its_authors_from_crossref(cli, web, tmp_path):
    from .test_online_add import crossref_work

    lib = tmp_path / "library.bib"
    lib.write_text("")
    web.route("orcid", f"/v3.0/{ORCID_ID}/works", json_reply({"group": ORCID_WORKS["group"][:1]}))
    web.route("crossref", "/works/10.1145/3394486.3406703", crossref_work())
    r = cli("sync", "--orcid", f"https://orcid.org/{ORCID_ID}", "--apply", "-l", lib)
    assert r.exit_code == 0, r.stderr
    text = lib.read_text()
    assert "author = {Rasley, Jeff and Rajbhandari, Samyam and Ruwase, Olatunji and He, " \
           "Yuxiong}," in text
    assert "orcid-put-code = {81234567}," in text
    assert not [h for h in web.hits("orcid") if "81234567" in h[1]]


def test_dblp_editors_are_kept_for_edited_volumes_only(cli, web, tmp_path):
    lib = tmp_path / "library.bib"
    lib.write_text("")
    bib = r"""@proceedings{DBLP:conf/x/2019,
  editor       = {Olatunji Ruwase and J{\"{u}}rgen M{\"{u}}ller},
  title        = {Proceedings of the Workshop on Things},
  publisher    = {{ACM}},
  year         = {2019}
}

@inproceedings{DBLP:conf/x/Ruwase19,
  author       = {Olatunji Ruwase},
  editor       = {Olatunji Ruwase and J{\"{u}}rgen M{\"{u}}ller},
  title        = {A Paper in It},
  booktitle    = {Proceedings of the Workshop on Things},
  year         = {2019}
}
"""
    web.route("dblp", "/pid/251/3272.bib", Reply(200, bib))
    r = cli("sync", "--dblp", "251/3272", "--apply", "-l", lib)
    assert r.exit_code == 0, r.stderr
    text = lib.read_text()
    # DBLP's LaTeX names in the form of the (empty, so Unicode) library
    assert "@proceedings{ruwase2019proceedings,\n  editor = {Ruwase, Olatunji and " \
           "Müller, Jürgen},\n" in text
    paper = text[text.index("@inproceedings"):]
    assert "editor" not in paper and "author = {Ruwase, Olatunji}," in paper
    assert cli("sync", "--dblp", "251/3272", "--apply", "-n", "-l", lib).exit_code == 2
