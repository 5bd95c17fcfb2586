"""pubcli.bibtex.read: BibTeX's own rules for where an entry and a value end.

Each case here was read by the real ``bibtex`` program (BibTeX 0.99d, TeX Live) first;
the expected readings are its readings. tests/test_bibtex_oracle.py runs the program
itself over the corpus and generated entries.
"""

from __future__ import annotations

import pytest

from pubcli import bibtex, store
from pubcli.errors import ValidationError
from pubcli.schema.model import Record


def read(text: str):
    parsed = bibtex.parse(text)
    return ({r.key: r.fields for r in parsed.records}, parsed)


@pytest.mark.parametrize("fast", [True, False])
def test_a_backslash_escapes_no_brace(fast):
    # BibTeX ends the title after "A \" and reports an error at "b": the entry is kept
    # unread, and the next entry is read from its own '@'
    text = "@article{a, title = {A \\} b {c}, note={x}}\n@misc{next, title={Next}}\n"
    parsed = bibtex.parse(text, fast=fast)
    assert [r.key for r in parsed.records] == ["next"]
    assert [(f.line, f.raw) for f in parsed.failed] == [
        (1, "@article{a, title = {A \\} b {c}, note={x}}")]
    assert "entry 'a': expected ',' or '}', found 'b'" in parsed.failed[0].reason


@pytest.mark.parametrize("fast", [True, False])
def test_a_quote_ends_a_quoted_value_only_at_brace_depth_0(fast):
    fields, parsed = read('@article{q, title = "The {"}Quote{"} Problem", note="a"}\n')
    assert fields["q"] == {"title": 'The {"}Quote{"} Problem', "note": "a"}
    # a backslash before a quote does not hide it: "Quoted \" is the whole value
    parsed = bibtex.parse('@misc{s, title = "Quoted \\"title\\"", note={x}}\n', fast=fast)
    assert parsed.records == [] and len(parsed.failed) == 1


def test_a_closing_brace_at_depth_0_in_quotes_is_an_error():
    _, parsed = read('@article{q1, title = "a } b", note={x}}\n@misc{ok, title={fine}}\n')
    assert [r.key for r in parsed.records] == ["ok"]
    assert "unbalanced braces in the quoted value of 'title'" in parsed.failed[0].reason


def test_keys_are_what_bibtex_reads():
    fields, parsed = read("@article{k=v, title={eq key}}\n@article{O'Hara_1999, title={x}}\n"
                          "@article(paren}key, title={p})\n")
    assert list(fields) == ["k=v", "O'Hara_1999", "paren}key"]
    assert not parsed.failed


def test_an_entry_whose_brace_is_on_the_next_line_or_opened_by_a_parenthesis():
    fields, parsed = read("@FAKE-ENTRY\n{nextline, title={next line}}\n"
                          "@article(\nparen, title={paren}\n)\n@ article {sp, title={sp}}\n")
    assert fields == {"nextline": {"title": "next line"}, "paren": {"title": "paren"},
                      "sp": {"title": "sp"}}
    assert [r.type for r in parsed.records] == ["fake-entry", "article", "article"]


def test_numbers_macros_and_concatenation():
    fields, parsed = read('@string{foo = "Foo"}\n@article{m, title = FOO # " bar" # {!},'
                          " year = 1999, month = may}\n")
    assert fields["m"] == {"title": "Foo bar!", "year": "1999", "month": "May"}
    # an undefined macro: BibTeX reads it as empty and warns; pubcli shows the name, warns
    fields, parsed = read("@article{u, title = undefinedmacro # { x}}\n")
    assert fields["u"] == {"title": "undefinedmacro x"}
    assert parsed.warnings == [(1, "entry 'u' uses the @string 'undefinedmacro', which is "
                                   "not defined before it: BibTeX reads it as empty")]
    # a bare page range is a number and then an error, as BibTeX says
    _, parsed = read("@article{p, pages = 283--631}\n")
    assert parsed.records == [] and "found '-'" in parsed.failed[0].reason


def test_an_identifier_does_not_start_with_a_digit():
    _, parsed = read("@article{id1, title = {x}, 2bad = {y}}\n")
    assert parsed.records == [] and "expected a field name, found '2'" in parsed.failed[0].reason


def test_commented_out_entries_are_read_by_bibtex_so_they_are_kept_unread_and_named():
    text = ("% @article{pc, title={commented}}\n"
            "@comment{ @article{incomment, title={inside comment}} }\n"
            "@misc{real, title={Real}}\n")
    fields, parsed = read(text)
    assert list(fields) == ["real"]
    assert [(f.line, f.reason.split(",")[0]) for f in parsed.failed] == [
        (1, "commented out with '%'"), (2, "inside @comment{...}")]


