"""The duplicate matcher: hard cases, the shipped library, groups and merging."""

from __future__ import annotations

import math
import re

import pytest

from pubcli import dedupe, store
from pubcli.schema.model import Record

from .conftest import ROOT, SHIPPED, record, write

HARD = ROOT / "tests" / "data" / "dedupe" / "hard_cases.bib"


@pytest.fixture(scope="module")
def hard() -> dict[str, Record]:
    lib = store.load(HARD)
    assert not lib.problems
    return {r.key: r for r in lib.records}


def _cases(prefix: str) -> list[str]:
    lib = store.load(HARD)
    return sorted({r.key.rsplit("_", 1)[0] for r in lib.records if r.key.startswith(prefix)})


def rec(key: str, type_: str = "article", **fields: str) -> Record:
    return record(key, type_, **fields)


# ---------------------------------------------------------------- hard cases
@pytest.mark.parametrize("case", _cases("dup_"))
def test_hard_case_is_a_duplicate(hard, case):
    a, b = hard[f"{case}_a"], hard[f"{case}_b"]
    matches = dedupe.find_matches(a, list(hard.values()))
    assert [m.record.key for m in matches] == [b.key]
    assert matches[0].evidence and matches[0].rule
    # symmetric
    assert [m.record.key for m in dedupe.find_matches(b, list(hard.values()))] == [a.key]


@pytest.mark.parametrize("case", _cases("distinct_"))
def test_hard_case_is_not_a_duplicate(hard, case):
    a, b = hard[f"{case}_a"], hard[f"{case}_b"]
    assert dedupe.find_matches(a, list(hard.values())) == []
    assert dedupe.find_matches(b, list(hard.values())) == []
    verdict = dedupe.explain(a, b, records=list(hard.values()))
    assert not verdict.duplicate
    assert verdict.vetoes or verdict.score < dedupe.DEFAULT_THRESHOLD


def test_hard_cases_library_groups_exactly_the_duplicate_pairs(hard):
    groups = dedupe.find_groups(list(hard.values()))
    got = sorted(sorted(r.key for r in g.records) for g in groups)
    want = sorted([f"{c}_a", f"{c}_b"] for c in _cases("dup_"))
    assert got == want


def test_evidence_shows_each_fields_contribution(hard):
    records = list(hard.values())
    m = dedupe.find_matches(hard["dup_arxiv_b"], records)[0]
    fields = {e.split(" ")[0]: e for e in m.evidence}
    assert re.fullmatch(r"authors 3 of 3 \(\+\d+\.\d\)", fields["authors"])
    assert re.fullmatch(r"title 99 \(\+\d+\.\d\)", fields["title"])
    assert fields["year"].startswith("year 2020/2021 (")
    assert "authors" in m.rule and "title" in m.rule
    v = m.verdict
    assert sum(c.weight for c in v.contributions) == pytest.approx(
        v.weight - math.log2(dedupe.Matcher(records).model.prior
                             / (1 - dedupe.Matcher(records).model.prior)), abs=1e-6)
    doi = dedupe.find_matches(hard["dup_doi_a"], records)[0]
    assert doi.rule.startswith("same DOI") and doi.score > 99.9
    assert doi.evidence[0].startswith("doi 10.1111/ele.12345 (+")


# ---------------------------------------------------------------- the shipped library
def test_shipped_library_has_no_duplicate_group():
    lib = store.load(SHIPPED)
    assert dedupe.find_groups(lib.records) == []


def test_zero_family_and_specialized_hardware_papers_are_distinct():
    lib = store.load(SHIPPED)
    zero = [r for r in lib.records if "zero" in dedupe.normalise(r.title).split()[:1]]
    assert len(zero) == 4
    hardware = [r for r in lib.records if r.title.endswith("Specialized Hardware")
                or "Using Specialized Hardware" in r.title]
    assert len(hardware) == 2
    for family in (zero, hardware):
        for a in family:
            for b in family:
                if a is not b:
                    assert not dedupe.explain(a, b).duplicate, (a.key, b.key)


def test_shipped_entries_match_themselves_when_added_again():
    lib = store.load(SHIPPED)
    for r in lib.records:
        again = r.copy(key=r.key + "x")
        keys = [m.record.key for m in dedupe.find_matches(again, lib.records)]
        assert keys == [r.key]


