"""Writing a library's edits into its text: only what changed is rewritten.

Replaced entries are patched in place (see :func:`pubcli.bibtex.patch_entry`),
removed ones cut out, new ones appended; each text written is parsed again
and must read back as intended. After the write, every record's offsets and
line are brought up to date without parsing the document again (:func:`rebase`;
:func:`place_rewritten` after ``pubcli fmt``'s :func:`rewrite_text`).
"""

from __future__ import annotations

import bisect

from .. import bibtex
from pubcli.local import gcpause
from ..errors import ValidationError, WriteError
from pubcli.store.library import Library
from pubcli.schema.model import Record


class Plan:
    """What a save changes: edits on the old text and entries appended at the end."""

    def __init__(self) -> None:
        self.edits: list[tuple[int, int, str, Record | None]] = []  # start, end, new text
        self.appended: list[tuple[Record, int]] = []  # record, offset in the new text
        self.parsed: dict[int, Record] = {}  # id(record) -> its new text, parsed


def render(library: Library) -> str:
    """The document text after the library's pending edits (without BOM)."""
    return render_plan(library)[0]


def preview(library: Library) -> list[tuple[Record, str]]:
    """What a save would write for each changed or added entry, in file order: the
    very text (newlines, indentation, kept field spellings) the real write uses, so a
    dry run shows exactly what would land. Removed entries are not listed."""
    text, plan = render_plan(library)
    out = [(rec, new_raw) for _, _, new_raw, rec in plan.edits if rec is not None]
    nl = library.document.newline
    for rec, offset in plan.appended:
        end = text.find(nl + nl, offset)
        out.append((rec, text[offset:end if end >= 0 else len(text)].rstrip("\r\n")))
    return out


def render_plan(library: Library) -> tuple[str, Plan]:
    plan = Plan()
    replaced, removed, added = library.pending()
    text = library.document.text
    if not (replaced or removed or added):
        return text, plan
    nl = library.document.newline
    macros = library.document.macros
    form = form_of(library)
    indent = bibtex.detect_indent(text)
    for rec in replaced:
        old = library.original_of(rec)
        src = rec.source
        if old is None or src is None or old == rec:
            continue
        _make_writable(rec, old)
        _put_in_form(rec, old, form)
        new_raw = bibtex.patch_entry(text[src.start:src.end], src, old, rec, macros,
                                     indent=indent, form=form)
        plan.parsed[id(rec)] = _verify(new_raw, rec, macros, old)
        plan.edits.append((src.start, src.end, new_raw, rec))
    for rec in removed:
        src = rec.source
        if src is None:
            continue
        if src.read_only.startswith(bibtex.UNREAD):
            raise ValidationError(f"entry '{rec.key}' (line {rec.line}): {src.read_only}; "
                                  "fix the entry before it first; nothing was written",
                                  path=library.path, line=rec.line)
        start, end = src.start, src.end
        # take the rest of the line and one blank line with the entry
        while end < len(text) and text[end] in " \t":
            end += 1
        if text.startswith(nl, end):
            end += len(nl)
            if text.startswith(nl, end) and (start == 0 or text.endswith(nl + nl, 0, start)
                                             or text.endswith(nl, 0, start)):
                end += len(nl)
        plan.edits.append((start, end, "", None))
    plan.edits.sort(key=lambda e: e[0])
    parts: list[str] = []
    pos = 0
    for start, end, rep, _ in plan.edits:
        parts.append(text[pos:start])
        parts.append(rep)
        pos = end
    parts.append(text[pos:])
    out = "".join(parts)
    if added:
        _refuse_append_into_open_block(library)
        chunks = []
        for rec in added:
            _make_writable(rec, None)
            _put_in_form(rec, None, form)
            entry = bibtex.format_entry(rec, indent=indent, newline=nl, form=form)
            plan.parsed[id(rec)] = _verify(entry, rec, macros)
            chunks.append((rec, entry))
        # (pieces joined once: the text before them is the whole file, copied once)
        pieces = [nl] if out and not out.endswith(nl) else []
        if out and not out.isspace() and not (out[-2 * len(nl):] + "".join(pieces)).endswith(
                nl + nl):
            pieces.append(nl)
        size = len(out) + sum(map(len, pieces))
        for i, (rec, entry) in enumerate(chunks):
            if i:
                pieces.append(nl + nl)
                size += 2 * len(nl)
            plan.appended.append((rec, size))
            pieces.append(entry)
            size += len(entry)
        pieces.append(nl)
        out = "".join([out, *pieces])
    return out, plan


