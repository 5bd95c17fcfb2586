"""pubcli fmt: the core (pubcli.usecases.fmt.plan), the writer's form, and the command."""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubcli import bibtex, store
from pubcli.usecases import fmt
from pubcli.bibtex import Form
from pubcli.errors import ConfigError, WriteError

from . import bibtex_oracle as oracle
from .conftest import ROOT, write

sys.path.insert(0, str(ROOT / "bench"))
from bibtex_oracle import generate  # noqa: E402
from fmt_safety import check_text  # noqa: E402

MESSY = """% my papers, kept by hand
@string{acm = "ACM"}
@preamble{ "\\newcommand{\\noop}[1]{}" }

@Article{b,
    Title = "A {GPU} study of BERT",
  author={X and Y}, year = 2020, month = {May}, pages={1-10},
   doi = {https://doi.org/10.1145/3.14}, publisher = acm # { Press}}
@misc{a, title={Z}}



@book{c,
  title = {T},
  title = {again},
}
% the end
"""


def formatted(text: str, form: Form = bibtex.DEFAULT_FORM, **kw) -> str:
    return fmt.plan(store.loads(text), form, **kw).apply(text)


def test_default_form_rewrites_entries_and_gaps_and_nothing_else():
    out = formatted(MESSY)
    assert out == """% my papers, kept by hand
@string{acm = "ACM"}
@preamble{ "\\newcommand{\\noop}[1]{}" }

@article{b,
    title = {A {GPU} study of BERT},
    author = {X and Y},
    year = 2020,
    month = may,
    pages = {1-10},
    doi = {https://doi.org/10.1145/3.14},
    publisher = acm # { Press},
}

@misc{a,
    title = {Z},
}



@book{c,
  title = {T},
  title = {again},
}
% the end
"""


def test_read_only_entries_and_failed_blocks_are_left_alone_and_named():
    text = MESSY + "@article{broken, title = {x}, year = }\n"
    plan = fmt.plan(store.loads(text), bibtex.DEFAULT_FORM)
    named = [(s.line, s.key) for s in plan.skipped]
    assert (13, "c") in named  # a repeated field: read-only
    assert any(key is None and line == 18 for line, key in named)  # the broken block
    assert "@article{broken, title = {x}, year = }" in plan.apply(text)


def test_every_option_of_the_form():
    form = Form(indent="\t", quotes=True, align=True, trailing_comma=False,
                order=("title", "author"), pages=True, bare_doi=True, drop=("publisher",),
                protect="acronyms", blank_lines=2)
    out = formatted(MESSY, form)
    assert """@article{b,
\ttitle  = "A {GPU} study of {BERT}",
\tauthor = "X and Y",
\tyear   = 2020,
\tmonth  = may,
\tpages  = "1--10",
\tdoi    = "10.1145/3.14"
}


@misc{a,
\ttitle = "Z"
}""" in out
    assert formatted(out, form) == out


def test_the_plan_names_the_fields_whose_reading_changes():
    form = Form(pages=True, bare_doi=True, drop=("publisher",), protect="acronyms")
    plan = fmt.plan(store.loads(MESSY), form)
    by_key = {c.record.key: set(c.fields) for c in plan.changes}
    assert by_key["b"] == {"title", "pages", "doi", "publisher"}
    assert by_key["a"] == set()  # layout only


def test_lowercase_off_keeps_names_and_types_as_written():
    out = formatted("@Article{k, Title = {T}, YEAR = 1999}\n", Form(lowercase=False))
    assert out == "@Article{k,\n  Title = {T},\n  YEAR = 1999,\n}\n"


def test_months():
    text = ("@misc{a, month = {January}}\n\n@misc{b, month = \"5\"}\n\n@misc{c, month = JAN}\n\n"
            "@misc{d, month = {Spring}}\n\n@misc{e, month = {June--July}}\n")
    out = formatted(text)
    assert "month = jan," in out.split("@misc{b")[0]
    assert "@misc{b,\n  month = may," in out and "@misc{c,\n  month = jan," in out
    assert "month = {Spring}" in out and "month = {June--July}" in out
    assert "month = {January}" in formatted(text, Form(months=False))
    # a file that defines its own 'jan' keeps its month text
    own = '@string{jan = "Janvier"}\n@misc{a, month = {January}}\n'
    assert "month = {January}" in formatted(own)