# ---------------------------------------------------------------- find_matches details
def test_find_matches_strongest_first_and_skips_the_candidate_itself():
    base = dict(author="Smith, John and Lee, Ann", year="2020",
                title="Scalable Training of Mixture of Experts Models")
    a = rec("a", **base)
    b = rec("b", **{**base, "title": "Scalable Training of Mixture-of-Expert Models"})
    c = rec("c", **{**base, "doi": "10.1000/xyz"})
    cand = rec("new", **{**base, "doi": "10.1000/XYZ"})
    records = [a, b, c, cand]
    keys = [m.record.key for m in dedupe.find_matches(cand, records)]
    assert keys[0] == "c"  # same DOI: score 100, first
    assert set(keys) == {"a", "b", "c"}
    assert "new" not in keys


def test_find_matches_sees_records_appended_to_the_same_list():
    records = [rec("a", author="Kim, Dae", year="2020", title="Verified Garbage Collection "
                   "for Concurrent Runtimes")]
    new = rec("b", author="Dae Kim", year="2020",
              title="Verified garbage collection for concurrent runtimes")
    assert [m.record.key for m in dedupe.find_matches(new, records)] == ["a"]
    other = rec("c", author="Kim, D.", year="2021", title="Verified Garbage Collection for "
                "Concurrent Runtimes.")
    records.append(new)
    assert {m.record.key for m in dedupe.find_matches(other, records)} == {"a", "b"}


def test_threshold_is_the_match_probability_needed():
    a = rec("a", author="Kim, Dae", year="2020", title="Adaptive Query Processing in Streams")
    b = rec("b", author="Kim, Dae", year="2020", title="Adaptive Query Processing on Streams")
    p = dedupe.explain(a, b, records=[a, b]).score
    assert 50 < p < 100
    assert dedupe.find_matches(b, [a], threshold=p - 0.5)
    assert dedupe.find_matches(b, [a], threshold=min(100.0, p + 0.05)) == []
    # no threshold means DEFAULT_THRESHOLD
    assert bool(dedupe.find_matches(b, [a])) == (p >= dedupe.DEFAULT_THRESHOLD)


@pytest.mark.parametrize("a_authors,b_authors,shared", [
    ("Smith, John and Doe, Jane", "John Smith and Jane Doe", 2),
    ("Smith J, Doe JA, Lee C", "Smith, John and Doe, Jane A.", 2),
    ("Smith, J.; Doe, J. A.", "J. Smith and J. A. Doe", 2),
    ("Smith, J., Doe, J.", "Smith, John and Doe, Jane", 2),
    ("M{\\\"u}ller, J{\\\"o}rg", "Müller, Jörg", 1),
    ("Mueller, J", "Müller, Jörg", 1),
    ("van der Berg, Jan", "Jan van der Berg", 1),
    ("Smith, John", "Smith, Alice", 0),
    ("Smith JA et al.", "Smith, John and Other, Person", 1),
])
def test_author_forms(a_authors, b_authors, shared):
    a, b = dedupe.parse_authors(a_authors), dedupe.parse_authors(b_authors)
    assert dedupe.shared_authors(a, b) == shared


@pytest.mark.parametrize("raw,doi", [
    ("https://doi.org/10.1000/ABC.def", "10.1000/abc.def"),
    ("doi:10.1000/xyz.", "10.1000/xyz"),
    ("http://dx.doi.org/10.1016/S0140-6736(20)30183-5", "10.1016/s0140-6736(20)30183-5"),
    ("not a doi", ""),
])
def test_normalise_doi(raw, doi):
    assert dedupe.normalise_doi(raw) == doi


def test_arxiv_version_is_dropped_and_isbn10_equals_isbn13():
    a = rec("a", "misc", title="Neural Sorting Networks", eprint="2101.00001v2",
            archiveprefix="arXiv")
    b = rec("b", "misc", title="Neural sorting networks.",
            url="https://arxiv.org/abs/2101.00001v1")
    assert dedupe.explain(a, b).rule.startswith("same arXiv id")
    assert dedupe.normalise_isbn("0-306-40615-2") == dedupe.normalise_isbn("978-0-306-40615-7")
    c = rec("c", "book", title="Databases", isbn="0-306-40615-2", author="Kim, Dae")
    d = rec("d", "book", title="Databases", isbn="9780306406157", author="Kim, D.")
    assert dedupe.explain(c, d).rule.startswith("same ISBN")


