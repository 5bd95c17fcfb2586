"""The weighed-evidence matcher: estimated weights, term frequency, typed vetoes,
author lists in real formats, and groups that do not depend on the input order."""

from __future__ import annotations

import json
import random

import pytest

from pubcli import dedupe, store
from pubcli.dedupe import linking
from pubcli.dedupe.evidence import compare
from pubcli.dedupe.features import Features
from pubcli.dedupe.vetoes import VetoKind
from pubcli.dedupe.weights import prior_model
from pubcli.schema.model import Record

from .conftest import ROOT, record, write

HARD = ROOT / "tests" / "data" / "dedupe" / "hard_cases.bib"


def rec(key: str, type_: str = "article", **fields: str) -> Record:
    return record(key, type_, **fields)


def group_sets(groups) -> set[frozenset[str]]:
    return {frozenset(g.keys) for g in groups}


# ---------------------------------------------------------------- order
def _review_like(n: int, seed: int) -> list[Record]:
    """Journal records, a third of them twice (author format, case, page style changed)."""
    rng = random.Random(seed)
    words = ("stroke rehabilitation cognitive outcome trial randomized memory therapy "
             "patients aphasia motor recovery training effect function older adults").split()
    out = []
    for i in range(n):
        title = " ".join(rng.sample(words, 7)).capitalize()
        first, second = f"Name{i % 37}", f"Other{i % 11}"
        fields = dict(author=f"{first}, A. and {second}, B.", title=title,
                      journal=f"Journal {i % 5}", year=str(2000 + i % 15),
                      volume=str(i % 40 + 1), pages=f"{100 + i}-{110 + i}", number=str(1000 + i))
        out.append(rec(f"r{i}", **fields))
        if i % 3 == 0:
            dup = dict(fields, author=f"{first} A, {second} B", title=title.upper(),
                       pages=f"{100 + i}-{str(110 + i)[-2:]}", number=str(5000 + i))
            out.append(rec(f"r{i}d", **dup))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_groups_do_not_depend_on_the_input_order(seed):
    records = list(store.load(HARD).records) + _review_like(120, seed)
    want = group_sets(dedupe.find_groups(records))
    assert len(want) >= 40
    for shuffle in range(3):
        copy = list(records)
        random.Random(seed * 10 + shuffle).shuffle(copy)
        assert group_sets(dedupe.find_groups(copy)) == want


@pytest.mark.parametrize("seed", [1, 2])
def test_groups_do_not_depend_on_the_keys(seed, monkeypatch):
    """Same records under other keys (and in another order): the same groups. (The
    weights are estimated on a sample of the candidate pairs, here a small one, so
    that a sample drawn in an order that starts with the key shows.)"""
    monkeypatch.setattr(dedupe.matcher, "TRAINING_PAIRS", 60)
    records = list(store.load(HARD).records) + _review_like(120, seed)
    want = group_sets(dedupe.find_groups(records))
    assert len(want) >= 40
    rng = random.Random(seed)
    names = [f"x{n:04d}" for n in range(len(records))]
    for attempt in range(3):
        rng.shuffle(names)
        renamed = {r.key: name for r, name in zip(records, names, strict=True)}
        copy = [r.copy(key=renamed[r.key]) for r in records]
        if attempt:
            rng.shuffle(copy)
        back = {v: k for k, v in renamed.items()}
        got = {frozenset(back[k] for k in g) for g in group_sets(dedupe.find_groups(copy))}
        assert got == want


def test_a_shuffled_file_gives_the_same_groups_through_the_cli(cli, tmp_path):
    text = HARD.read_text(encoding="utf-8")
    blocks = ["@" + b for b in text.split("\n@")[1:]]
    random.Random(7).shuffle(blocks)
    a = write(tmp_path / "a.bib", text)
    b = write(tmp_path / "b.bib", "\n\n".join(blocks) + "\n")
    ga = {frozenset(g["keys"]) for g in json.loads(cli("dedupe", "--format", "json",
                                                       "-l", a).stdout)}
    gb = {frozenset(g["keys"]) for g in json.loads(cli("dedupe", "--format", "json",
                                                       "-l", b).stdout)}
    assert ga == gb and len(ga) >= 10


# ---------------------------------------------------------------- estimated weights
def test_a_field_that_differs_in_most_likely_pairs_ends_near_zero_weight():
    records = _review_like(150, 4)  # every duplicate has another record "number"
    model = dedupe.Matcher(records).model
    number_diff = model.weight(dedupe.Field.NUMBER, 1)
    assert -1.0 < number_diff <= 0.5
    assert model.weight(dedupe.Field.PAGES, 0) > 3  # pages still speak
    groups = dedupe.find_groups(records)
    assert len(groups) == 50 and all(len(g.records) == 2 for g in groups)
    note = next(c for c in groups[0].links[0].verdict.contributions
                if c.field is dedupe.Field.NUMBER).note
    assert note.startswith("differs in ") and note.endswith("of likely pairs in this library")


def test_a_small_library_keeps_the_prior_weights():
    a = rec("a", author="Kim, Dae", title="Verified Garbage Collection for Concurrent Runtimes",
            year="2020")
    b = rec("b", author="Dae Kim", title="Verified garbage collection for concurrent runtimes",
            year="2020")
    model = dedupe.Matcher([a, b]).model
    prior = prior_model()
    for f in dedupe.FIELDS:
        for k in range(len(dedupe.LEVELS[f])):
            assert abs(model.weight(f, k) - prior.weight(f, k)) < 1.5, (f, k)