def _make_writable(rec: Record, old: Record | None) -> None:
    """Give the fields this save writes the form BibTeX reads back as meant
    (:func:`pubcli.bibtex.writable`), in the record itself, so that the library in
    memory says what the file will say."""
    for name, value in rec.fields.items():
        if old is None or old.fields.get(name) != value:
            fixed = bibtex.writable(value)
            if fixed != value:
                rec.fields[name] = fixed
                rec.row = None  # the display row, if any, was made from the old value


def form_of(library: Library) -> bibtex.Form:
    """The form this library's new entries and fields are written in: the document's
    (set by a caller), else the ``[fmt]`` of the library's pubcli.toml."""
    doc = library.document
    if doc is not None and doc.form is not None:
        return doc.form
    if library.path is None:
        return bibtex.DEFAULT_FORM
    from pubcli.local.config import load_config

    form = load_config(library.path).fmt
    if doc is not None:
        doc.form = form
    return form


def _put_in_form(rec: Record, old: Record | None, form: bibtex.Form) -> None:
    """Normalise the fields this save writes as ``form`` asks (a page range, a DOI...;
    dropped fields left out), in the record itself, as :func:`_make_writable` does.
    Fields unchanged since ``old`` are left as they are (``pubcli fmt`` formats them)."""
    if form == bibtex.DEFAULT_FORM:
        return
    new = {k: v for k, v in rec.fields.items() if old is None or old.fields.get(k) != v}
    if not new:
        return
    fixed = bibtex.in_form(new, form)
    if fixed != new:
        for k in new:
            if k not in fixed:
                del rec.fields[k]
            else:
                rec.fields[k] = fixed[k]
        rec.row = None


def _refuse_append_into_open_block(library: Library) -> None:
    """A block BibTeX reads on to the end of the file (a value never closed) would
    swallow whatever is appended: BibTeX would read the new entry as part of it."""
    for f in library.document.failed:
        if f.open_to_end:
            raise ValidationError(
                f"the block on line {f.line} is not closed (a missing '}}'?), so BibTeX "
                "would read a new entry as part of it; close it first; nothing was written",
                path=library.path, line=f.line)


def _verify(entry_text: str, rec: Record, macros: dict[str, str],
            old: Record | None = None) -> Record:
    """Parse what we are about to write and check it reads back as intended.
    Fields unchanged since ``old`` keep their text verbatim and are not compared: a
    macro they use may be (re)defined elsewhere in the file than ``macros`` says."""
    parsed = bibtex.parse(entry_text, macros=macros)
    got = parsed.records[0].fields if len(parsed.records) == 1 else {}
    fields_ok = got.keys() == rec.fields.keys() and all(
        got[k] == v for k, v in rec.fields.items() if old is None or old.fields.get(k) != v)
    if (parsed.failed or len(parsed.records) != 1 or parsed.records[0].key != rec.key
            or not fields_ok or parsed.records[0].type != rec.type):
        raise WriteError(f"internal check failed: the text written for '{rec.key}' would not "
                         "read back the same; nothing was written")
    return parsed.records[0]


def rebase(library: Library, text: str, plan: Plan) -> None:
    """Bring every record's (and kept block's) offsets and line up to date with the
    text just written, without parsing the document again: text outside the edits
    moved by what the edits before it added or removed."""
    if not plan.edits and _place_appended(library, text, plan):
        return  # entries appended only: nothing before them moved
    old_text = library.document.text
    starts = [e[0] for e in plan.edits]
    shift_chars = [0]  # shift_chars[i]: total change made by the first i edits
    shift_lines = [0]
    for start, end, new, _ in plan.edits:
        shift_chars.append(shift_chars[-1] + len(new) - (end - start))
        shift_lines.append(shift_lines[-1] + new.count("\n") - old_text.count("\n", start, end))

    def shift_before(offset: int) -> tuple[int, int]:
        i = bisect.bisect_left(starts, offset)  # edits that start before ``offset``
        return shift_chars[i], shift_lines[i]

    edited = {id(rec): start for start, _, _, rec in plan.edits if rec is not None}
    appended = dict((id(rec), offset) for rec, offset in plan.appended)
    line = pos = 0
    for rec in library.records:
        if id(rec) in appended:
            offset = appended[id(rec)]
            line += text.count("\n", pos, offset)
            pos = offset
            rec.source = _placed(plan.parsed[id(rec)], offset, library.document.newline)
            rec.line = line + 1
        elif id(rec) in edited:
            dc, dl = shift_before(edited[id(rec)])
            rec.source = _placed(plan.parsed[id(rec)], edited[id(rec)] + dc, library.document.newline)
            rec.line += dl
        elif rec.source is not None:
            dc, dl = shift_before(rec.source.start)
            if dc or dl:
                rec.source.start += dc
                rec.source.end += dc
                rec.line += dl
    _shift_blocks(library, [(start, end, new) for start, end, new, _ in plan.edits])