def test_chapters_sharing_a_book_doi_are_not_merged():
    a = rec("a", "incollection", title="Graph Partitioning Heuristics",
            author="Kim, Dae", doi="10.1007/978-3-030-00001-1", year="2019")
    b = rec("b", "incollection", title="Streaming Join Algorithms",
            author="Kim, Dae", doi="10.1007/978-3-030-00001-1", year="2019")
    v = dedupe.explain(a, b)
    assert not v.duplicate
    assert not [c for c in v.contributions if c.field is dedupe.Field.DOI]  # says nothing


def test_preprint_doi_does_not_veto_the_published_version():
    a = rec("a", "misc", title="Efficient Transformers for Genomics", author="Kim, Dae",
            doi="10.48550/arXiv.2301.00001", year="2023")
    b = rec("b", title="Efficient Transformers for Genomics", author="Kim, Dae",
            doi="10.1093/bioinformatics/btad001", year="2023", journal="Bioinformatics")
    assert dedupe.explain(a, b).duplicate


def test_normalise():
    assert dedupe.normalise("M{\\\"u}ller &amp; the {GPU}--Wall: <i>TNF-α</i>") == \
        "muller and the gpu wall tnf alpha"
    assert dedupe.normalise("Über-Schätzung") == dedupe.normalise("{\\\"U}ber-Sch{\\\"a}tzung")
    assert dedupe.normalise("") == ""


# ---------------------------------------------------------------- merging
def test_merge_fills_unions_reports_and_records_ids():
    keep = rec("pub2021", "inproceedings", title="Contrastive Pre-training of Code Embeddings",
               author="Fischer, Lena", booktitle="ICLR", year="2021",
               keywords="Machine learning", ids="oldkey")
    pre = rec("arxiv2020", "misc", title="Contrastive Pretraining of Code Embeddings",
              author="Lena Fischer", year="2020", eprint="2011.01234", archiveprefix="arXiv",
              keywords="machine learning, Software engineering", ids="arxivold")
    result = dedupe.merge([pre, keep], "pub2021")
    f = result.record.fields
    assert result.record.key == "pub2021" and result.record.type == "inproceedings"
    assert f["eprint"] == "2011.01234" and f["archiveprefix"] == "arXiv"  # filled
    assert f["booktitle"] == "ICLR"
    assert f["keywords"] == "Machine learning, Software engineering"  # united, no repeat
    assert f["ids"] == "oldkey, arxiv2020, arxivold"
    assert result.dropped_keys == ["arxiv2020"]
    conflicts = {c.field: c for c in result.conflicts}
    assert set(conflicts) == {"title", "year", "@type"}  # author is the same person
    assert conflicts["year"].kept == "2021" and conflicts["year"].others == [("arxiv2020", "2020")]
    assert conflicts["@type"].others == [("arxiv2020", "misc")]
    assert ("eprint", "arxiv2020") in result.filled


def test_merge_of_equal_values_written_differently_is_no_conflict():
    a = rec("a", title="Sampling Bias", doi="10.1111/ELE.1", pages="12--19", author="Smith, J.")
    b = rec("b", title="Sampling bias.", doi="https://doi.org/10.1111/ele.1", pages="12-19",
            author="J. Smith")
    assert dedupe.merge([a, b], "a").conflicts == []


def test_merge_needs_a_key_of_the_group():
    with pytest.raises(ValueError):
        dedupe.merge([rec("a", title="x")], "zzz")


def test_suggest_keep_prefers_the_published_complete_entry(hard):
    assert dedupe.suggest_keep([hard["dup_arxiv_a"], hard["dup_arxiv_b"]]) is hard["dup_arxiv_b"]
    assert dedupe.suggest_keep([hard["dup_noauthor_b"], hard["dup_noauthor_a"]]) is \
        hard["dup_noauthor_a"]