def test_a_title_many_works_share_weighs_less_than_a_unique_one():
    eds = [rec(f"e{i}", title="Chair's Message", author=f"Person{i}, A.", year=str(2010 + i),
               journal="J Sys") for i in range(6)]
    unique = [rec("u1", title="Chair's message for the twentieth volume of systems letters",
                  author="Fischer, L.", year="2020"),
              rec("u2", title="Chair's message for the twentieth volume of systems letters",
                  author="Fischer, L.", year="2020")]
    m = dedupe.Matcher(eds + unique)
    common = m.explain(eds[0], eds[1])
    title = next(c for c in common.contributions if c.field is dedupe.Field.TITLE)
    assert title.note  # "6 different works have this title here" or "a short title"
    specific = m.explain(*unique)
    title2 = next(c for c in specific.contributions if c.field is dedupe.Field.TITLE)
    assert title2.weight > title.weight + 3
    assert Features(eds[0]).content_tokens == ["chair", "message"]  # "s" is no word


def test_recurring_columns_by_one_editor_in_adjacent_years_stay_apart():
    cols = [rec(f"c{y}", title="Book review column", author="Fischer, Lena", year=str(y),
                journal="SIGACT News", volume=str(y - 1969), number="2",
                pages=f"{10 + y % 7}--{12 + y % 7}") for y in range(2015, 2021)]
    assert dedupe.find_groups(cols) == []


# ---------------------------------------------------------------- vetoes are values
@pytest.mark.parametrize("ta,tb,kind", [
    ("Ventilation in pediatric sepsis: Part 1", "Ventilation in pediatric sepsis: Part 2",
     VetoKind.PART),
    ("Gut microbiota predicts response to immunotherapy",
     "Erratum: Gut microbiota predicts response to immunotherapy", VetoKind.NOTICE),
    ("Gut microbiota predicts response to immunotherapy",
     "Gut microbiota predicts response to immunotherapy: reply", VetoKind.NOTICE),
])
def test_decisive_differences_are_typed_vetoes(ta, tb, kind):
    a = rec("a", title=ta, author="Kim, Dae", year="2020", journal="J Sys")
    b = rec("b", title=tb, author="Kim, Dae", year="2020", journal="J Sys")
    v = dedupe.explain(a, b)
    assert not v.duplicate and [x.kind for x in v.vetoes] == [kind]


def test_different_volumes_of_a_book_and_editions_are_vetoes():
    a = rec("a", "book", title="Handbook of Graph Algorithms", author="Kim, Dae", year="2019",
            volume="1")
    b = rec("b", "book", title="Handbook of Graph Algorithms", author="Kim, Dae", year="2019",
            volume="2")
    assert [x.kind for x in compare(Features(a, 0), Features(b, 1)).vetoes] == \
        [VetoKind.BOOK_VOLUME]
    c = rec("c", "book", title="Handbook of Graph Algorithms", author="Kim, Dae", year="2019",
            edition="2")
    d = rec("d", "book", title="Handbook of Graph Algorithms", author="Kim, Dae", year="2019",
            edition="3")
    assert [x.kind for x in dedupe.explain(c, d).vetoes] == [VetoKind.EDITION]


# ---------------------------------------------------------------- real formats
@pytest.mark.parametrize("value,n", [
    ("Aha, D. W., Kibler, D., & Albert, M. K.", 3),
    ("Aha, D. W., Kibler, D., and Albert, M. K.", 3),
    ("David Aha, Dennis Kibler, and Marc Albert", 3),
    ("Aha DW, Kibler D, Albert MK", 3),
    ("Aha, David and Kibler, Dennis and Albert, Marc", 3),
])
def test_author_lists_in_citation_formats(value, n):
    people = dedupe.parse_authors(value)
    assert len(people) == n
    assert dedupe.shared_authors(people, dedupe.parse_authors(
        "Aha, David W. and Kibler, Dennis and Albert, Marc K.")) == n


@pytest.mark.parametrize("a,b", [
    ("Si Hyun, Kang", "Kang, S. H."),
    ("Ching-yi, Wu", "Wu, C. Y."),
    ("Si Hyun Kang, null", "Kang, S. H."),
    ("Jagadish, H.", "Jagdish, H."),
])
def test_swapped_given_and_family_names_and_typos_match(a, b):
    assert dedupe.shared_authors(dedupe.parse_authors(a), dedupe.parse_authors(b)) == 1


@pytest.mark.parametrize("a,b,shared", [
    ("S. Sarawagi and S. Thomas and R. Agrawal", "S. Sunita and T. Shiby and A. Rakesh", 3),
    ("Z. Li and K. Ross", "L. Zhe and R. Kenneth", 2),
    # one person is too little to read a list swapped; out of order is not a list read so
    ("H. Toivonen", "T. Hannu", 0),
    ("Z. Li and K. Ross", "R. Kenneth and L. Zhe", 0),
    ("J. Smith and A. Brown", "S. Jones and B. Miller", 0),
])
def test_a_list_written_with_every_name_swapped_is_the_same_people(a, b, shared):
    from pubcli.dedupe.people import swapped_shared

    pa, pb = dedupe.parse_authors(a), dedupe.parse_authors(b)
    assert swapped_shared(pa, pb) == shared
    title = "integrating mining with relational database systems"
    level = _level(rec("a", title=title, author=a), rec("b", title=title, author=b), "authors")
    assert (level in ("all", "all, 3+")) == bool(shared)