def test_encoding_both_ways():
    text = '@misc{k, author = {M{\\"u}ller, J{\\\'e}r{\\^o}me and Stra{\\ss}e}, url = {http://x/ü}}\n'
    uni = formatted(text, Form(encoding="unicode"))
    assert "author = {Müller, Jérôme and Straße}" in uni
    assert "url = {http://x/ü}" in uni
    back = formatted(uni, Form(encoding="latex"))
    assert 'author = {M{\\"u}ller, J{\\\'e}r{\\^o}me and Stra{\\ss}e}' in back
    assert "url = {http://x/ü}" in back  # links are not text


def test_protect_braces_words_never_a_whole_title():
    text = "@misc{k, title = {GPT-3 and iPhone apps: a BERT study}}\n"
    out = formatted(text, Form(protect="acronyms"))
    assert "title = {{GPT-3} and {iPhone} apps: a {BERT} study}" in out
    assert formatted(out, Form(protect="acronyms")) == out


def test_sort_keeps_runs_between_comments_and_crossref_parents_after_children():
    text = ("@misc{z, title = {Z}}\n\n@misc{y, title = {Y}}\n\n% fence\n"
            "@proceedings{conf, title = {C}}\n\n@inproceedings{b, crossref = {conf}}\n\n"
            "@inproceedings{a, crossref = {conf}}\n")
    out = formatted(text, sort="key")
    keys = [line.split("{")[1].rstrip(",") for line in out.splitlines() if line.startswith("@")]
    assert keys == ["y", "z", "a", "b", "conf"]
    assert "\n% fence\n" in out
    assert formatted(out, sort="key") == out
    newest = formatted("@misc{o, year = 1999}\n\n@misc{n, year = 2020}\n\n@misc{x}\n", sort="year")
    assert [ln for ln in newest.splitlines() if ln.startswith("@")] == \
        ["@misc{n,", "@misc{o,", "@misc{x,"]


def test_keys_select_entries_and_an_unknown_key_is_an_error():
    plan = fmt.plan(store.loads(MESSY), bibtex.DEFAULT_FORM, keys=["a"])
    assert [c.record.key for c in plan.changes] == ["a"] and not plan.spacing
    with pytest.raises(Exception, match="no entry with key 'nope'"):
        fmt.plan(store.loads(MESSY), bibtex.DEFAULT_FORM, keys=["nope"])


def test_the_store_refuses_a_text_that_reads_otherwise_than_planned():
    lib = store.loads(MESSY)
    plan = fmt.plan(lib, bibtex.DEFAULT_FORM)
    bad = [(s, e, t.replace("X and Y", "X and Z")) for s, e, t in plan.edits]
    from pubcli.store.save import rewrite_text

    with pytest.raises(WriteError, match="entry 'b' would not read back"):
        rewrite_text(lib, bad, plan.expected)


# ---------------------------------------------------------------- the writer's form
def test_new_entries_are_written_in_the_configured_form(tmp_path):
    write(tmp_path / "pubcli.toml", '[fmt]\nalign = true\npages = true\ndrop = ["abstract"]\n'
                                    'delimiters = "quotes"\n')
    path = write(tmp_path / "lib.bib", "@misc{old,\n  title = {Old},\n}\n")
    from pubcli.schema.model import Record

    with store.transaction(path) as lib:
        lib.add(Record("new", "article", {"title": "New", "pages": "3-4", "abstract": "long",
                                          "year": "2020"}))
    text = path.read_text()
    assert text.endswith('@article{new,\n  title = "New",\n  pages = "3--4",\n'
                         '  year  = "2020",\n}\n')
    assert store.load(path).records[1].fields == {"title": "New", "pages": "3--4",
                                                  "year": "2020"}
    again = store.load(path)
    # the new entry is in the form already (the old one was written before [fmt] was set)
    assert [c.record.key for c in fmt.plan(again, store.form_of(again)).changes] == ["old"]
    # an edit writes its new field in the form too
    with store.transaction(path) as lib:
        rec = lib.records[0]
        from pubcli.schema.model import Record as R

        lib.replace(rec, R(rec.key, rec.type, {**rec.fields, "pages": "1-2"}))
    assert 'pages = "1--2"' in path.read_text()