def test_an_at_sign_in_comment_text_is_a_warning_not_a_lost_entry():
    fields, parsed = read("Email foo@bar.com here\n@article{after, title={after email}}\n")
    assert list(fields) == ["after"] and not parsed.failed
    assert parsed.warnings[0][0] == 1 and "'@bar.com' is not followed by" in parsed.warnings[0][1]


def test_an_entry_that_runs_across_others_is_kept_and_the_others_are_shown_read_only():
    text = ("@book{open, title = {Missing brace,\n  year = {2003}\n\n"
            "@misc{inside, title={Inside}}\n@misc{also, title={Also}}\n")
    parsed = bibtex.parse(text)
    assert [(f.line, f.open_to_end) for f in parsed.failed] == [(1, True)]
    assert parsed.failed[0].raw == "@book{open, title = {Missing brace,\n  year = {2003}"
    assert [r.key for r in parsed.records] == ["inside", "also"]
    assert all(r.source.read_only.startswith(bibtex.UNREAD) for r in parsed.records)
    # closed later by the count: BibTeX reads one entry with a strange title; pubcli keeps it
    # unread, and the entries inside are read-only
    text = ("@book{open, title = {Missing brace,\n"
            "@misc{inside, title={Inside}}\n}}\n@misc{after, title={After}}\n"
            "@misc{last, title={Last}}\n")
    parsed = bibtex.parse(text)
    assert [f.line for f in parsed.failed] == [1] and not parsed.failed[0].open_to_end
    assert [(r.key, bool(r.source.read_only)) for r in parsed.records] == [
        ("inside", True), ("after", False), ("last", False)]


def test_bibtex_stops_where_an_entry_ends_on_the_last_line():
    # it checks for the end of the file between commands only: the rest of the last line
    # (after an entry, or after an error) is never read
    parsed = bibtex.parse("@misc{a, title={x}} @misc{b, title={y}}\n")
    assert [(r.key, r.source.read_only.startswith(bibtex.UNREAD)) for r in parsed.records] == [
        ("a", False), ("b", True)]
    parsed = bibtex.parse("@misc{a, title={x}} @misc{b, title={y}}\n\n")  # not the last
    assert [r.source.read_only for r in parsed.records] == ["", ""]
    parsed = bibtex.parse("Mail x@y.org\n@misc{k, title={t}}\n")  # the error is on it
    assert [r.source.read_only.startswith(bibtex.UNREAD) for r in parsed.records] == [True]


def test_duplicate_fields_and_keyless_entries():
    fields, parsed = read("@article{d, title={first}, title={second}}\n@article{, title={k}}\n")
    assert fields["d"] == {"title": "first"}
    assert [r.source.read_only for r in parsed.records] == ["duplicate field (title)",
                                                             bibtex.KEYLESS]


def test_white_space_is_bibtex_white_space_only():
    # U+00A0 is a letter to BibTeX (a byte >= 128), not white space
    fields, _ = read("@article{k\u00a0x, title={t}}\n")
    assert list(fields) == ["k\u00a0x"]


def test_written_fields_are_the_values_as_written():
    raw = '@article{a,\n  title = {A {B}},\n  year = 1999,\n  note = "x" # foo\n}'
    assert bibtex.written_fields(raw) == (("title", "{A {B}}"), ("year", "1999"),
                                          ("note", '"x" # foo'))


def test_evaluate_follows_the_same_rules():
    assert bibtex.evaluate('{a \\} # "b"', {}) == "a \\b"  # the brace after \\ closes
    assert bibtex.evaluate('"a" # {b}', {}) == "ab"
    assert bibtex.evaluate("jan # { 1}", {}) == "January 1"


# ---------------------------------------------------------------- writing
@pytest.mark.parametrize("given, written", [
    ("A \\} b", "A \\textbraceright{} b"),
    ("A \\{ b", "A \\textbraceleft{} b"),
    ("Sets \\{ x \\} and \\} alone", "Sets \\{ x \\} and \\textbraceright{} alone"),
    ("{ \\{ } \\}", "{ \\{ } \\}"),  # balanced by BibTeX's count: left as it is
    ("\\{ { \\} }", "\\{ { \\} }"),  # balanced by the count too
    ("{a \\} }", "{a \\textbraceright{} }"),
    ("line one\n  @misc{x, title={y}}", "line one @misc{x, title={y}}"),
    ("plain", "plain"),
])
def test_writable_values_are_balanced_by_bibtex_count_and_mean_the_same(given, written):
    assert bibtex.writable(given) == written
    assert bibtex.braces_balanced(bibtex.writable(given))