def test_author_order_is_ignored_but_noticed():
    a = rec("a", title="Complement inhibitor therapy in pediatric patients with aHUS",
            author="Moretti, G. and Gruber, R. and Rodin, N.", year="2011")
    b = rec("b", title="Complement inhibitor therapy in pediatric patients with aHUS",
            author="Gruber, R. and Rodin, N. and Moretti, G.", year="2011")
    c = next(c for c in dedupe.explain(a, b).contributions if c.field is dedupe.Field.AUTHORS)
    assert c.shown == "3 of 3, another first author" and c.weight > 0


@pytest.mark.parametrize("value,pages", [
    ("879-885", ("879", "885")), ("1445-9", ("1445", "1449")), ("e8-e9", ("e8", "e9")),
    ("S7-S11", ("s7", "s11")), ("pp. 12--19", ("12", "19")), ("c1804", ("c1804", "c1804")),
    ("215 p", None), ("Suppl-11", None), ("n/a", None),
])
def test_page_values_that_are_not_page_ranges_say_nothing(value, pages):
    assert dedupe.page_range(value) == pages


@pytest.mark.parametrize("raw", [
    "Aerobic exercise improves cognition after stroke [corrected]",
    "Aerobic exercise improves cognition after stroke (Structured abstract)",
    "Aerobic exercise improves cognition after stroke [Abstract]",
])
def test_database_notes_in_titles_are_dropped(raw):
    assert dedupe.strip_annotations(raw) == "Aerobic exercise improves cognition after stroke"


@pytest.mark.parametrize("a,b", [
    ("VLDB J.", "The VLDB Journal: the international journal on very large data bases"),
    ("SIGMOD Conference", "Proceedings of the 1998 ACM SIGMOD International Conference on "
                          "Management of Data"),
    ("Proc. of the 28th VLDB Conference", "VLDB"),
])
def test_venue_abbreviations_are_not_different_venues(a, b):
    assert dedupe.venue_relation(dedupe.normalise(a), dedupe.normalise(b)) != "different"


# ---------------------------------------------------------------- the CLI reports
def test_explain_says_why_with_each_fields_weight(cli, tmp_path):
    lib = write(tmp_path / "x.bib", HARD.read_text(encoding="utf-8"))
    r = cli("dedupe", "--explain", "dup_typo_a", "dup_typo_b", "-l", lib)
    assert r.exit_code == 0
    first, *rest = r.stdout.splitlines()
    assert first.startswith("dup_typo_a ~ dup_typo_b: duplicates: match probability ")
    assert any(line.strip().startswith("title 98 (+") for line in rest)
    assert any(line.strip().startswith("authors 2 of 2 (+") for line in rest)
    r = cli("dedupe", "--explain", "distinct_parts_a", "distinct_parts_b", "-l", lib)
    assert "different works: different numbers in the titles (1 / 2)" in r.stdout
    r = cli("dedupe", "--explain", "dup_typo_a", "nosuchkey", "-l", lib)
    assert r.exit_code == 2 and "no entry with key 'nosuchkey'" in r.stderr


def test_weights_prints_every_field_and_level(cli, tmp_path):
    lib = write(tmp_path / "x.bib", HARD.read_text(encoding="utf-8"))
    r = cli("dedupe", "--weights", "-l", lib)
    assert r.exit_code == 0
    assert r.stdout.startswith("weights estimated on ")
    rows = [line.split() for line in r.stdout.splitlines()[3:]]
    assert {row[0] for row in rows} == {f.value for f in dedupe.FIELDS}
    data = json.loads(cli("dedupe", "--weights", "--format", "json", "-l", lib).stdout)
    assert len(data["weights"]["levels"]) == sum(len(v) for v in dedupe.LEVELS.values())


def test_dry_run_has_the_short_flag_n(cli, tmp_path):
    lib = write(tmp_path / "x.bib", HARD.read_text(encoding="utf-8"))
    before = lib.read_bytes()
    r = cli("dedupe", "--merge", "--yes", "-n", "-l", lib)
    assert r.exit_code == 0 and "would merge" in r.stderr
    assert lib.read_bytes() == before


def test_merge_yes_plans_and_writes_under_one_lock(cli, tmp_path, monkeypatch):
    from pubcli import store as store_mod

    lib = write(tmp_path / "x.bib", HARD.read_text(encoding="utf-8"))
    loads: list[str] = []
    real_load = store_mod.load

    def counting_load(path, *args, **kwargs):
        loads.append(str(path))
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(store_mod, "load", counting_load)
    r = cli("dedupe", "--merge", "--yes", "-l", lib)
    assert r.exit_code == 0, r.output
    assert loads == [str(lib)]  # read once, inside the transaction
    assert cli("dedupe", "--check", "-l", lib).exit_code == 0


def test_the_help_shows_the_cores_default_threshold():
    from pubcli.cli import dedupe_cmd

    assert dedupe_cmd._DEFAULT_THRESHOLD == dedupe.DEFAULT_THRESHOLD


def test_the_same_pmid_is_strong_evidence_and_another_counts_against():
    base = dict(title="Aerobic exercise improves cognition after stroke", year="2009",
                journal="Neurorehabil Neural Repair")
    a = rec("a", author="Quaney, B. M.", pmid="19541916", **base)
    b = rec("b", author="Quaney BM", pmid="19541916", **base)
    c = rec("c", author="Quaney BM", pmid="19000001", **base)
    same = next(x for x in dedupe.explain(a, b).contributions if x.field is dedupe.Field.PMID)
    other = next(x for x in dedupe.explain(a, c).contributions if x.field is dedupe.Field.PMID)
    assert same.weight > 5 and other.weight < -5


# ---------------------------------------------------------------- scraped sources
def _level(a: Record, b: Record, field: str) -> str:
    cmp = compare(Features(a, 0), Features(b, 1))
    f = dedupe.Field(field)
    level = cmp.level(f)
    return "missing" if level == dedupe.MISSING else dedupe.LEVELS[f][level]