def test_merge_round_trips_through_the_store(tmp_path):
    text = HARD.read_text(encoding="utf-8")
    path = write(tmp_path / "lib.bib", text)
    with store.transaction(path) as lib:
        group = next(g for g in dedupe.find_groups(lib.records) if "dup_typo_a" in g.keys)
        result = dedupe.merge(group.records, "dup_typo_a")
        lib.replace("dup_typo_a", lib["dup_typo_a"].copy(fields=result.record.fields))
        lib.remove("dup_typo_b")
    after = path.read_text(encoding="utf-8")
    before_lib, after_lib = store.loads(text), store.loads(after)
    # every other entry's text is byte-identical
    for r in before_lib.records:
        if r.key in ("dup_typo_a", "dup_typo_b"):
            continue
        assert store.source_text(after_lib, after_lib[r.key]) == store.source_text(before_lib, r)
    assert "dup_typo_b" not in after_lib
    merged = after_lib["dup_typo_a"]
    assert merged.fields["ids"] == "dup_typo_b"
    # the text outside the two entries is unchanged
    a0 = text.index("@inproceedings{dup_typo_a")
    b1 = text.index("}\n", text.index("@inproceedings{dup_typo_b")) + 2
    assert after.startswith(text[:a0])
    assert after.endswith(text[b1:])


# ---------------------------------------------------------------- groups
def test_transitive_matches_form_one_group_and_distinct_pairs_are_not_linked():
    base = dict(author="Kim, Dae and Park, Ji", year="2020")
    a = rec("a", title="Adaptive Query Processing for Data Streams", **base)
    b = rec("b", title="Adaptive query processing for data-streams", **base)
    c = rec("c", title="Adaptive Query Processing for Data Stream", **base)
    groups = dedupe.find_groups([a, b, c])
    assert [g.keys for g in groups] == [["a", "b", "c"]]
    assert len(groups[0].links) >= 2
    groups = dedupe.find_groups([a, b, c], distinct=[("A", "b"), ("c", "a"), ("b", "c")])
    assert groups == []


def test_a_chain_through_a_veto_is_cut_and_flagged_for_a_human():
    base = dict(author="Kim, Dae", year="2020", title="Verified Compilation of Smart Contracts")
    a = rec("a", doi="10.1000/aaa", **base)
    b = rec("b", **base)  # no DOI: matches both
    c = rec("c", doi="10.1000/ccc", **base)
    [g] = dedupe.find_groups([a, b, c])
    assert g.keys == ["a", "b"]  # c would bring two DOIs into one group
    assert len(g.conflicts) == 1
    assert g.conflicts[0].startswith("b ~ c left apart: a / c: not duplicates: match probability")
    assert g.conflicts[0].endswith("doi 10.1000/aaa / 10.1000/ccc (-8.3)")


def test_a_record_without_year_does_not_join_works_years_apart():
    base = dict(author="Kim, Dae and Park, Ji", title="Towards Verified Compilation of Smart "
                "Contracts")
    talk = rec("talk", year="2017", **base)
    undated = rec("undated", **base)
    paper = rec("paper", year="2020", **base)
    [g] = dedupe.find_groups([talk, undated, paper])
    assert len(g.keys) == 2 and "undated" in g.keys
    assert "talk / paper: not duplicates" in g.conflicts[0]


def test_many_works_sharing_a_generic_title_need_strong_evidence():
    eds = [rec(f"e{i}", title="Editorial", author=f"Person{i}, A.", year="2020",
               journal="J Sys") for i in range(5)]
    same = [rec("s1", title="Editorial", author="Fischer, L.", year="2020", journal="J Sys",
                volume="3", pages="1--2"),
            rec("s2", title="Editorial.", author="Lena Fischer", year="2020",
                journal="Journal of Sys", volume="3", pages="1-2")]
    groups = dedupe.find_groups(eds + same)
    assert [g.keys for g in groups] == [["s1", "s2"]]
    assert "pages" in groups[0].links[0].rule
    title = next(c for c in groups[0].links[0].verdict.contributions
                 if c.field is dedupe.Field.TITLE)
    assert title.note == "a generic title" and title.weight < 0