def test_fmt_config_is_checked(tmp_path):
    from pubcli.local import config

    write(tmp_path / "pubcli.toml", "[fmt]\nsort = \"size\"\n")
    with pytest.raises(ConfigError, match="fmt.sort"):
        config.load_config(tmp_path / "lib.bib")
    write(tmp_path / "pubcli.toml", "[fmt]\nindnet = 2\n")
    with pytest.raises(ConfigError, match="unknown setting 'fmt.indnet'"):
        config.load_config(tmp_path / "lib.bib")
    write(tmp_path / "pubcli.toml", "[fmt]\nindent = 4\nblank_lines = false\n")
    form = config.load_config(tmp_path / "lib.bib").fmt
    assert form.indent == "    " and form.blank_lines is None


# ---------------------------------------------------------------- safety: properties
FORMS = st.builds(
    Form, indent=st.sampled_from([None, "  ", "\t"]), quotes=st.booleans(),
    align=st.booleans(), trailing_comma=st.booleans(),
    order=st.sampled_from([(), ("title", "author", "year")]), lowercase=st.booleans(),
    blank_lines=st.sampled_from([None, 0, 1, 2]), months=st.booleans(),
    pages=st.booleans(), bare_doi=st.booleans(),
    drop=st.sampled_from([(), ("note", "abstract")]),
    encoding=st.sampled_from(["", "latex", "unicode"]),
    protect=st.sampled_from(["", "acronyms"]), sort=st.sampled_from(["", "key", "year"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form=FORMS, seed=st.integers(0, 10**6))
def test_fmt_twice_is_fmt_once_on_generated_documents(form, seed):
    text = generate(random.Random(seed), 12)
    r = check_text(text, form, use_oracle=False)
    assert r["idempotent"], r["new"]
    assert r["kept_between"]


REAL = sorted(p for p in (ROOT / "tests" / "corpus").rglob("*.bib"))


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name == "tugboat.bib" else p for p in REAL[:40]], ids=lambda p: p.name)
def test_fmt_on_real_files_is_idempotent_and_keeps_what_bibtex_reads(path):
    try:
        _, text, _ = store.read_text(path)
    except Exception:
        pytest.skip("not UTF-8")
    form = Form(pages=True, bare_doi=True, protect="acronyms", align=True, sort="key")
    for f in (bibtex.DEFAULT_FORM, form):
        r = check_text(text, f, use_oracle=oracle.available())
        assert r["idempotent"] and r["kept_between"]
        assert r["reading_changed"] == []


@pytest.mark.skipif(not oracle.available(), reason="bibtex is not installed")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form=FORMS, seed=st.integers(0, 10**6))
def test_bibtex_reads_generated_documents_the_same_beyond_the_form(form, seed):
    text = generate(random.Random(seed), 15)
    assert check_text(text, form)["reading_changed"] == []


# ---------------------------------------------------------------- the command
def test_check_names_each_entry_and_exits_1_then_fmt_writes_and_check_passes(cli, tmp_path):
    path = write(tmp_path / "lib.bib", MESSY)
    r = cli("fmt", "--check", "-l", path)
    assert r.exit_code == 1
    assert "lib.bib:5: warning: entry 'b' is not in the canonical form" in r.stdout
    assert path.read_text() == MESSY
    r = cli("fmt", "--check", "--format", "github", "-l", path)
    assert "::warning file=" in r.stdout and "line=5," in r.stdout
    r = cli("fmt", "--diff", "-l", path)
    assert r.exit_code == 0 and "+@article{b," in r.stdout and "-@Article{b," in r.stdout
    assert path.read_text() == MESSY
    r = cli("fmt", "-n", "-l", path)
    assert "would format 2 entries" in r.stderr and path.read_text() == MESSY
    r = cli("fmt", "-l", path)
    assert r.exit_code == 0 and "formatted 2 entries" in r.stderr
    assert "left as it is: entry 'c'" in r.stderr
    assert path.read_text() == formatted(MESSY)
    assert cli("fmt", "--check", "-l", path).exit_code == 0