@pytest.mark.parametrize("mangled, clean", [
    ("kã ¶ stler", "kostler"),                       # UTF-8 read as Latin-1, re-tokenised
    ("f , vincent . â ?? nearest neighbor queriesâ ??", "f vincent nearest neighbor queries"),
    ("g kіstler", "g kistler"),                       # a Cyrillic i inside a Latin word
    ("анализ", "анализ"),                             # an all-Cyrillic word stays
])
def test_text_through_the_wrong_code_page_is_repaired(mangled, clean):
    assert dedupe.normalise(mangled) == clean


def test_names_with_mangled_letters_and_debris_are_the_same_people():
    a = dedupe.parse_authors("j hammerâ ? ¦ and g kã ¶ stler")
    b = dedupe.parse_authors("J. Hammer and G. Köstler")
    assert dedupe.shared_authors(a, b) == 2


@pytest.mark.parametrize("a, b", [
    ("l. wong . comprehension syntax", "comprehension syntax"),
    ("the bucky object-relational benchmark ( experience paper )",
     "the bucky object-relational benchmark"),
    ("tutorial : state of the art in workflow management research and products",
     "state of the art in workflow management research and products"),
])
def test_a_title_inside_citation_debris_is_its_main_title(a, b):
    assert _level(rec("a", title=a), rec("b", title=b), "title") == "main title"


def test_a_venue_cut_short_is_unclear_not_different():
    a = rec("a", "inproceedings", title="t", booktitle="Proceedings of the 25th International "
            "Conference on Very &hellip;")
    b = rec("b", "inproceedings", title="t", booktitle="VLDB")
    assert _level(a, b, "venue") == "unclear"
    c = rec("c", "inproceedings", title="t", booktitle="ICDE")
    assert _level(b, c, "venue") == "different"


def test_an_author_list_cut_short_says_nothing_against_a_match():
    full = rec("a", title="t", author="Shanmugasundaram, J. and Tufte, K. and Zhang, C.")
    cut = rec("b", title="t", author="J Zhang…")
    assert _level(full, cut, "authors") == "missing"
    other = rec("c", title="t", author="J Zhang")
    assert _level(full, other, "authors") == "none of 1"


def test_misc_says_nothing_about_the_type():
    a = rec("a", "misc", title="t")
    assert _level(a, rec("b", "inproceedings", title="t"), "type") == "missing"
    assert _level(rec("c", "article", title="t"), rec("d", "book", title="t"),
                  "type") == "different"


def test_another_journal_and_volume_is_its_own_level():
    a = rec("a", title="t", journal="Clinical Cancer Research", volume="16")
    b = rec("b", title="t", journal="Cancer Prevention Research", volume="3")
    assert _level(a, b, "venue") == "other venue and volume"
    c = rec("c", title="t", journal="Clinical Cancer Research", volume="17")
    assert _level(a, c, "venue") == "other volume"


@pytest.mark.parametrize("a, b", [("aggregate", "aggregation"), ("query", "querying"),
                                  ("tool", "tools"), ("files", "les")])
def test_inflections_and_lost_ligatures_are_not_replaced_words(a, b):
    ta = f"efficient {a} processing over distributed streams"
    tb = f"efficient {b} processing over distributed streams"
    assert _level(rec("a", title=ta), rec("b", title=tb), "title") != "a word replaced"


def test_a_replaced_word_still_is_one():
    ta = "home exercise therapy for motor recovery after stroke in older adults"
    tb = "home exercise therapy for motor recovery after stroke in older children"
    assert _level(rec("a", title=ta), rec("b", title=tb), "title") == "a word replaced"


def test_a_citations_debris_in_a_title_is_no_replaced_word():
    title = "spirit : sequential pattern mining with regular expression constraints"
    a = rec("a", title=title + " vldb", author="Garofalakis, M. and Rastogi, R. and Shim, K.",
            year="1999")
    b = rec("b", title="shim k " + title, author="Garofalakis, M. and Rastogi, R.")
    assert _level(a, b, "title") != "a word replaced"
    c = rec("c", title=title + " 1999", author="Garofalakis, M.", year="1999")
    assert _level(a, c, "title") != "a word replaced"
    d = rec("d", title="proc 25th " + title, author="Garofalakis, M.")
    assert _level(a, d, "title") != "a word replaced"
    # a name inside the title is no debris: "parkinson" for "alzheimer" by a Dr Parkinson
    pa = rec("pa", title="home exercise in parkinson disease for older patients",
             author="Parkinson, J.")
    pb = rec("pb", title="home exercise in alzheimer disease for older patients",
             author="Parkinson, J.")
    assert _level(pa, pb, "title") in ("a word replaced", "70+, words replaced")
    # debris beside a word replaced leaves it replaced
    d = rec("d", title="home exercise after stroke in older adults", author="Older, B.")
    e = rec("e", title="home exercise after stroke in children brown", author="Brown, C.")
    assert _level(d, e, "title") in ("a word replaced", "70+, words replaced")


def test_a_title_buried_in_debris_is_a_candidate(tmp_path):
    from pubcli.dedupe.blocking import Index, block

    recs = [rec("a", title="ramakrishnan r. livny m ( 1996 ) birch : an efficient data "
                "clustering method for very large databases"),
            rec("b", title="birch : an efficient data clustering method for very large "
                "databases")]
    recs += [rec(f"x{i}", title=f"an efficient method number {i} for other things")
             for i in range(30)]
    assert (0, 1) in block(Index(recs))


