"""Fidelity, property-based: hypothesis writes BibTeX documents the way people
and tools do (entries, comments, @string, @preamble, odd spacing, nested braces,
CRLF, a BOM, no final newline) and checks that

* load then save writes the same bytes;
* an edit to one entry changes that entry's bytes and no others, and reads back
  as intended;
* pubcli's fast parse path and bibtexparser's splitter agree on every record
  (key, type, fields, line, where its text starts and ends) and every broken block.

``PUBCLI_LONG=1`` (or ``PUBCLI_HYPOTHESIS_EXAMPLES=N``) runs more examples.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from pubcli import bibtex, store
from pubcli.errors import ValidationError

EXAMPLES = int(os.environ.get("PUBCLI_HYPOTHESIS_EXAMPLES",
                              3000 if os.environ.get("PUBCLI_LONG") else 150))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                    # PUBCLI_HYPOTHESIS_NO_SHRINK=1: report the first failure as found
                    phases=[Phase.explicit, Phase.reuse, Phase.generate] + (
                        [] if os.environ.get("PUBCLI_HYPOTHESIS_NO_SHRINK") else [Phase.shrink]))

# ------------------------------------------------------------------ building blocks
# Strategies are built once, at import: building them per draw costs more than drawing.
ws = st.sampled_from(["", " ", "  ", "\t", "\n", "\n  ", " \n\t", "\n\n"])
ws1 = st.sampled_from([" ", "  ", "\t", "\n", "\n  ", " \n\t"])
nl_ws = st.sampled_from(["\n", "\n\n", "\n  \n", " \n", "\n\n\n"])

# tokens of a value; "{" and "}" open and close a group (balanced afterwards)
TOKENS = st.sampled_from([
    "Deep ", "learning ", "ZeRO", "memory ", "{GPU} ", "M{\\\"u}ller ", "{\\'e}t{\\'e}",
    "na\\\"ive ", "caf\u00e9 ", "\u4e2d\u6587", "50\\% ", "A\\&B", "x--y ", "$O(n^2)$ ",
    "\\textbf{bold} ", "e-mail: a@b.org ", "(parens) ", "semi;colon", "comma, ", "q\\\"uote ",
    "`tick' ", "#hash ", "tab\there", "a=b ", "~tilde", "10.1145/3458817 ",
    "https://example.org/a?b=c&d", " ", "\n    ", "  ", "{", "{", "}", "}",
])


def _balance(tokens: list[str]) -> str:
    out, depth = [], 0
    for t in tokens:
        if t == "}":
            if depth == 0:
                continue
            depth -= 1
        elif t == "{":
            depth += 1
        out.append(t)
    return "".join(out) + "}" * depth


def _unquote(text: str) -> str:
    """Inside "...", a double quote may only appear within braces."""
    out, depth = [], 0
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == '"' and depth == 0:
            continue
        out.append(c)
    return "".join(out)


BRACED_TEXT = st.lists(TOKENS, max_size=8).map(_balance)   # balanced braces, nested
QUOTED_TEXT = BRACED_TEXT.map(_unquote)
MACRO_NAMES = st.sampled_from(["acm", "ieee", "jan", "feb", "may", "dec", "procvldb", "Nips"])
BRACED = BRACED_TEXT.map(lambda t: "{" + t + "}")
QUOTED = QUOTED_TEXT.map(lambda t: '"' + t + '"')
CONCAT_SEP = st.sampled_from([" # ", "#", " #\n  ", "\t# "])


def _concat(parts_and_seps):
    parts, seps = parts_and_seps
    out = parts[0]
    for sep, p in zip(seps, parts[1:]):
        out += sep + p
    return out


VALUE = st.one_of(
    BRACED, BRACED, BRACED, QUOTED,
    st.integers(0, 3000).map(str),
    MACRO_NAMES,
    st.tuples(st.lists(st.one_of(MACRO_NAMES, BRACED, QUOTED), min_size=2, max_size=3),
              st.lists(CONCAT_SEP, min_size=2, max_size=2)).map(_concat),
)

FIELD_NAMES = st.sampled_from([
    "author", "title", "booktitle", "journal", "year", "month", "pages", "doi", "url",
    "keywords", "note", "abstract", "Publisher", "TITLE2", "x-custom", "eprint",
    "archivePrefix", "date", "editor",
])
TYPES = st.sampled_from(["article", "inproceedings", "misc", "book", "techreport", "Article",
                         "INPROCEEDINGS", "phdthesis", "online", "software", "unknowntype"])
# a small pool, so that keys repeat (also differing only in case) now and then
KEYS = st.sampled_from(["a", "B", "key1", "Key1", "m\u00fcller2020", "10.1145/x", "Key:2020",
                        "wang2024zero", "x-y", "k.v", "a_b", "c+d", "Z9"])

# entry layouts: (before ",", after ",", around "=", before the closing brace)
LAYOUTS = [("", "\n  ", " ", "\n"), ("", " ", "", ""), ("", "\n\t", " ", "\n"),
           ("\n  ", " ", "  ", "  \n"), ("", "\n    ", "\t", "")]


@st.composite
def entry(draw):
    etype = draw(TYPES)
    key = draw(KEYS)
    names = draw(st.lists(FIELD_NAMES, max_size=6, unique_by=str.lower))
    paren = draw(st.integers(0, 9)) == 0
    open_, close = ("(", ")") if paren else ("{", "}")
    layout = draw(st.integers(0, len(LAYOUTS)))   # the last one: odd spacing everywhere
    odd = layout == len(LAYOUTS)
    pre, post, eq, end = LAYOUTS[0] if odd else LAYOUTS[layout]
    out = "@" + etype + (draw(ws) if odd else "") + open_ + (draw(ws) if odd else "") + key
    for name in names:
        if odd:
            pre, post, eq = draw(ws), draw(ws1), draw(ws)
        out += pre + "," + post + name + eq + "=" + (draw(ws) if odd else eq) + draw(VALUE)
    if draw(st.booleans()):
        out += (draw(ws) if odd else "") + ","
    tail = draw(ws) if odd else end
    if paren and out.endswith(key) and not tail:
        tail = " "  # BibTeX reads "@misc(a)" as the key "a)", never closed: a key needs an end
    out += tail + close
    return out


@st.composite
def string_block(draw):
    name = draw(MACRO_NAMES)
    body = name + draw(ws) + "=" + draw(ws) + draw(st.one_of(BRACED, QUOTED))
    kw = draw(st.sampled_from(["string", "String", "STRING"]))
    return f"@{kw}{{{body}}}" if draw(st.booleans()) else f"@{kw}({body})"


PREAMBLE = st.tuples(ws, QUOTED, ws).map(lambda t: "@preamble{" + "".join(t) + "}")
COMMENT = st.one_of(
    BRACED_TEXT.map(lambda t: "@comment{" + t + "}"),
    st.sampled_from(["% a comment", "% jabref-meta: databaseType:bibtex;",
                     "% braces { in } a comment", "% 100% sure",
                     "Free text between entries.", "----", "}}} stray",
                     "Some notes (with parens)",
                     "@Comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n}"]),
)
ENTRY = entry()
BLOCKS = st.lists(st.tuples(st.one_of(ENTRY, ENTRY, ENTRY, string_block(), PREAMBLE, COMMENT),
                            nl_ws), max_size=8)
STRAYS = st.sampled_from(["{", "}", '"', "@", "@misc{", ",", "="])


@st.composite
def document(draw, *, broken: bool = False):
    text = "".join(b + sep for b, sep in draw(BLOCKS))
    if broken and text:
        how = draw(st.integers(0, 3))
        at = draw(st.integers(0, len(text)))
        if how == 0:
            text = text[:at]                                  # truncated
        elif how == 1:
            text = text[:at] + draw(STRAYS) + text[at:]      # one stray character
        elif how == 2:
            text = text[:at] + text[at + 1:]                  # one character lost
        else:
            text = text[:at] + "\n@misc{unclosed, title = {x\n" + text[at:]
    if draw(st.integers(0, 3)) == 0:
        text = text.rstrip("\n")                               # no final newline
    if draw(st.integers(0, 2)) == 0:
        text = text.replace("\n", "\r\n")                      # CRLF
    return text


DOCUMENTS = document()
BROKEN_DOCUMENTS = document(broken=True)


def snapshot_records(parsed):
    return [(r.key, r.type, r.fields, r.line, r.source.start, r.source.end, r.source.fields,
             r.source.read_only)
            for r in parsed.records]


# ------------------------------------------------------------------ properties
@pytest.fixture(scope="module")
def ram_dir(tmp_path_factory):
    """A RAM folder when there is one: these examples write files, and fsync on a slow
    disk would dominate the run (the write path itself is the same)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        folder = Path(tempfile.mkdtemp(prefix="pubcli-rt-", dir=shm))
        yield folder
        shutil.rmtree(folder)
    else:
        yield tmp_path_factory.mktemp("rt")