def test_progress_is_reported():
    calls = []
    dedupe.find_groups([rec("a", title="One Two Three Four"), rec("b", title="Five Six Seven")],
                       progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1]


# ---------------------------------------------------------------- normalising helpers
@pytest.mark.parametrize("raw,clean", [
    ("[Clinical aspects of the complement system]. [Japanese]",
     "Clinical aspects of the complement system"),
    ("Severe deficiency in children.[Erratum appears in J Pediatr. 2003 Jun",
     "Severe deficiency in children."),
    ("The [3+2] cycloaddition of nitrones", "The [3+2] cycloaddition of nitrones"),
    ("Short [x]", "Short [x]"),
    ("Gut microbiota predicts response in melanoma [Erratum]",
     "Gut microbiota predicts response in melanoma [Erratum]"),  # what the item is: kept
])
def test_database_notes_are_not_part_of_the_title(raw, clean):
    assert dedupe.strip_annotations(raw) == clean


@pytest.mark.parametrize("a,b,relation", [
    ("New England Journal of Medicine.", "N Engl J Med", "same"),
    ("Proc Natl Acad Sci U S A",
     "Proceedings of the National Academy of Sciences of the United States of America", "same"),
    ("BMJ", "British Medical Journal", "same"),
    ("IEEE TPAMI", "IEEE Transactions on Pattern Analysis and Machine Intelligence", "same"),
    ("Br J Haematol", "British Journal of Hematology", "same"),
    ("Thrombosis & Haemostasis", "Thrombosis and Haemostasis", "same"),
    ("The Lancet", "Lancet Oncology", "unclear"),
    ("arXiv preprint arXiv:2011.01234", "ICLR", "unclear"),
    ("Blood", "Journal of Clinical Oncology", "different"),
    ("Annals of Surgery", "Annals of Oncology", "different"),
])
def test_venue_relation(a, b, relation):
    assert dedupe.venue_relation(dedupe.normalise(a), dedupe.normalise(b)) == relation


@pytest.mark.parametrize("a,b", [
    ("Contrastive pre-training of code", "Contrastive pretraining of code"),
    ("Randomised trial of tumour growth", "Randomized trial of tumor growth"),
    ("Plasma exchange in atypical hemolytic uremic syndrome (aHUS) outcomes",
     "Plasma exchange in atypical hemolytic uremic syndrome outcomes"),
])
def test_spelling_compounds_and_acronyms_are_not_different_words(a, b):
    ta, tb = dedupe.normalise(a).split(), dedupe.normalise(b).split()
    assert dedupe._unmatched_words(ta, tb) == ([], [])


def test_notice_words_count_at_the_ends_of_a_title_not_in_the_middle():
    base = dict(author="Kim, Dae", year="2020", journal="J Sys")
    title = "Neural machine translation for low resource clinical notes"
    a = rec("a", title=title, **base)
    for notice in (title + " [Erratum]", title + " - Reply", "Retraction: " + title):
        assert not dedupe.explain(a, rec("b", title=notice, **base)).duplicate, notice
    typo = rec("c", title=title.replace("translation", "tranlsation"), **base)
    assert dedupe.explain(a, typo).duplicate


@pytest.mark.parametrize("a,b", [
    ("Surgery with drainage in adults", "Surgery without drainage in adults"),
    ("Outcomes in men after stroke", "Outcomes in women after stroke"),
])
def test_a_substituted_word_is_noticed(a, b):
    ta, tb = dedupe.normalise(a).split(), dedupe.normalise(b).split()
    ua, ub = dedupe._unmatched_words(ta, tb)
    assert ua and ub


def test_a_title_without_subtitle_does_not_join_a_series():
    base = dict(author="Weber, C. Q. and Barlow, P. N.", year="2008",
                journal="Clin Exp Immunol")
    head = "Translational mini-review series on kinase signalling in immunity"
    a = rec("a", title=head + ": Structural and functional correlations", **base)
    b = rec("b", title=head + ": Genetics and disease associations", **base)
    c = rec("c", title=head, **base)
    assert dedupe.find_groups([a, b, c]) == []
    assert dedupe.find_matches(c, [a, b]) == []
    # with one subtitle only, the short title is that work
    assert [m.record.key for m in dedupe.find_matches(c, [a])] == ["a"]