def test_a_title_inside_a_longer_one_whose_debris_is_rarer_is_a_candidate():
    from pubcli.dedupe.blocking import Index, block
    from pubcli.dedupe.extrakeys import contained_pairs

    title = "mv3r tree : a spatio temporal access method for timestamp and interval queries"
    people = "Tao, Y. and Papadias, D."
    recs = [rec("a", title="the " + title + " - group of 4 raquo", author=people),
            rec("b", title=title, author=people),
            rec("c", title="conference tutorial notes : data mining techniques",
                author="Han, J."),
            rec("d", title="data mining techniques", author="Han, J."),
            rec("f", title="on index configuration in object oriented databases extended "
                "version", author="Bertino, E."),
            rec("g", title="index configuration in object oriented databases",
                author="Bertinno, E."),
            # inside, but by other people: a shorter paper's title, no candidate
            rec("e", title="data mining techniques for retail", author="Wong, K.")]
    recs += [rec(f"x{i}", title=f"group of 4 raquo other paper {i} about interval trees",
                 author="Other, O.") for i in range(3)]
    pairs = block(Index(recs))
    assert (0, 1) in pairs and (2, 3) in pairs and (4, 5) in pairs
    contained: set[tuple[int, int]] = set()
    contained_pairs(Index(recs), contained, 60)
    assert contained == {(0, 1), (2, 3), (4, 5)}


def test_an_author_list_naming_no_person_says_nothing():
    title = "the samos active dbms prototype"
    a = rec("a", title=title, author="Gatziu, S. and Geppert, A. and Dittrich, K.")
    b = rec("b", title=title, author="ACMS Anthology and P. Edition")
    assert _level(a, b, "authors") == "missing"
    c = rec("c", title=title, author="Stolfo, S. and Hernandez, M.")
    assert _level(a, c, "authors") == "none"
    # one name read swapped may be the same person: nothing said either way
    one = rec("d", title=title, author="Toivonen, H.")
    assert _level(one, rec("e", title=title, author="Hannu, T."), "authors") == "missing"
    assert _level(one, rec("f", title=title, author="Jones, A."), "authors") == "none of 1"


def test_a_macro_the_matcher_does_not_know_keeps_its_name(tmp_path):
    """tugboat.bib writes the name "\\Thanh{}": it once vanished, leaving an empty
    person and a crash; LaTeX for matching is the display's own (latex.to_text)."""
    from pubcli import dedupe, store

    entry = ("@article{%s,\n author={\\Thanh{} and Sebastian Rahtz},\n"
             " title={Typesetting Vietnamese with pdf{\\TeX}},\n journal={TUGboat},\n"
             " year={1997},\n}\n")
    lib = store.loads(entry % "a" + entry % "b")
    groups = dedupe.find_groups(lib.records)
    assert [g.keys for g in groups] == [["a", "b"]]
    assert "thanh" in " ".join(" ".join(p.last) for p in dedupe.people.parse_authors(
        lib.records[0].fields["author"]))


# ---------------------------------------------------------------- the weights cache
def _big_library(tmp_path):
    """A file above the parse cache's size (so it has a digest): review-like records
    with long abstracts."""
    records = _review_like(240, 5)
    pad = "Background and methods of a long abstract. " * 30
    text = "".join(f"@article{{{r.key},\n" + "".join(f"  {k} = {{{v}}},\n" for k, v in
                                                   r.fields.items())
                   + f"  abstract = {{{pad}{r.key}}}\n}}\n\n" for r in records)
    path = write(tmp_path / "big.bib", text)
    assert path.stat().st_size >= store.cache.MIN_BYTES
    return path


def test_the_weights_are_kept_for_the_file_and_used_by_the_next_command(cli, tmp_path,
                                                                          monkeypatch):
    path = _big_library(tmp_path)
    first = cli("dedupe", "--format", "json", "-l", path)
    lib = store.load(path)
    estimated = dedupe.Matcher(lib.records, digest=lib.document.digest).model

    def no_estimate(self):
        raise AssertionError("estimated again")

    monkeypatch.setattr(dedupe.Matcher, "_estimate", no_estimate)
    assert dedupe.Matcher(lib.records, digest=lib.document.digest).model == estimated
    again = cli("dedupe", "--format", "json", "-l", path)
    assert again.stdout == first.stdout
    # add judges by the same weights, without estimating them again
    r = cli("add", "--title", "An unrelated study of glacier melt in the Alps",
            "--author", "Moser, Karin", "--year", "2021", "--venue", "J Glaciol", "-l", path)
    assert r.exit_code == 0, r.output
    # a changed file (new bytes) has weights of its own
    with pytest.raises(AssertionError, match="estimated again"):
        lib = store.load(path)
        _ = dedupe.Matcher(lib.records, digest=lib.document.digest).model


# ---------------------------------------------------------------- error classes
def test_a_column_title_recurring_in_a_venues_issues_is_no_evidence():
    """"Editor's comments" in five issues of one journal, by the same editor: a
    heading, five works; the one copy of an issue's column still joins its twin."""
    people = ["Beeton, Barbara"] * 3 + ["Berry, Karl"] * 2
    recs = [rec(f"c{i}", title="Editor's comments", author=au, journal="TUGboat",
                year=str(2001 + i), volume=str(12 + i), number="1", pages=f"{3 + i}--{5 + i}")
            for i, au in enumerate(people)]
    twin = rec("d0", title="Editor's Comments", author="Beeton, B.", journal="TUGboat",
               year="2001", volume="12", number="1", pages="3--5")
    groups = dedupe.find_groups([*recs, twin])
    assert group_sets(groups) == {frozenset({"c0", "d0"})}