def _place_appended(library: Library, text: str, plan: Plan) -> bool:
    """:func:`rebase` when the save only appended entries, which end the records: each
    new record is placed at its offset, its line counted from the last entry before it
    (a record's line is the line its text starts on), the others left as they are.
    False (nothing done) when the new records are not the last ones."""
    records = library.records
    k = len(plan.appended)
    if k > len(records) or not all(records[len(records) - k + n] is rec
                                   for n, (rec, _) in enumerate(plan.appended)):
        return False
    line = pos = 0
    for i in range(len(records) - k - 1, -1, -1):
        src = records[i].source
        if src is not None:
            line, pos = records[i].line - 1, src.start
            break
    nl = library.document.newline
    for rec, offset in plan.appended:
        line += text.count("\n", pos, offset)
        pos = offset
        rec.source = _placed(plan.parsed[id(rec)], offset, nl)
        rec.line = line + 1
    return True


def _placed(parsed: Record, start: int, newline: str) -> bibtex.Source:
    src = parsed.source
    assert src is not None, "a parsed record knows where its text sits"
    return bibtex.Source(start + src.start, start + src.end, src.type_written, src.key_written,
                         None, newline, src.read_only)


def source_text(library: Library, rec: Record) -> str:
    """The entry's text as it stands in the file (or as it would be written)."""
    src = rec.source
    if src is not None and library.original_of(rec) is None:
        return library.document.text[src.start:src.end]
    return bibtex.format_entry(rec, indent=bibtex.detect_indent(library.document.text),
                               newline=library.document.newline, form=form_of(library))


def rewrite_text(library: Library, edits: list[tuple[int, int, str]],
                 expected: list[list[tuple[str, str, dict[str, str]]]]) -> str:
    """The document's text with ``edits`` ((start, end, new text), sorted, not
    overlapping: whole entries, runs of them, or the white space between them) made on
    it, read back and checked against ``expected``: for each edit, (key, type, fields)
    of the entries its text holds, in order ([] for white space; ``pubcli fmt``'s plan
    says what it changes). The edited texts are read first, together; when that
    reading differs (a macro redefined further on), the whole new text is read and
    must hold the same blocks pubcli cannot read, the same ``@string`` macros and every
    entry as expected, the ones outside the edits as they were."""
    with gcpause.paused():  # many small objects read back, no cycles
        return _rewrite_text(library, edits, expected)


def _rewrite_text(library: Library, edits: list[tuple[int, int, str]],
                  expected: list[list[tuple[str, str, dict[str, str]]]]) -> str:
    text = library.document.text
    out, pos = [], 0
    for start, end, new in edits:
        if start < pos or end < start:
            raise WriteError("internal check failed: overlapping edits; nothing was written")
        if not new.strip(" \t\r\n") and text[start:end].strip(" \t\r\n"):
            raise WriteError("internal check failed: an edit removes text; nothing was written")
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    new_text = "".join(out)
    doc = library.document
    edited = [new for (_, _, new), exp in zip(edits, expected, strict=True) if exp]
    want = [e for exp in expected for e in exp]
    joined = "\n\n".join(edited)
    plain = bibtex.read_plain(joined, doc.macros)
    if plain is not None:
        if plain == want:
            return new_text
    else:
        quick = bibtex.parse(joined, macros=doc.macros)
        if not quick.failed and [(r.key, r.type, r.fields) for r in quick.records] == want:
            return new_text
    parsed = bibtex.parse(new_text)
    whole = _whole_reading(library, edits, expected)
    got = [(r.key, r.type, r.fields) for r in parsed.records]
    if ([f.raw for f in parsed.failed] != [f.raw for f in doc.failed]
            or parsed.macros != doc.macros or got != whole):
        bad = next((f"entry '{a[0]}'" for a, b in zip(got, whole, strict=True) if a != b),
                   "the file's blocks")
        raise WriteError(f"internal check failed: {bad} would not read back as planned; "
                         "nothing was written")
    return new_text


