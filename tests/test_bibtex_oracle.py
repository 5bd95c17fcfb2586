"""BibTeX itself is the judge (issue 18): the real ``bibtex`` program, run through
``tests/bibtex_oracle.py``, says what a text means, and pubcli must read it the same way
(or keep the entry unread) and write what BibTeX reads back as meant.

* the oracle itself: BibTeX's rules as bibtex.web states them, read back exactly (long
  values across BibTeX's .bbl line breaks, crossref not inherited, line numbers);
* reading: every file of ``tests/corpus`` and generated adversarial documents, entry by
  entry, field by field: no entry read differently;
* writing: ``tag``, ``edit --set``, ``rename``, ``remove``, ``add`` and ``dedupe --merge``
  on a library of adversarial entries leave BibTeX's reading of every other entry as it
  was, and the changed entry reads as intended.

Skipped where ``bibtex`` is absent (``.ci/run`` installs Debian's texlive-binaries).
``PUBCLI_LONG=1`` (or ``PUBCLI_HYPOTHESIS_EXAMPLES=N``) runs more generated documents.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubcli import store

from . import bibtex_oracle as oracle
from .conftest import ROOT, SHIPPED_CONFIG

pytestmark = pytest.mark.skipif(not oracle.available(),
                                reason="the bibtex program is not installed "
                                       "(Debian: apt-get install texlive-binaries)")


CORPUS = ROOT / "tests" / "corpus"
FILES = sorted(CORPUS.rglob("*.bib"))
NOT_UTF8 = {"sphinxcontrib_bibtex-2.7.0/test/roots/test-bibfiles_encoding/test.bib"}
EXAMPLES = int(os.environ.get("PUBCLI_HYPOTHESIS_EXAMPLES",
                              2000 if os.environ.get("PUBCLI_LONG") else 100))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def rel(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def fields_of(text: str) -> dict[str, dict[str, str]]:
    return {e.key: e.fields for e in oracle.read(text).entries}


# ------------------------------------------------------------------ the oracle itself
@pytest.mark.parametrize("text, expected", [
    # every brace counts, backslash or not: the value ends at the brace that balances
    ("@misc{a, title = {x \\{ y \\} z}}", {"a": {"title": "x \\{ y \\} z"}}),
    # a '"' ends a quoted value only at brace depth 0
    ('@misc{a, title = "The {"}Quote{"} Problem"}', {"a": {"title": 'The {"}Quote{"} Problem'}}),
    # '%' is no comment in a .bib; '#' concatenates; white space is compressed
    ('@misc{a, title = "50%" # { of  \n\t it }, note = 2020}',
     {"a": {"title": "50% of it", "note": "2020"}}),
    # @comment skips just the word: what follows is read as any text outside an entry
    ("@comment{@misc{a, title = {in a comment}}}\n\n", {"a": {"title": "in a comment"}}),
    # BibTeX stops when the file's last line has been read: a second entry on it is lost
    ("@misc{a, title = {t}} @misc{b, title = {u}}\n", {"a": {"title": "t"}}),
    # @string, the month macros (as pubcli expands them), an undefined macro reads empty
    ('@string{s = "Proc. "}\n@misc{a, title = s # "X", month = feb, note = nope # "!"}',
     {"a": {"title": "Proc. X", "month": "February", "note": "!"}}),
    # parentheses; '{' on the next line; keys with '=' and "'"; a '}' ends a key in '{'
    ("@misc(a=b, title = {t})\n@book\n{O'Hara_1999, title = {u}}\n@misc{c}",
     {"a=b": {"title": "t"}, "O'Hara_1999": {"title": "u"}, "c": {}}),
    # a repeated key (any case) is skipped; the first entry stays
    ("@misc{Key, title = {one}}\n@misc{key, title = {two}}", {"Key": {"title": "one"}}),
    # crossref is read as written, parents' fields are not copied into the child
    ("@misc{kid, crossref = {Mom}}\n@book{mom, title = {T}, CrossRef = {x}}",
     {"kid": {"crossref": "Mom"}, "mom": {"title": "T", "crossref": "x"}}),
    # an '@' outside an entry starts a command, even in the middle of a line
    ("mail me: x@misc{a, title = {t}}", {"a": {"title": "t"}}),
])
def test_the_oracle_reads_as_bibtex_web_says(text, expected):
    assert fields_of(text) == expected


def test_types_keys_lines_and_messages():
    text = ("% intro\n@Article{A1,\r\n  title = {t},\r\n}\r\n\n@misc{a1, title = {again}}\n"
            "@inproceedings{b2, booktitle = undefinedmacro}\n")
    got = oracle.read(text)
    assert [(e.key, e.type, e.line) for e in got.entries] == [("A1", "article", 2),
                                                               ("b2", "inproceedings", 7)]
    assert [(m.kind, m.text, m.line) for m in got.messages] == [
        ("error", "Repeated entry", 6),
        ("warning", 'Warning--string name "undefinedmacro" is undefined', 7)]


WORD = st.text(st.sampled_from("abcxyzABC019.,;:!?-/()[]<>*+&~'\\^_`|$\u00e9\u00c5\u00a0\u4e2d"),
               min_size=1, max_size=90)


@given(words=st.lists(WORD, min_size=1, max_size=40), name=st.sampled_from(["title", "note"]))
@settings(max_examples=60, deadline=None)
def test_long_values_come_back_exactly_across_bibtex_line_breaks(words, name):
    # BibTeX breaks .bbl lines over 79 characters at a space; the oracle joins them again
    value = " ".join(words)
    text = f"@misc{{k, {name} = {{{value}}}}}\n"
    assert fields_of(text) == {"k": {name: value}}


def test_compare_sorts_out_what_counts():
    text = ("@misc{a, title = {A \\{ b }, note = {c}}\n"  # pubcli cuts it short (today)
            "@misc{b, title = undefinedmacro}\n"
            "@misc{c, title = {one}}\n@misc{C, title = {two}}\n"
            "@misc{d, title = {x}, title = {y}}\n")
    diffs = oracle.compare(text)
    cats = {(d.key, d.category) for d in diffs}
    assert ("b", "undefined-macro") in cats
    assert ("C", "repeated-key") in cats
    assert ("d", "kept-unread") in cats
    assert {d.key for d in oracle.misread(diffs)} <= {"a"}


# ------------------------------------------------------------------ reading: the corpus
@pytest.mark.parametrize("path", FILES, ids=rel)
def test_corpus_file_reads_as_bibtex_reads_it(path):
    if rel(path) in NOT_UTF8:
        pytest.skip("not UTF-8: pubcli refuses the whole file (keeps it unread)")
    text = store.decode(path.read_bytes())[0]
    diffs = oracle.misread(oracle.compare(text))
    assert not diffs, "\n".join(str(d)[:300] for d in diffs[:10])


# ------------------------------------------------------------------ reading: by hand
# The cases of issue 18 (texbook1.bib, btxdoc.bib, bibtopic's examples, abntex2's keys,
# a JabRef file), written small.
CASES = {
    "quote inside braces in a quoted value": '@book{k, title = "The {"}Quote{"} Problem",\n'
                                             '  author = "Ann {\\"a} Author", year = 1999}\n',
    "escaped braces count": "@article{k, title = {Sets \\{x\\}}, author = {B},\n  year = 2001}\n",
    "an escaped brace balanced by a plain one": "@misc{k, title = {a \\{ b}, year = 2002}\n",
    "brace on the next line": "@FAKE-ENTRY\n{k, title = {t}, year = 2003}\n",
    "parenthesis on its own line": "@misc\n(\nk, title = {t (x)}, year = 2004\n)\n",
    "key with '='": "@misc{abntex2=opt, title = {t}}\n",
    "key with an apostrophe": "@article{O'Hara_1999, title = {Auger}, year = 1999}\n",
    "@comment skips only the word": "@comment{@misc{k, title = {t}}}\n\n",
    "percent is not a comment": "% @misc{k, title = {t}}\n",
    "at sign in a value": "@misc{k, title = {x@y.org}, note = \"50% @ home\"}\n",
    "concatenation and strings": '@string{p = "Proc. "}\n@misc{k, booktitle = p # {Things} # " '
                                 '2020", month = jan # "~1"}\n',
    "text between entries with an at sign": "Write to jane@example.org.\n@misc{k, title = {t}}\n",
}


@pytest.mark.parametrize("text", [
    pytest.param(t, id=name)
    for name, t in CASES.items()])
def test_hand_written_case_reads_as_bibtex_reads_it(text):
    diffs = oracle.misread(oracle.compare(text))
    assert not diffs, "\n".join(map(str, diffs))


# ------------------------------------------------------------------ reading: generated
ws = st.sampled_from(["", " ", "\n", "  ", "\t", "\n  "])
ws1 = st.sampled_from([" ", "\n", "  ", "\n\t", " \n "])
TEXT_ATOM = st.sampled_from([
    "Deep", " ", "learning", "caf\u00e9", "50\\%", "100%", "a@b.org", "@", "#", "C#", "\\",
    "\\\\", "\\&", "x=y", "(", ")", ",", "'", "~", "$x^2$", "\\'e", "\n", "  ", "\t", "A,B",
])


def _body(quoted: bool) -> st.SearchStrategy[str]:
    """Text balanced by BibTeX's count; in a quoted value a '"' only inside braces."""
    def group(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            inner.map(lambda s: "{" + s + "}"),
            inner.map(lambda s: "\\{" + s + "\\}"),  # escaped, still counted
            inner.map(lambda s: "{\\" + s + "}"),
            st.just('{"}'), st.just('{\\"o}'), st.just('{\\"u}'),
            inner.map(lambda s: '{"' + s + '"}'))
    atoms = TEXT_ATOM if quoted else st.one_of(TEXT_ATOM, st.just('"'), st.just('\\"'))
    nested = st.recursive(atoms, lambda inner: st.one_of(
        group(st.lists(inner, max_size=4).map("".join)), inner), max_leaves=6)
    return st.lists(nested, max_size=8).map("".join)