@pytest.mark.slow
@SETTINGS
@given(doc=DOCUMENTS, bom=st.booleans())
def test_load_then_save_is_the_identity(ram_dir, doc, bom):
    path = ram_dir / "library.bib"
    data = (store.UTF8_BOM if bom else b"") + doc.encode("utf-8")
    path.write_bytes(data)
    lib = store.load(path, use_cache=False)
    assert lib.bom == bom
    store.save(lib, path)                  # a forced save of an unchanged library
    assert path.read_bytes() == data
    with store.transaction(path) as lib:   # a transaction that changes nothing
        pass
    assert path.read_bytes() == data


def _edits(rec, draw):
    fields = dict(rec.fields)
    op = draw(st.sampled_from(["change", "add", "remove", "key", "type", "several"]))
    new_key, new_type = rec.key, rec.type
    if op == "change" and fields:
        name = draw(st.sampled_from(sorted(fields)))
        fields[name] = draw(BRACED_TEXT)
    elif op == "remove" and fields:
        del fields[draw(st.sampled_from(sorted(fields)))]
    elif op == "key":
        new_key = rec.key + "x"
    elif op == "type":
        new_type = "misc" if rec.type != "misc" else "article"
    elif op == "several":
        for name in list(fields)[:2]:
            fields[name] = draw(BRACED_TEXT)
        fields["note"] = "added " + draw(BRACED_TEXT)
        if len(fields) > 3:
            del fields[sorted(fields)[0]]
    else:
        fields[draw(st.sampled_from(["note", "doi", "keywords", "zz-new"]))] = \
            draw(BRACED_TEXT)
    return new_key, new_type, fields