def test_undo_puts_back_the_bytes_fmt_replaced(cli, tmp_path):
    path = write(tmp_path / "lib.bib", MESSY)
    assert cli("fmt", "-l", path).exit_code == 0 and path.read_text() != MESSY
    r = cli("undo", "-l", path)
    assert r.exit_code == 0, r.output
    assert path.read_text() == MESSY


def test_the_pre_commit_hook_formats_the_files_it_is_given(cli, tmp_path):
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    hook = text.split("\n- id: pubcli-fmt\n", 1)[1].split("\n- id:", 1)[0]
    fields = dict(line.strip().split(": ", 1) for line in hook.splitlines() if ": " in line)
    assert fields["types"] == "[bib]"
    entry = fields["entry"].split()
    a = write(tmp_path / "a.bib", "@misc{a, title = {A}}\n")
    b = write(tmp_path / "b.bib", "@misc{b,\n  title = {B},\n}\n")
    r = cli(*entry[1:], "--check", a, b)
    assert r.exit_code == 1 and "a.bib:1:" in r.stdout and "b.bib" not in r.stdout
    assert cli(*entry[1:], a, b).exit_code == 0
    assert a.read_text() == "@misc{a,\n  title = {A},\n}\n"


def test_errors_are_one_line_and_exit_2(cli, tmp_path):
    path = write(tmp_path / "lib.bib", MESSY)
    r = cli("fmt", "nope", "-l", path)
    assert r.exit_code == 2 and "no entry with key 'nope'" in r.stderr
    write(tmp_path / "pubcli.toml", "[fmt]\nprotect = \"all\"\n")
    r = cli("fmt", "-l", path)
    assert r.exit_code == 2 and "fmt.protect" in r.stderr and r.stderr.count("\n") == 1


def test_check_warns_on_unprotected_acronyms_only_when_protect_is_off(cli, tmp_path):
    path = write(tmp_path / "lib.bib", "@misc{k,\n  title = {Fine-tuning BERT},\n}\n")
    # no pubcli.toml at all: protect is off by default, so check warns
    r = cli("check", path)
    assert "unprotected-acronym" in r.stdout and "BERT" in r.stdout
    write(tmp_path / "pubcli.toml", "[fmt]\nindent = 2\n")
    r = cli("check", path)
    assert "unprotected-acronym" in r.stdout and "BERT" in r.stdout
    write(tmp_path / "pubcli.toml", "owner = \"Ada\"\n")  # settings without a [fmt] table
    assert "unprotected-acronym" in cli("check", path).stdout
    write(tmp_path / "pubcli.toml", "[fmt]\nprotect = \"acronyms\"\n")
    assert "unprotected-acronym" not in cli("check", path).stdout
    cli("fmt", "-l", path)
    assert "title = {Fine-tuning {BERT}}" in path.read_text()


def test_the_default_form_is_the_layout_pubcli_always_wrote():
    from pubcli.schema.model import Record

    rec = Record("k", "misc", {"title": "T", "month": "May", "pages": "1-2"})
    assert bibtex.format_entry(rec) == bibtex.format_entry(rec, form=Form()) == \
        "@misc{k,\n  title = {T},\n  month = may,\n  pages = {1-2},\n}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form=FORMS, seed=st.integers(0, 10**6))
def test_fields_kept_by_the_reader_give_the_same_text_as_reading_the_entry_again(form, seed):
    """pubcli fmt keeps how fields were written from the load (Source.fields) when the
    file is parsed or the parse cache kept them; for an entry the cache has none of (a
    save packed it again) it reads the entry again: same text."""
    from dataclasses import replace

    text = generate(random.Random(seed), 12)
    for rec in bibtex.parse(text).records:
        src = rec.source
        raw = text[src.start:src.end]
        assert src.fields is not None
        assert bibtex.rewrite_written(raw, src, form, {}) == \
            bibtex.rewrite_written(raw, replace(src, fields=None), form, {})


def test_the_command_formats_a_file_read_from_the_parse_cache_the_same(cli, tmp_path):
    big = "".join(f"@Misc{{k{i}, Title = \"T {i}\", year = {{{1990 + i % 30}}},\n"
                  f"  note = {{a}} # \" b\", month = {{May}}}}\n" for i in range(4000))
    a, b = write(tmp_path / "a.bib", big), write(tmp_path / "b.bib", big)
    assert cli("list", "-l", b, "--format", "keys").exit_code == 0  # b's parse is cached
    assert cli("fmt", "-l", a).exit_code == 0 and cli("fmt", "-l", b).exit_code == 0
    assert a.read_bytes() == b.read_bytes() != big.encode()
    assert "@misc{k7,\n  title = {T 7},\n  year = {1997},\n  note = {a} # \" b\",\n" \
           "  month = may,\n}" in a.read_text()


