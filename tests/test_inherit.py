"""pubcli.schema.inherit: what an entry gets through crossref and xdata (what `check`
validates, `show` marks "(inherited)", and the listings and the page print)."""

from __future__ import annotations

from pubcli.schema.inherit import Inheritance, publications, resolve_all

from .conftest import record

CONF = record("conf", "proceedings", title="Proceedings of Things", year="2020",
              publisher="ACM", keywords="Systems", featured="true", ids="oldconf",
              editor="Lee, Ann")


def paper(**fields):
    return record("paper", "inproceedings", title="A Paper", author="Kim, Dae",
                  crossref="conf", **fields)


def test_a_paper_gets_its_proceedings_title_as_booktitle_and_the_rest_as_is():
    inh = Inheritance([paper(), CONF])
    got = inh.inherited(paper())
    assert got["booktitle"] == "Proceedings of Things"
    assert (got["year"], got["publisher"], got["editor"]) == ("2020", "ACM", "Lee, Ann")
    # what is the parent's own (its areas, its featured flag, its old keys) stays there
    assert not {"keywords", "featured", "ids", "crossref"} & set(got)
    # the paper's own fields are not "inherited", and they win in the merged view
    assert "title" not in got and "author" not in got
    assert inh.fields(paper())["title"] == "A Paper"


def test_a_field_the_child_has_is_never_overridden():
    inh = Inheritance([CONF])
    child = paper(year="2019", booktitle="Short Name")
    fields = inh.fields(child)
    assert (fields["year"], fields["booktitle"]) == ("2019", "Short Name")


def test_crossref_keys_are_compared_ignoring_case_and_the_first_entry_is_the_target():
    twin = record("CONF", "proceedings", title="The Second Conf", year="1999")
    inh = Inheritance([CONF, twin])
    child = record("p", "inproceedings", title="T", crossref="Conf")
    assert inh.fields(child)["booktitle"] == "Proceedings of Things"
    assert inh.parents(child) == [CONF]


def test_a_missing_parent_gives_nothing_and_the_record_is_returned_as_it_is():
    child = paper()
    inh = Inheritance([child])
    assert inh.inherited(child) == {} and inh.parents(child) == []
    assert inh.resolved(child).fields == child.fields
    plain = record("solo", title="No parents")
    assert inh.resolved(plain) is plain


def test_empty_parent_values_are_not_inherited():
    conf = record("conf", "proceedings", title="Proceedings", year="  ", publisher="")
    got = Inheritance([conf]).inherited(paper())
    assert "year" not in got and "publisher" not in got and got["booktitle"] == "Proceedings"


def test_biblatex_renames_by_the_pair_of_types():
    book = record("bk", "book", title="The Book", author="Knuth, Donald", year="1984")
    chapter = record("ch", "inbook", title="Chapter One", author="Other, Ann", crossref="bk")
    got = Inheritance([book]).inherited(chapter)
    assert got["booktitle"] == "The Book" and got["bookauthor"] == "Knuth, Donald"
    mv = record("mv", "mvbook", title="The Art of Programming", year="1968")
    volume = record("v1", "book", title="Fundamental Algorithms", crossref="mv")
    assert Inheritance([mv]).inherited(volume)["maintitle"] == "The Art of Programming"
    journal = record("j", "periodical", title="Journal of Things", year="2021")
    article = record("a", "article", title="An Article", crossref="j")
    assert Inheritance([journal]).inherited(article)["journaltitle"] == "Journal of Things"


def test_xdata_fields_are_copied_as_they_are_and_the_container_is_no_publication():
    data = record("acm", "xdata", publisher="ACM", location="New York", title="Not a booktitle")
    child = record("p", "inproceedings", title="T", booktitle="B", xdata="acm", year="2020")
    got = Inheritance([data, child]).inherited(child)
    assert (got["publisher"], got["location"]) == ("ACM", "New York")
    bare = record("q", "inproceedings", xdata="acm")
    renamed = Inheritance([data]).inherited(bare)
    assert renamed["title"] == "Not a booktitle" and "booktitle" not in renamed  # as it is
    shown = publications([data, child])
    assert [r.key for r in shown] == ["p"]
    assert shown[0].fields["publisher"] == "ACM"


def test_a_chain_inherits_from_every_ancestor_the_nearest_first():
    series = record("series", "xdata", publisher="Springer", year="1990", series="LNCS")
    conf = record("conf", "proceedings", title="Conf 2020", year="2020", xdata="series")
    child = paper()
    fields = Inheritance([series, conf, child]).fields(child)
    assert fields["booktitle"] == "Conf 2020"
    assert fields["year"] == "2020"                      # the proceedings', not the series'
    assert (fields["publisher"], fields["series"]) == ("Springer", "LNCS")


def test_a_circular_crossref_ends_and_each_gets_the_others_fields():
    a = record("a", "misc", title="A", crossref="b", note="from a")
    b = record("b", "misc", title="B", crossref="a", year="2001")
    inh = Inheritance([a, b])
    assert inh.inherited(a) == {"year": "2001"}
    assert inh.inherited(b) == {"note": "from a"}
    self_ref = record("s", "misc", title="S", crossref="s")
    assert Inheritance([self_ref]).inherited(self_ref) == {}


def test_a_parent_is_known_as_one_and_records_are_never_changed():
    child = paper()
    inh = Inheritance([CONF, child])
    assert inh.is_parent(CONF) and not inh.is_parent(child)
    before = dict(child.fields)
    resolved = resolve_all([CONF, child])
    assert child.fields == before                        # inherited fields are never written
    assert resolved[1].fields["booktitle"] == "Proceedings of Things"
    assert resolved[0] is CONF                           # a record without parents as it is