def test_a_cross_reference_note_in_a_title_is_not_an_erratum():
    title = "Outcomes of early surgery in infants with congenital heart disease"
    base = dict(author="Smith, J. and Doe, A.", journal="J Pediatr", year="2003",
                volume="142", pages="100-105")
    a = rec("a", title=title, **base)
    for noted in (title + " [Erratum appears in J Pediatr. 2003 Jun;142(6):616]",
                  "[Erratum appears in J Pediatr. 2003 Jun;142(6):616] " + title,
                  title + ". [Comment in: Lancet. 2001;357(9):1]"):
        assert dedupe.explain(a, rec("b", title=noted, **base)).duplicate, noted
    # the erratum itself stays apart
    assert not dedupe.explain(a, rec("e", title="Erratum: " + title, **base)).duplicate


def test_people_written_given_name_first_between_commas_are_several():
    assert [p.last for p in dedupe.parse_authors("M. Kearns, Y. Mansour and D. Ron")] == \
        [("kearns",), ("mansour",), ("ron",)]
    assert [p.last for p in dedupe.parse_authors("Kearns, M. and Mansour, Y.")] == \
        [("kearns",), ("mansour",)]


def test_blocking_proposes_a_translated_title_by_where_it_is_printed():
    """The English title with the original beside it: no title key is shared, the
    volume, first page and year (and first author) are."""
    base = dict(author="Müller, Hans and Weber, Anna", journal="Nervenarzt", year="2004",
                volume="75", number="3", pages="233-240")
    a = rec("a", title="Rehabilitation nach Schlaganfall: eine Übersicht", **base)
    b = rec("b", title="[Rehabilitation after stroke: a review]", **base)
    m = dedupe.Matcher([a, b])
    assert (0, 1) in m.pairs()
    v = m.explain(a, b)
    assert v.compared


def test_abstracts_sharing_a_supplement_page_are_different_works():
    base = dict(journal="Arch Phys Med Rehabil", year="2011", volume="92", number="10",
                pages="1717")
    a = rec("a", title="Visuospatial training after right-brain stroke",
            author="Chen, P. and DeLuca, J.", **base)
    b = rec("b", title="Metacognitive strategy training in acute stroke rehabilitation",
            author="Skidmore, E. and Whyte, E.", **base)
    assert not dedupe.find_groups([a, b])


@pytest.mark.slow
def test_tugboat_groups_no_two_writers_of_a_column_or_of_one_page():
    """tugboat.bib (a society's newsletter): "Chairman's report" in two issues by two
    chairs, and site reports of other systems printed on one page, are not one work;
    nor is a notice or a site report printed again in another issue (this file lists
    no item twice: an item entered twice is tests/test_dedupe_vetoes.py's newsletter)."""
    from pubcli.dedupe import parse_authors, person_match

    lib = store.load(ROOT / "tests" / "corpus" / "pybtex-0.26.1" / "examples" / "tugboat"
                     / "tugboat.bib")
    groups = dedupe.find_groups(lib.records)
    keys = group_sets(groups)
    for apart in [("Palais:TB2-1-3", "Spivak:TB2-2-3"), ("Plass:TB4-2-74", "Furuta:TB4-2-74"),
                  ("Siegman:TB8-1-8", "Marle:TB8-3-259"), ("Fox:TB7-1-12", "Childs:TB7-1-12")]:
        assert not any(set(apart) <= g for g in keys), apart
    strangers = 0
    for g in groups:
        people = [parse_authors(r.fields.get("author")) for r in g.records]
        strangers += any(p and q and not any(person_match(x, y) for x in p for y in q)
                         for i, p in enumerate(people) for q in people[i + 1:])
    assert strangers <= 1  # (one pair of one-page site reports, "MVS" / "VMS", is left)
    for g in groups:  # one item: one issue of one volume
        assert len({(r.fields.get("volume"), r.fields.get("number")) for r in g.records}) == 1
    by_key = {r.key: r for r in lib.records}
    for again in [("Incerpi:TB2-1-49", "Incerpi:TB2-3-32"), ("Abbott:TB10-1-59", "Abbott:TB10-2-194"),
                  ("Anonymous:TB12-3-448", "Anonymous:TB12-3-570")]:
        assert not dedupe.explain(*(by_key[k] for k in again), records=lib.records).duplicate


@pytest.mark.slow
def test_items_sharing_a_page_are_not_one_work_by_the_page_alone():
    """Two site reports on page 74 of one issue (other titles, other authors): the place
    they share is no evidence about what they are."""
    issue = dict(journal="TUGboat", year="1983", volume="4", number="2")
    a = rec("plass", author="Plass, Susan", title="IBM site report", pages="74--74", **issue)
    b = rec("furuta", author="Furuta, Richard", title="Unix TeX site report", pages="74--75",
            **issue)
    v = dedupe.explain(a, b)
    assert not v.duplicate
    assert not dedupe.find_groups([a, b])
    # the same page, the same issue, with the title and authors against: said so
    lib = store.load(ROOT / "tests" / "corpus" / "pybtex-0.26.1" / "examples" / "tugboat"
                     / "tugboat.bib")
    by_key = {r.key: r for r in lib.records}
    v = dedupe.explain(by_key["Plass:TB4-2-74"], by_key["Furuta:TB4-2-74"], records=lib.records)
    assert not v.duplicate and v.score >= dedupe.DEFAULT_THRESHOLD
    assert v.summary.startswith("not duplicates: only where they are printed agrees")