MONTHS = ["jan", "Feb", "MAR", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
MACROS = ["ieee", "acm", "jcss"]


def _token(defined: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        _body(False).map(lambda s: "{" + s + "}"),
        _body(True).map(lambda s: '"' + s + '"'),
        st.integers(0, 3000).map(str),
        st.sampled_from(MONTHS + (defined or ["jan"])))


@st.composite
def value(draw, defined: list[str]) -> str:
    parts = draw(st.lists(_token(defined), min_size=1, max_size=3))
    return "".join(p if i == 0 else draw(ws) + "#" + draw(ws) + p for i, p in enumerate(parts))


KEY = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}([:_./+=' -]?[A-Za-z0-9]{1,6}){0,2}",
                    fullmatch=True).filter(lambda k: " " not in k)
FIELD = st.sampled_from(["title", "Author", "JOURNAL", "year", "note", "booktitle",
                         "pages", "x-custom", "url", "month", "keywords", "abstract"])
TYPE = st.sampled_from(["article", "Article", "INPROCEEDINGS", "book", "misc", "techreport",
                        "FAKE-ENTRY", "online"])
BETWEEN = st.sampled_from(["\n", "\n\n", "\n% a comment with 100% of it\n",
                           "\nfree text, no entry here\n", "\n@comment{ a remark }\n",
                           "\nContact: jane@example.org\n", "\n% @misc{ghost}\n"])


@st.composite
def entry(draw, key: str, defined: list[str]) -> str:
    paren = draw(st.booleans()) and draw(st.booleans())
    opening, closing = ("(", ")") if paren else ("{", "}")
    names = draw(st.lists(FIELD, min_size=0, max_size=5, unique_by=str.lower))
    fields = [f"{draw(ws)}{n}{draw(ws)}={draw(ws)}{draw(value(defined))}" for n in names]
    sep = "," + draw(st.sampled_from(["\n  ", " ", "\n"]))
    body = sep.join(fields)
    trailing = draw(st.sampled_from(["", ",", ",\n"])) if fields else ""
    head_ws = draw(st.sampled_from(["", "", " ", "\n"]))
    # a key in "(" entries ends at white space or a comma only: "(key)" has key "key)"
    end = draw(ws) if fields or not paren else draw(ws1)
    return (f"@{draw(TYPE)}{head_ws}{opening}{draw(ws)}{key}"
            + (sep + body if fields else "") + trailing + end + closing)


@st.composite
def document(draw) -> str:
    keys = draw(st.lists(KEY, min_size=1, max_size=6, unique_by=str.lower))
    out = []
    defined: list[str] = []
    for key in keys:
        if draw(st.integers(0, 4)) == 0:
            name = draw(st.sampled_from(MACROS))
            out.append(f"@string{{{name} = {draw(value(defined))}}}\n")
            defined.append(name)
        if draw(st.integers(0, 8)) == 0:
            out.append('@preamble{ "\\newcommand{\\noop}[1]{}" }\n')
        out.append(draw(entry(key, defined)))
        out.append(draw(BETWEEN))
    return "".join(out)


@pytest.mark.slow
@given(doc=document())
@settings(SETTINGS)
def test_generated_documents_read_as_bibtex_reads_them(doc):
    diffs = oracle.misread(oracle.compare(doc))
    assert not diffs, "\n".join(map(str, diffs[:5]))


# ------------------------------------------------------------------ writing
LIBRARY = r"""% pubcli's write oracle: entries BibTeX reads whole, written as real files write them
@string{ieee = "IEEE"}

@article{quote2020,
  title = "The {"}Quote{"} Problem",
  author = "Ann Author and Bob Builder",
  journal = ieee # " Trans. Things",
  year = 2020,
}

@article{escaped2021,
  title = {Sets \{x\} and \{y\}},
  author = {Carla Cruz},
  journal = {J. Sets},
  year = {2021},
}

@inproceedings{at2019,
  title = {Mail me at x@y.org: 100% {C#} sharp},
  author = {Dan Dorn},
  booktitle = {Proc. Things},
  year = {2019},
}

@misc(paren2018,
  title = {Parentheses (and more)},
  author = {Eve Ek},
  year = 2018,
)

@book
{nextline2017,
  title = {Brace on the next line},
  author = {Fay Fu},
  publisher = {Pub},
  year = {2017},
}

@article{normal2022,
  title = {A Normal Entry about Widgets},
  author = {Hal Hu and Ida Ito},
  journal = {J. Normal},
  year = {2022},
  doi = {10.1000/normal},
}

@article{tail2016,
  title = {The Last Entry},
  author = {Jo Jones},
  journal = {J. Tails},
  year = {2016},
}
"""
DUPLICATE = r"""
@misc{normal2022arxiv,
  title = {A Normal Entry about Widgets},
  author = {Hu, Hal and Ito, Ida},
  year = {2022},
  doi = {10.1000/normal},
  note = {Preprint with 50% more {"}quotes{"}},
}
"""
KEYS = ["quote2020", "escaped2021", "at2019", "paren2018", "nextline2017", "normal2022",
        "tail2016"]
# the entries and values whose edits fail today (issue 18: pubcli does not see an entry
# whose "{" is on the next line; it writes "a\}b" as {a\}b}, which BibTeX reads cut short)
VALUES = ["50% of {A}s", "x@y.org", "C# and F#", 'say "hi"', "a\\b", "{balanced {nested}}",
          "\\{x\\}", "a}b", "{a", "a\\}b", "@misc{injected, title={x}}"]
UNBALANCED = {"a}b", "{a"}  # by BibTeX's count: the only values refused


@pytest.fixture
def lib(tmp_path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    shutil.copy(SHIPPED_CONFIG, d / "pubcli.toml")
    path = d / "library.bib"
    path.write_text(LIBRARY, encoding="utf-8")
    return path


def bib(path: Path) -> oracle.OracleResult:
    return oracle.read(path.read_text(encoding="utf-8"))


def entry_of(result: oracle.OracleResult, key: str) -> oracle.Entry | None:
    return result.by_key().get(key.lower())


def pubcli_agrees(path: Path, key: str) -> list[str]:
    """Where BibTeX's reading of ``key`` differs from pubcli's reading of it."""
    text = path.read_text(encoding="utf-8")
    return [str(d) for d in oracle.misread(oracle.compare(text))
            if d.key.lower() == key.lower()]


def params(items):
    return [pytest.param(x, id=x) for x in items]


@pytest.mark.parametrize("key", params(KEYS))
def test_tag_changes_only_the_tagged_entry(cli, lib, key):
    before = bib(lib)
    r = cli("tag", key, "--add", "Computer vision", "-l", lib)
    assert r.exit_code == 0, r.output
    after = bib(lib)
    assert oracle.untouched_changes(before, after, [key]) == []
    old, new = entry_of(before, key), entry_of(after, key)
    assert new is not None and old is not None
    assert "Computer vision" in new.fields.get("keywords", "")
    assert {k: v for k, v in new.fields.items() if k != "keywords"} == old.fields
    assert pubcli_agrees(lib, key) == []


@pytest.mark.parametrize("value", params(VALUES))
@pytest.mark.parametrize("key", params(["normal2022", "quote2020"]))
def test_edit_set_writes_what_bibtex_reads_as_meant(cli, lib, key, value):
    before, data = bib(lib), lib.read_bytes()
    r = cli("edit", key, "--set", f"note={value}", "-l", lib)
    if value in UNBALANCED:  # refused: then nothing is written
        assert r.exit_code == 2 and "unbalanced braces" in r.stderr
        assert lib.read_bytes() == data
        return
    assert r.exit_code == 0, r.output
    after = bib(lib)
    assert oracle.untouched_changes(before, after, [key]) == []
    new, old = entry_of(after, key), entry_of(before, key)
    assert new is not None and old is not None
    assert oracle.as_intended(value, new.fields.get("note")), new.fields
    assert {k: v for k, v in new.fields.items() if k != "note"} == old.fields
    assert pubcli_agrees(lib, key) == []


@pytest.mark.parametrize("key", params(KEYS))
def test_rename_keeps_the_entry_and_every_other(cli, lib, key):
    before = bib(lib)
    r = cli("rename", key, "renamed2000", "-l", lib)
    assert r.exit_code == 0, r.output
    after = bib(lib)
    assert oracle.untouched_changes(before, after, [key, "renamed2000"]) == []
    assert entry_of(after, key) is None
    new, old = entry_of(after, "renamed2000"), entry_of(before, key)
    assert new is not None and old is not None
    assert {k: v for k, v in new.fields.items() if k != "ids"} == old.fields
    assert new.fields.get("ids") == key
    assert pubcli_agrees(lib, "renamed2000") == []


@pytest.mark.parametrize("key", params(KEYS))
def test_remove_leaves_every_other_entry(cli, lib, key):
    before = bib(lib)
    r = cli("remove", key, "--yes", "-l", lib)
    assert r.exit_code == 0, r.output
    after = bib(lib)
    assert entry_of(after, key) is None
    assert oracle.untouched_changes(before, after, [key]) == []


@pytest.mark.parametrize("value", params(VALUES))
def test_add_writes_what_bibtex_reads_as_meant(cli, lib, value):
    before, data = bib(lib), lib.read_bytes()
    r = cli("add", "--type", "misc", "--title", f"Title {value}", "--author", "Kim Kay",
            "--year", "2024", "--key", "added2024", "--field", f"note={value}",
            "--no-interactive", "--force", "-l", lib)
    if value in UNBALANCED:
        assert r.exit_code == 2 and "unbalanced braces" in r.stderr
        assert lib.read_bytes() == data
        return
    assert r.exit_code == 0, r.output
    after = bib(lib)
    assert oracle.untouched_changes(before, after, ["added2024"]) == []
    new = entry_of(after, "added2024")
    assert new is not None
    assert oracle.as_intended(f"Title {value}", new.fields.get("title")), new.fields
    assert oracle.as_intended(value, new.fields.get("note")), new.fields
    assert pubcli_agrees(lib, "added2024") == []


@pytest.mark.parametrize("where", [pytest.param("end", id="duplicate-at-end"),
                                   pytest.param("start", id="duplicate-first")])
def test_dedupe_merge_changes_only_the_merged_entries(cli, lib, where):
    text = LIBRARY + DUPLICATE if where == "end" else \
        LIBRARY.replace("@string", DUPLICATE.strip() + "\n\n@string", 1)
    lib.write_text(text, encoding="utf-8")
    before = bib(lib)
    r = cli("dedupe", "--merge", "--yes", "-l", lib)
    assert r.exit_code == 0, r.output
    after = bib(lib)
    pair = ["normal2022", "normal2022arxiv"]
    assert oracle.untouched_changes(before, after, pair) == []
    kept = [k for k in pair if entry_of(after, k) is not None]
    assert len(kept) == 1, [e.key for e in after.entries]
    merged = entry_of(after, kept[0])
    assert merged is not None
    assert merged.fields["title"] == "A Normal Entry about Widgets"
    assert merged.fields.get("note") == 'Preprint with 50% more {"}quotes{"}'
    assert pubcli_agrees(lib, kept[0]) == []


def test_the_library_of_the_write_tests_is_read_whole_by_bibtex():
    # the write tests start from entries BibTeX reads whole: no error, every field there
    got = oracle.read(LIBRARY + DUPLICATE)
    assert got.messages == []
    assert [e.key for e in got.entries] == KEYS + ["normal2022arxiv"]
    assert got.by_key()["quote2020"].fields["journal"] == "IEEE Trans. Things"
    assert got.by_key()["escaped2021"].fields["title"] == "Sets \\{x\\} and \\{y\\}"