def test_the_readme_shows_the_defaults_of_the_form():
    import tomllib

    from pubcli.local.config import form_from

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```toml\n[fmt]\n", 1)[1].split("```", 1)[0]
    assert form_from(tomllib.loads(block)) == bibtex.DEFAULT_FORM


# ---------------------------------------------------------------- the parse cache after fmt
def _big_messy(n: int = 3000, newline: str = "\n") -> str:
    """A library over the cache's size threshold: comments, @string, a block pubcli
    cannot read, a repeated field, entries in and out of the form."""
    parts = ["% kept by hand", '@string{jcs = "J. Comp. Sci."}', ""]
    for i in range(n):
        if i % 3:
            parts.append(f"@Article{{k{i}, Title = \"Title {i} of {{GPU}}s\",\n    author = "
                         f"{{Doe, J{i}}}, journal = jcs, year = {1990 + i % 30},\n  month = "
                         f"{{May}}, note = {{{'words ' * 8}}}}}\n\n")
        else:  # in the form already
            parts.append(f"@misc{{k{i},\n  title = {{T {i}}},\n  year = 2001,\n  note = "
                         f"{{{'words ' * 8}}},\n}}\n")
        if i == 1000:
            parts.append("@article{broken,\n  title {no equals sign}\n}\n")
        if i == 1500:
            parts.append("@book{twice,\n  title = {T},\n  title = {again},\n}\n")
    return "\n".join(parts).replace("\n", newline)


def _snapshot(lib):
    return ([(r.key, r.type, r.fields, r.line, r.source.start, r.source.end,
              r.source.type_written, r.source.key_written, r.source.read_only) for r in lib],
            [(f.line, f.start, f.raw) for f in lib.failed], lib.macros, lib.newline)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_fmt_leaves_a_parse_cache_that_reads_as_a_fresh_parse(cli, tmp_path, newline):
    from pubcli.store import cache

    path = tmp_path / "big.bib"
    path.write_bytes(_big_messy(newline=newline).encode())
    assert path.stat().st_size >= cache.MIN_BYTES
    store.load(path)  # any command before: the cache holds the file
    assert cli("fmt", "-l", path).exit_code == 0  # every entry but a third: a new base
    warm = store.load(path)
    assert warm.document.cached, "the next command parses the file again"
    assert _snapshot(warm) == _snapshot(store.load(path, use_cache=False))
    assert cli("fmt", "--check", "-l", path).exit_code == 0


def test_fmt_of_a_few_entries_appends_them_to_the_parse_cache(cli, tmp_path):
    from pubcli.store import cache

    path = write(tmp_path / "big.bib", _big_messy())
    assert cli("fmt", "-l", path).exit_code == 0
    text = path.read_text()
    text = text.replace("@misc{k9,\n  title = {T 9},", "@Misc{k9, TITLE =  {T 9},")
    text = text.replace("@misc{k2999,\n  title = {T 2999},", "@misc{k2999,  title={T 2999},")
    path.write_text(text)
    store.load(path)  # any command: the cache holds this version
    cfile = cache.cache_file(path, ".marshal")
    inode, size = cfile.stat().st_ino, cfile.stat().st_size
    assert cli("fmt", "-l", path).exit_code == 0
    assert cfile.stat().st_ino == inode and size < cfile.stat().st_size < size + 5_000
    warm = store.load(path)
    assert warm.document.cached
    assert _snapshot(warm) == _snapshot(store.load(path, use_cache=False))
    assert "@misc{k9,\n  title = {T 9}," in path.read_text()


def test_a_sorting_fmt_leaves_no_stale_cache_behind(cli, tmp_path):
    path = write(tmp_path / "big.bib", _big_messy())
    store.load(path)
    assert cli("fmt", "--sort", "year", "-l", path).exit_code == 0
    assert _snapshot(store.load(path)) == _snapshot(store.load(path, use_cache=False))