def test_every_level_has_its_prior_and_caps_name_their_fields_levels():
    """Priors and caps are keyed by level (an IntEnum member per field), so a level
    inserted into one field cannot shift the weights of the others."""
    from pubcli.dedupe import levels, weights

    for f in levels.FIELDS:
        kind = levels.LEVEL_OF[f]
        assert set(weights.PRIOR[f]) == set(kind), f
        assert all(type(k) is kind for k in weights.PRIOR[f]), f
        assert len(levels.LEVELS[f]) == len(kind)
        m, u = weights.PRIOR_MU[f]
        assert abs(sum(m) - 1) < 0.02 and abs(sum(u) - 1) < 0.02, f
    for f, level in list(weights.M_CAP) + list(weights.AT_MOST_PRIOR):
        assert type(level) is levels.LEVEL_OF[f], (f, level)
    assert levels.LEVELS[levels.Field.TITLE][levels.Title.MAIN] == "main title"
    # what a comparison holds is a member of its field's levels
    a = rec("a", author="Kim, Dae", title="Verified garbage collection for runtimes",
            year="2020", journal="J Sys", volume="3", pages="1--9")
    b = rec("b", author="Dae Kim", title="Verified garbage collection for runtimes",
            year="2021", journal="J Sys", volume="4", pages="1--9")
    cmp = compare(Features(a), Features(b))
    assert cmp.level(dedupe.Field.YEAR) is levels.Year.ONE_APART
    assert cmp.level(dedupe.Field.VENUE) is levels.Venue.OTHER_VOLUME
    assert cmp.level(dedupe.Field.AUTHORS) is levels.Authors.ALL


def test_explain_says_how_many_records_of_the_venue_carry_a_common_title():
    issue = dict(journal="Society Newsletter", author="Beeton, Barbara")
    records = [rec(f"ed{n}", title="Editorial comments", year=str(1980 + n), volume=str(n),
                   pages=f"{2 * n}--{2 * n + 1}", **issue) for n in range(1, 7)]
    v = dedupe.explain(records[0], records[1], records=records)
    assert not v.duplicate
    title = next(c for c in v.contributions if c.field is dedupe.Field.TITLE)
    assert title.note.startswith("this title is carried by 6 records in this venue")


def test_cached_links_follow_the_threshold_and_the_pairs_marked_distinct():
    """A second run on an unchanged file reads the links it found (nothing compared
    again), but never those of another threshold or other pairs marked distinct."""
    from pubcli.dedupe.matcher import Matcher

    records = list(store.load(HARD).records) + _review_like(60, 5)
    digest = "0" * 40
    fresh = group_sets(dedupe.find_groups(records))
    assert group_sets(dedupe.find_groups(records, digest=digest)) == fresh
    warm = Matcher(records, digest=digest)
    assert linking.read_links(warm, set()) is not None
    assert group_sets(warm.groups()) == fresh and not warm._pairs_compared()
    one = sorted(next(g for g in fresh if len(g) == 2))
    marked = group_sets(dedupe.find_groups(records, digest=digest, distinct=[tuple(one)]))
    assert marked == fresh - {frozenset(one)}
    strict = group_sets(dedupe.find_groups(records, threshold=99.99, digest=digest))
    assert strict == group_sets(dedupe.find_groups(records, threshold=99.99))
    assert strict != fresh


def test_an_edited_file_reuses_the_blocking_rows_of_its_unchanged_entries(monkeypatch):
    """After an edit (a new file digest: weights and links are stale) the rows blocking
    reads come from the per-entry cache for every entry but the edited one, and the
    groups are those of a run without any cache."""
    from pubcli.dedupe import entrycache
    from pubcli.dedupe.matcher import Matcher

    monkeypatch.setattr(entrycache, "MIN_RECORDS", 10)
    records = list(store.load(HARD).records) + _review_like(60, 3)
    assert group_sets(dedupe.find_groups(records, digest="1" * 40)) \
        == group_sets(dedupe.find_groups(records))
    edited = list(records)
    edited[5] = records[5].copy(fields={**records[5].fields, "title": "A wholly new title"})
    made: list[int] = []
    real_row = entrycache.read

    def read(wanted, names=None):
        got = real_row(wanted, names)
        made.append(got.count(None))
        return got

    monkeypatch.setattr(entrycache, "read", read)
    m = Matcher(edited, digest="2" * 40)
    assert made == [1]
    assert group_sets(m.groups()) == group_sets(dedupe.find_groups(edited))
    assert m.index.row(m.index.titles.index("a wholly new title"))[0] == "a wholly new title"


def test_libraries_with_the_same_keys_and_size_keep_their_rows_apart(monkeypatch):
    """The per-entry rows and per-pair comparisons are kept per library, named by its
    contents: a second library with the same keys and as many entries does not evict
    the first one's (its next edit still reuses them), renaming every key finds them
    all, and an edit of an entry that names the file still finds them (the alias)."""
    from pubcli.dedupe import entrycache
    from pubcli.dedupe.matcher import Matcher

    monkeypatch.setattr(entrycache, "MIN_RECORDS", 10)
    ours = list(store.load(HARD).records) + _review_like(60, 3)
    theirs = [r.copy(key=mine.key) for r, mine in
              zip(list(store.load(HARD).records) + _review_like(80, 8), ours,
                  strict=False)]
    assert len(theirs) == len(ours) and [r.key for r in theirs] == [r.key for r in ours]
    Matcher(ours, digest="6" * 40).groups()
    Matcher(theirs, digest="7" * 40).groups()
    missing: list[int] = []
    real_read = entrycache.read

    def read(wanted, names=None):
        got = real_read(wanted, names)
        missing.append(got.count(None))
        return got

    monkeypatch.setattr(entrycache, "read", read)
    edited = list(ours)
    edited[7] = ours[7].copy(fields={**ours[7].fields, "title": "A wholly new title"})
    m = Matcher(edited, digest="8" * 40)
    assert missing == [1]
    assert group_sets(m.groups()) == group_sets(dedupe.find_groups(edited))
    renamed = [r.copy(key=f"k{n}") for n, r in enumerate(edited)]
    Matcher(renamed, digest="9" * 40)
    assert missing[-1] == 0
    # the entry whose digest comes first in the file's name, edited: found by the alias
    first = Matcher(renamed, digest="9" * 40)
    assert first._digests is not None
    lowest = first.position[first._digests.index(min(first._digests))]
    moved = list(edited)
    moved[lowest] = edited[lowest].copy(fields={**edited[lowest].fields, "year": "1901"})
    again = Matcher(moved, digest="a" * 40)
    assert missing[-1] == 1
    assert group_sets(again.groups()) == group_sets(dedupe.find_groups(moved))
    assert again._pairs_compared() <= 10