@pytest.mark.slow
@SETTINGS
@given(doc=DOCUMENTS, data=st.data())
def test_editing_one_entry_changes_only_that_entrys_bytes(doc, data):
    """Keys repeat in the generated documents (also differing only in case): the edit
    must land on the drawn entry itself, never on another entry with its key."""
    lib = store.loads(doc)
    candidates = [r for r in lib.records if not r.source.read_only]
    assume(candidates)
    i = data.draw(st.integers(0, len(candidates) - 1))
    rec = candidates[i]
    position = next(j for j, r in enumerate(lib.records) if r is rec)
    new_key, new_type, fields = _edits(rec, data.draw)
    assume(new_key == rec.key or not lib.has_key(new_key))
    start, end = rec.source.start, rec.source.end
    lib.replace(rec, rec.copy(key=new_key, type=new_type, fields=fields))
    try:
        out = store.render(lib)
    except ValidationError:
        # refused before anything is written (e.g. a value that would not read back)
        return
    assert out[:start] == doc[:start]
    tail = len(doc) - end
    assert out[len(out) - tail:] == doc[end:]
    # and it reads back as intended, every other entry as it was (compared by position)
    before = [(r.key, r.type, r.fields) for r in store.loads(doc).records]
    after = [(r.key, r.type, r.fields) for r in store.loads(out).records]
    assert len(store.loads(out).failed) == len(lib.failed)
    assert len(after) == len(before)
    assert after[position] == (new_key, new_type, fields)
    for j, (was, now) in enumerate(zip(before, after)):
        if j != position:
            assert now == was


@pytest.mark.slow
@SETTINGS
@given(doc=DOCUMENTS, data=st.data())
def test_adding_and_removing_entries_leave_the_rest_alone(doc, data):
    lib = store.loads(doc)
    original = [(r.key, r.type, r.fields) for r in lib.records]
    removed_at = None
    if lib.records and data.draw(st.booleans()):
        removed_at = data.draw(st.integers(0, len(lib.records) - 1))
        lib.remove(lib.records[removed_at])
    from pubcli.schema.model import Record
    lib.add(Record("zzadded2025", "misc", {"title": data.draw(BRACED_TEXT),
                                           "year": "2025"}))
    out = store.render(lib)
    if removed_at is None:
        assert out.startswith(doc)
    after = [(r.key, r.type, r.fields) for r in store.loads(out).records]
    expected = [t for j, t in enumerate(original) if j != removed_at]
    assert after[:-1] == expected
    assert after[-1][0] == "zzadded2025"


def _agree(doc: str) -> None:
    fast, slow = bibtex.parse(doc), bibtex.parse(doc, fast=False)
    assert snapshot_records(fast) == snapshot_records(slow)
    # broken blocks: same line and offset. (Not the raw text bibtexparser gives an aborted
    # block: it may end with the token that aborted it, which depends on what follows.)
    assert [(f.line, f.start) for f in fast.failed] == [(f.line, f.start) for f in slow.failed]
    assert fast.macros == slow.macros
    assert fast.warnings == slow.warnings


@pytest.mark.slow
@SETTINGS
@given(doc=DOCUMENTS)
def test_fast_path_agrees_with_the_splitter(doc):
    _agree(doc)


@pytest.mark.slow
@SETTINGS
@given(doc=BROKEN_DOCUMENTS)
def test_fast_path_agrees_with_the_splitter_on_broken_documents(doc):
    _agree(doc)


def _plain_agrees(doc: str) -> None:
    """bibtex.read_plain (the store's read-back of fmt's entries) reads what parse reads,
    or declines."""
    plain = bibtex.read_plain(doc)
    if plain is not None:
        parsed = bibtex.parse(doc)
        assert not parsed.failed and not parsed.warnings
        assert not any(r.source.read_only for r in parsed.records)
        assert plain == [(r.key, r.type, r.fields) for r in parsed.records]