def _whole_reading(library: Library, edits: list[tuple[int, int, str]],
                   expected: list[list[tuple[str, str, dict[str, str]]]]
                   ) -> list[tuple[str, str, dict[str, str]]]:
    """Every entry of the new text as it must read: the ones an edit rewrites as
    expected (an edit of entries starts where its first entry starts), the others as
    loaded."""
    spans = [(s, e, exp) for (s, e, _), exp in zip(edits, expected, strict=True) if exp]
    out: list[tuple[str, str, dict[str, str]]] = []
    k = 0
    for rec in library.records:
        src = rec.source
        if src is None:
            continue
        while k < len(spans) and spans[k][1] <= src.start:
            k += 1
        if k < len(spans) and spans[k][0] <= src.start and src.end <= spans[k][1]:
            if src.start == spans[k][0]:
                out += spans[k][2]
            continue
        out.append((rec.key, rec.type, rec.fields))
    return out



def place_rewritten(library: Library, text: str, edits: list[tuple[int, int, str]],
                    expected: list[list[tuple[str, str, dict[str, str]]]]) -> list[int] | None:
    """After :func:`rewrite_text`'s ``text`` is written: bring the records up to date
    with it in memory (offsets, lines, type and fields as ``expected`` says they now
    read), as :func:`rebase` does after a save, so that the caches can follow the new
    text without parsing it. Only for edits that each rewrite one whole entry or the
    white space between entries (fmt without a sort); None, and nothing touched,
    otherwise. Returns the indices of the records rewritten."""
    with gcpause.paused():
        return _place_rewritten(library, text, edits, expected)


def _place_rewritten(library: Library, text: str, edits: list[tuple[int, int, str]],
                     expected: list[list[tuple[str, str, dict[str, str]]]]) -> list[int] | None:
    doc = library.document
    records = library.records
    n = len(edits)
    # each record's start in the new text, and the edit that rewrites it (-1: none)
    starts: list[int] = []
    which: list[int] = []
    dc = k = 0
    for rec in records:
        src = rec.source
        if src is None:
            return None
        while k < n and edits[k][0] < src.start:
            s, e, new = edits[k]
            if expected[k] or e > src.start:
                return None  # an edit of entries that is not this one's: a sorted run
            dc += len(new) - (e - s)
            k += 1
        if k < n and edits[k][0] == src.start and expected[k]:
            s, e, new = edits[k]
            exp = expected[k]
            if len(exp) != 1 or e != src.end or exp[0][0] != rec.key:
                return None
            starts.append(s + dc)
            which.append(k)
            dc += len(new) - (e - s)
            k += 1
        else:
            starts.append(src.start + dc)
            which.append(-1)
    if any(expected[k:]):
        return None
    heads = [bibtex.type_written(edits[j][2]) if j >= 0 else None for j in which]
    if any(t is None for t, j in zip(heads, which, strict=True) if j >= 0):
        return None
    count = text.count
    line = pos = 0
    rewritten = []
    nl = doc.newline
    for i, rec in enumerate(records):
        start = starts[i]
        line += count("\n", pos, start)
        pos = start
        src = rec.source
        assert src is not None
        j = which[i]
        if j >= 0:
            type_written = heads[i]
            assert type_written is not None
            rec.source = bibtex.Source(start, start + len(edits[j][2]), type_written,
                                       src.key_written, None, nl, "")
            _, rec.type, rec.fields = expected[j][0]
            rec.row = None
            rewritten.append(i)
        else:
            src.end += start - src.start
            src.start = start
        rec.line = line + 1
    _shift_blocks(library, edits)
    doc.text = text
    return rewritten


def _shift_blocks(library: Library, edits: list[tuple[int, int, str]]) -> None:
    """The kept blocks' and warnings' offsets and lines after ``edits`` (none inside
    them)."""
    doc = library.document
    if not (doc.failed or doc.warnings):
        return
    old_text = doc.text
    starts = [e[0] for e in edits]
    shift_chars, shift_lines = [0], [0]
    for start, end, new in edits:
        shift_chars.append(shift_chars[-1] + len(new) - (end - start))
        shift_lines.append(shift_lines[-1] + new.count("\n") - old_text.count("\n", start, end))
    for f in library.document.failed:
        if f.start >= 0:
            i = bisect.bisect_left(starts, f.start)
            f.start += shift_chars[i]
            f.line += shift_lines[i]
    warnings = library.document.warnings
    lines_at = [old_text.count("\n", 0, s) for s in starts] if warnings else []
    for w in warnings:
        w[0] += shift_lines[bisect.bisect_left(lines_at, w[0] - 1)]