def test_check_value_refuses_a_bare_unpaired_brace_and_control_characters():
    with pytest.raises(ValidationError, match="unbalanced braces"):
        bibtex.check_value("k", "title", "bare } brace")
    with pytest.raises(ValidationError, match="control character"):
        bibtex.check_value("k", "title", "ESC \x1b[31m red")
    bibtex.check_value("k", "__markedentry", "[x:1]")  # JabRef's field is a BibTeX name


def test_check_key_refuses_control_characters_and_accepts_what_latex_cites():
    bibtex.check_key("O'Hara_1999")
    for bad in ("a\x1b]8;;", "a b", "a,b", "a{b", "a%b"):
        with pytest.raises(ValidationError):
            bibtex.check_key(bad)


def test_a_saved_value_reads_back_whole_and_the_library_says_what_the_file_says(tmp_path):
    path = tmp_path / "lib.bib"
    path.write_text("@misc{a, title={A}}\n\n@misc{b, title={B}}\n", encoding="utf-8")
    lib = store.load(path)
    lib.add(Record("new", "misc", {"title": "Sets \\{ x \\} and \\} alone"}))
    store.save(lib)
    assert lib["new"].fields["title"] == "Sets \\{ x \\} and \\textbraceright{} alone"
    fresh = store.load(path, use_cache=False)
    assert [r.key for r in fresh] == ["a", "b", "new"] and not fresh.problems
    assert fresh["new"].fields == lib["new"].fields


def test_a_macro_named_in_its_own_definition_reads_as_empty():
    fields, _ = read("@string{j = 2301}\n@string{j = {a} # j # {b}}\n@misc{k, note = j}\n\n")
    assert fields["k"] == {"note": "ab"}  # as BibTeX reads it, not "a2301b"


def test_a_carriage_return_ends_a_line_as_a_line_feed_does():
    # BibTeX ends a line at every CR and LF (a CRLF ends two): in a CR-only file a '%'
    # comments out nothing past its own line, and the last line is the last one only
    text = "% a comment\r@misc{a, title={x}}\r@misc{b, title={y}} @misc{c, title={z}}\r"
    parsed = bibtex.parse(text)
    assert [(r.key, r.source.read_only.startswith(bibtex.UNREAD)) for r in parsed.records] == [
        ("a", False), ("b", False), ("c", True)]
    assert not parsed.failed
    crlf = bibtex.parse(text.replace("\r", "\r\n"))  # its last line is the empty one
    assert [r.source.read_only for r in crlf.records] == ["", "", ""]
    assert bibtex.writable("one\r\n  @two") == "one @two"


def test_a_patch_adds_each_new_field_where_the_new_record_puts_it():
    raw = "@article{a,\n  author = {A},\n  title = {T},\n  keywords = {K},\n  note = {N},\n}"
    old = bibtex.parse(raw).records[0]
    new = old.copy(fields={"author": "A", "title": "T", "journal": "J", "year": "2020",
                           "keywords": "K"})  # note removed, journal and year added
    assert bibtex.patch_entry(raw, old.source, old, new, {}) == (
        "@article{a,\n  author = {A},\n  title = {T},\n  journal = {J},\n  year = {2020},\n"
        "  keywords = {K},\n}")
    new = old.copy(fields={**old.fields, "doi": "10.1/x"})  # last in order: at the end
    assert bibtex.patch_entry(raw, old.source, old, new, {}).endswith(
        "  note = {N},\n  doi = {10.1/x},\n}")


def test_an_at_string_bibtex_reads_defines_its_macro_wherever_it_stands():
    # inside @comment, after '%', running across a line that starts an entry, or with an
    # error after its value: BibTeX defines the macro all the same, so the entries after
    # it read with it
    text = ("@comment{@string{acm = {ACM}}}\n% @string{ieee = {IEEE}}\n"
            "@string{lncs = {Lecture Notes\n@misc{x, title={y}} in CS}}\n"
            "@string{springer = {Springer} oops}\n"
            "@misc{k, title = acm # ieee, series = lncs, publisher = springer}\n\n")
    parsed = bibtex.parse(text)
    k = next(r for r in parsed.records if r.key == "k")
    assert k.fields == {"title": "ACMIEEE", "series": "Lecture Notes\n@misc{x, title={y}} in CS",
                        "publisher": "Springer"}
    assert [line for line, _ in parsed.warnings] == [1, 2, 3]
    assert [(r.key, bool(r.source.read_only)) for r in parsed.records] == [("x", True),
                                                                          ("k", False)]
    assert [f.line for f in parsed.failed] == [5]  # the @string with an error, kept