def test_the_weights_do_not_step_when_a_library_outgrows_the_training_sample(monkeypatch):
    """Past TRAINING_PAIRS candidate pairs the estimate reads a sample, drawn pair by pair
    by their contents: one more record drops a few pairs from it, never half of them,
    and a smaller share's sample lies inside a larger one's."""
    from pubcli.dedupe.matcher import Matcher

    records = list(store.load(HARD).records) + _review_like(150, 4)
    small = Matcher(records)
    n = len(small.pairs())
    monkeypatch.setattr(dedupe.matcher, "TRAINING_PAIRS", n)
    grown = Matcher(records + _review_like(3, 9))
    assert len(grown.pairs()) > n
    assert grown.model.pairs >= 0.9 * small.model.pairs
    every = sorted(grown.pairs())
    half, most = grown._sample(every, 0.5), grown._sample(every, 0.8)
    assert set(half) <= set(most) and 0.35 * len(every) < len(half) < 0.65 * len(every)
    for a, b in zip(small.model.m[dedupe.Field.TITLE], grown.model.m[dedupe.Field.TITLE],
                    strict=True):
        assert abs(a - b) < 0.05


def test_an_edited_file_compares_again_only_the_pairs_of_the_edited_entry(monkeypatch):
    """The comparisons of one version of a file are kept per pair of entry texts: after
    an edit only the pairs the edit touches are compared again, and the groups are
    those of a run without any cache (a title made common by the edit is a change for
    every pair of that title, so those are compared again too)."""
    from pubcli.dedupe import entrycache
    from pubcli.dedupe.matcher import Matcher

    monkeypatch.setattr(entrycache, "MIN_RECORDS", 10)
    records = list(store.load(HARD).records) + _review_like(80, 6)
    first = Matcher(records, digest="3" * 40)
    assert group_sets(first.groups()) == group_sets(dedupe.find_groups(records))
    assert first._pairs_compared() > 20
    edited = list(records)
    edited[-1] = records[-1].copy(fields={**records[-1].fields, "year": "1901"})
    again = Matcher(edited, digest="4" * 40)
    assert group_sets(again.groups()) == group_sets(dedupe.find_groups(edited))
    assert again._pairs_compared() <= 5
    copied = records[3].copy(key="twin")  # its title is now shared: "common" for its pairs
    grown = Matcher(edited + [copied], digest="5" * 40)
    assert group_sets(grown.groups()) == group_sets(dedupe.find_groups(edited + [copied]))


@pytest.mark.parametrize(("one", "other"), [("B", "C"), ("D", "E")])
def test_one_letter_naming_the_subject_is_another_work_not_a_typo(one, other):
    # hepatitis B and C, vitamin D and E: one letter is the whole difference, and the
    # same group publishes both studies in one journal, one year
    def paper(key: str, letter: str, pages: str) -> Record:
        return rec(key, author="Mensah, Kwame and Owusu, Ama and Boateng, Kofi",
                   title=f"Hepatitis {letter} virus infection and the risk factors for "
                         "it among blood donors in the Ashanti region",
                   journal="BMC Infectious Diseases", year="2019", volume="19", pages=pages)
    assert not dedupe.explain(paper("a", one, "101"), paper("b", other, "245")).duplicate
    # a letter dropped from a word of three is still a typo
    fr = paper("c", one, "101")
    fr.fields["title"] = fr.fields["title"].replace(" for ", " fr ")
    assert dedupe.explain(paper("a", one, "101"), fr).duplicate


def test_a_pair_the_cheap_test_let_through_is_compared_as_without_it():
    """After the cheap test (the title without the word-by-word test) only the word
    test is made: every candidate pair gets the levels and evidence of a comparison
    made from scratch (a word replaced in a 88+ or 70-88 title included)."""
    from pubcli.dedupe.evidence import cheap_levels, quick_title
    from pubcli.dedupe.levels import Title
    from pubcli.dedupe.matcher import Matcher

    m = Matcher(list(store.load(HARD).records) + _review_like(90, 5))
    worded = 0
    for i, j in sorted(m.pairs()):
        a, b = m.index.feats[i], m.index.feats[j]
        full = compare(a, b, series=m.index.series, common=m._common)
        title, alt, _ = quick_title(a, b, series=m.index.series, common=m._common)
        fast = compare(a, b, series=m.index.series, common=m._common,
                       done=(title, cheap_levels(a, b), alt))
        assert (fast.levels, fast.shown, fast.title_score) \
            == (full.levels, full.shown, full.title_score)
        worded += full.levels[0] in (Title.WORD, Title.P70_WORDS) and title[0] != full.levels[0]
    assert worded