@SETTINGS
@given(doc=DOCUMENTS)
def test_the_plain_reader_reads_as_parse_does_or_declines(doc):
    _plain_agrees(doc)
    # the same entries laid out as fmt writes them, which the plain reader takes
    records = bibtex.parse(doc).records
    if all(r.source is not None and not r.source.read_only for r in records):
        from pubcli.usecases import fmt

        lib = store.loads(doc)
        plan = fmt.plan(lib, bibtex.DEFAULT_FORM)
        _plain_agrees(plan.apply(doc))


def test_the_plain_reader_takes_the_entries_fmt_writes():
    from pubcli.usecases import fmt

    doc = ("@string{v = {Venue}}\n@Article{a, Title = {A {GPU} study}, year = 2020,"
           " month = {May}, journal = v}\n@misc{b,\n    note = \"x\"}\n")
    lib = store.loads(doc)
    plan = fmt.plan(lib, bibtex.DEFAULT_FORM)
    new = "\n\n".join(text for (_, _, text), reads in zip(plan.edits, plan.expected) if reads)
    assert bibtex.read_plain(new, lib.macros) == [e for reads in plan.expected for e in reads]


@SETTINGS
@given(doc=BROKEN_DOCUMENTS)
def test_the_plain_reader_declines_what_parse_does_not_read_whole(doc):
    _plain_agrees(doc)


@pytest.mark.parametrize("doc", [
    "@misc{a, title={x}} @misc{b, title={y}}",  # two on one (the last) line
    "@misc{a, title={x}}\n% @misc{b, title={y}}\n",
    "@misc{a, title={x}, title={y}}\n", "@misc{a, title=undefined}\n", "@misc{, t={x}}\n",
    "@misc{a, url={x\n@misc{b, title={y}}\n", "@comment{@misc{a, t={x}}}\n",
])
def test_the_plain_reader_declines_the_hard_cases(doc):
    assert bibtex.read_plain(doc) is None


@pytest.mark.parametrize("doc", [
    "",
    "\n",
    "@misc{a,}",
    "@misc{a, title = {x} }\n@misc{b, title = x # {y} }",
    "@string{acm = {ACM}}\n@misc{a, publisher = acm # { Press}}\n",
    "@misc{a, title = {a}\n@misc{b, title = {b}}\n",
    "@misc{a, title = {x}}%comment\n",
    "  @misc{a, title = {x}}\n",
])
def test_hand_picked_documents(doc):
    _agree(doc)
    assert store.render(store.loads(doc)) == doc


def test_editing_an_entry_that_uses_a_macro_with_braces():
    """Found by the property above: a macro whose value holds braces made every
    edit of an entry using it fail the read-back check."""
    doc = ('@string{ieee = {{IEEE} Press}}\n@string{tr = "{IEEE} Trans."}\n'
           "@article{a, author={X}, publisher = ieee, journal = tr # { Foo}, year=2020}\n")
    lib = store.loads(doc)
    rec = lib["a"]
    lib.replace("a", rec.copy(fields={**rec.fields, "note": "new"}))
    out = store.render(lib)
    assert out.startswith(doc.rstrip("}\n"))
    got = store.loads(out)["a"]
    assert got.fields["publisher"] == "{IEEE} Press"
    assert got.fields["journal"] == "{IEEE} Trans. Foo"
    assert got.fields["note"] == "new"


def test_a_second_string_definition_wins_on_both_paths():
    """Found by the property above: a repeated @string crashed the parser."""
    doc = "@article(C)\n@string(acm={a})\n@string(acm={b})\n@misc{x, p=acm}\n"
    _agree(doc)
    assert store.loads(doc)["x"].fields["p"] == "b"


def test_editing_an_entry_that_uses_a_macro_defined_later():
    """Found by the property above: BibTeX reads a macro used before its @string as
    the bare word; the read-back check must not refuse edits to such an entry."""
    doc = "@article(N, author={A}, title={T}, date=acm)\n@string(acm={2020})\n"
    lib = store.loads(doc)
    assert lib["N"].fields["date"] == "acm"
    lib.replace("N", lib["N"].copy(type="misc"))
    assert store.render(lib) == "@misc(N, author={A}, title={T}, date=acm)\n@string(acm={2020})\n"


def test_a_broken_block_that_starts_like_an_earlier_entry_is_placed_right():
    """Found by the property above: the splitter path placed a broken block that
    repeats the opening of an earlier entry ("@inproceedings{") at that entry."""
    doc = ("@inproceedings{key1,\n  author = {A},\n  title = {T}\n}\n"
           "@inproceedings{")
    _agree(doc)
    assert [(f.line, f.start) for f in bibtex.parse(doc, fast=False).failed] == \
        [(5, doc.rindex("@"))]
