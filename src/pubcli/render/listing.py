"""Renderings of grouped records for ``pubcli list`` (never prints itself).

* :func:`tables`: one rich Table per group, for a terminal wide enough;
* :func:`stacked`: each publication on a few short lines, for a narrow
  terminal (keys are never cut);
* :func:`plain`: one line per publication under a heading per group, for pipes
  and very long listings (no ANSI codes, greppable);
* :func:`lines`: one short line per publication (``--format line``);
* :func:`as_json`, :func:`as_csv`, :func:`as_keys`, :func:`as_bibtex`: the
  machine formats of ``pubcli list --format``.

Every text they return has been through :func:`pubcli.render.text.clean`.
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Callable, Iterator, Sequence

from pubcli.usecases.grouping import unique_records
from pubcli.schema.model import GroupBy, Record
from pubcli.text.display import row_of
from pubcli.text.view import View, owner_flags, short_authors, view
from .text import clean, csv_cell, json_safe

Groups = Sequence[tuple[str, Sequence[Record]]]

TABLE_MIN_WIDTH = 80  # narrower terminals get the stacked layout
_TITLE_SHARE = 5 / 14  # the title column's share of a table's width (ratios 5:3:2:2 + year)



def _shown_title(v) -> str:
    """A title as a terminal shows it: simple TeX math as Unicode (``$O(n^2)$`` ->
    "O(n²)", :func:`pubcli.text.math.terminal_text`); machine formats keep ``$...$``."""
    if "$" not in v.title:
        return v.title
    from pubcli.text.math import terminal_text

    return terminal_text(v.rec.fields.get("title", "")) or v.title

def heading(name: str, count: int, by: GroupBy) -> str:
    noun = "publication" if count == 1 else "publications"
    if by is GroupBy.none or not name:
        return f"{count} {noun}"
    return clean(f"{name} ({count} {noun})")


def _author_segments(v: View, owner: str | None, limit: int = 3):
    owner_idx = {i for i, f in enumerate(owner_flags(v.raw_names, owner)) if f}
    return [(clean(s), o) for s, o in short_authors(v.authors, owner_idx, limit)]


def _owner_positions(owner: str) -> Callable[[Sequence[str]], set[int]]:
    """Which of a row's raw names denote ``owner`` (:func:`pubcli.view.owner_flags`),
    each distinct name compared once per listing: co-authors repeat from row to row."""
    known: dict[str, bool] = {}

    def positions(raw: Sequence[str]) -> set[int]:
        out = set()
        for i, name in enumerate(raw):
            hit = known.get(name)
            if hit is None:
                hit = known[name] = owner_flags((name,), owner)[0]
            if hit:
                out.add(i)
        return out

    return positions


def fits_table(groups: Groups, width: int) -> bool:
    """Can a table ``width`` columns wide show every key whole in its title cell?"""
    if width < TABLE_MIN_WIDTH:
        return False
    longest = max((len(r.key) for _, recs in groups for r in recs), default=0)
    return longest <= int((width - 12) * _TITLE_SHARE)


def tables(groups: Groups, by: GroupBy, owner: str | None = None) -> list:
    """rich renderables: a table per group, titled with its count; each title
    carries its citation key on a dim second line."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    out = []
    for name, recs in groups:
        t = Table(title=heading(name, len(recs), by), title_justify="left",
                  title_style="bold", box=box.SIMPLE_HEAD, expand=True, pad_edge=False)
        t.add_column("Year", no_wrap=True, width=4)
        t.add_column("Title", ratio=5)
        t.add_column("Authors", ratio=3)
        t.add_column("Venue", ratio=2)
        t.add_column("Areas", ratio=2)
        for rec in recs:
            v = view(rec)
            authors = Text()
            for seg, is_owner in _author_segments(v, owner):
                authors.append(seg, style="bold" if is_owner else None)
            title = Text(clean(_shown_title(v)) or "(no title)")
            if v.featured:
                title.append(" ★", style="yellow")
            title.append("\n" + clean(v.key), style="dim")  # the key, for tag/dedupe commands
            t.add_row(str(v.year or ""), title, authors, clean(v.venue),
                      clean(", ".join(v.areas)))
        out.append(t)
    return out


def stacked(groups: Groups, by: GroupBy, owner: str | None = None, *, width: int = 60,
            bold: Callable[[str], str] = lambda s: s) -> str:
    """Each publication on a few lines (year and title; authors; venue and areas;
    key), wrapped to ``width``; the key is never wrapped or cut."""
    lines: list[str] = []
    indent = " " * 6
    width = max(width, 20)
    first = textwrap.TextWrapper(width=width, subsequent_indent=indent, break_on_hyphens=False)
    rest = textwrap.TextWrapper(width=width, initial_indent=indent, subsequent_indent=indent,
                                break_on_hyphens=False)
    for name, recs in groups:
        if lines:
            lines.append("")
        lines.append(bold(heading(name, len(recs), by)))
        for rec in recs:
            v = view(rec)
            title = (clean(_shown_title(v)) or "(no title)") + (" ★" if v.featured else "")
            lines.extend(first.wrap(f"{str(v.year or '----'):<4}  {title}"))
            authors = "".join(bold(s) if o else s for s, o in _author_segments(v, owner))
            where = " · ".join(x for x in (clean(v.venue), clean(", ".join(v.areas))) if x)
            for part in (authors, where):
                if part:
                    lines.extend(rest.wrap(part))
            lines.append(indent + clean(v.key))
    return "\n".join(lines) + ("\n" if lines else "")


def plain(groups: Groups, by: GroupBy, owner: str | None = None,
          bold: Callable[[str], str] | None = None) -> str:
    """One line per publication: year | title | authors | venue | areas | key."""
    if bold is None:
        return _plain_lines(groups, by, owner)
    lines: list[str] = []
    for name, recs in groups:
        if lines:
            lines.append("")
        lines.append(bold(heading(name, len(recs), by)))
        for rec in recs:
            v = view(rec)
            authors = "".join(bold(s) if o else s for s, o in _author_segments(v, owner))
            cells = [str(v.year or "----"), clean(v.title) or "(no title)", authors,
                     clean(v.venue), clean(", ".join(v.areas)), clean(v.key)]
            lines.append("  " + " | ".join(cells))
    return "\n".join(lines) + ("\n" if lines else "")


def _plain_lines(groups: Groups, by: GroupBy, owner: str | None) -> str:
    """:func:`plain` without bold, straight from the display rows (the piped listing).

    Each line is cleaned whole: with no bold codes in it, cleaning the joined line is
    cleaning each cell, as the separators hold no control character and no newline
    (a CR is kept only before a newline, which a separator never starts with)."""
    lines: list[str] = []
    append = lines.append
    positions = _owner_positions(owner) if owner else None
    for name, recs in groups:
        if lines:
            append("")
        append(heading(name, len(recs), by))
        for rec in recs:
            _, _, title, raw, authors, venue, year, _, areas, _ = rec.row or row_of(rec)
            idx = positions(raw) if positions is not None else None
            if idx:
                who = "".join(s for s, _ in short_authors(authors, idx))
            elif len(authors) <= 4:  # short_authors' limit + 1
                who = ", ".join(authors)
            else:
                who = f"{', '.join(authors[:3])}, … ({len(authors)} authors)"
            append(clean(f"  {year or '----'} | {title or '(no title)'} | {who} | {venue} | "
                         f"{', '.join(areas)} | {rec.key}"))
    return "\n".join(lines) + ("\n" if lines else "")


KEY_COLUMN = 28     # at most this wide; a longer key is shown whole and pushes the rest
AUTHOR_COLUMN = 18


def lines(groups: Groups, width: int | None = None) -> str:
    """One short line per publication (each once, in the groups' order): key, year, first
    author, title; cut to ``width`` columns (None: not cut). Keys are never cut."""
    from pubcli.schema.names import family_name

    recs = unique_records(groups)
    cells = []
    for rec in recs:
        row = rec.row or row_of(rec)
        raw = row.raw_names
        if not raw:
            who = ""
        elif len(raw) == 1:
            who = family_name(raw[0])
        elif len(raw) == 2:
            who = f"{family_name(raw[0])} & {family_name(raw[1])}"
        else:
            who = f"{family_name(raw[0])} et al."
        cells.append((clean(rec.key), str(row.year or "----"), clean(who),
                      clean(row.title) or "(no title)"))
    kw = min(max((len(c[0]) for c in cells), default=0), KEY_COLUMN)
    aw = min(max((len(c[2]) for c in cells), default=0), AUTHOR_COLUMN)
    out = []
    for key, year, who, title in cells:
        if len(who) > aw:
            who = who[:aw - 1] + "…"
        line = f"{key:<{kw}}  {year}  {who:<{aw}}  {title}"
        if width is not None and len(line) > width:
            line = line[:max(width - 1, len(key))] + "…"
        out.append(line.rstrip())
    return "".join(o + "\n" for o in out)


def record_dict(rec: Record) -> dict:
    v = view(rec)
    return {"key": v.key, "type": v.type, "year": v.year, "month": v.month, "title": v.title,
            "authors": v.authors, "venue": v.venue, "areas": v.areas, "featured": v.featured,
            "links": dict(v.links), "fields": rec.fields}


def as_json(groups: Groups, by: GroupBy) -> str:
    """The listing as JSON: ``{"by": ..., "groups": [{"name", "count", "entries"}]}``, or
    ``{"entries": [...]}`` for ``--by none``; each entry is :func:`record_dict`."""
    return b"".join(json_chunks(groups, by)).decode("utf-8")


#: entries per chunk of :func:`json_chunks` (a few MB of text)
JSON_CHUNK = 2000


def json_chunks(groups: Groups, by: GroupBy,
                form: Callable[[Record], bytes] | None = None) -> Iterator[bytes]:
    """:func:`as_json` in UTF-8 pieces, to be written one after the other: the same text
    as ``json.dumps(data, ensure_ascii=False, indent=2)`` of the whole listing (plus
    :func:`~pubcli.render.text.json_safe` and a final newline), without the whole of
    it in memory. Each entry is its :func:`json_entry` (or ``form`` of it: the same
    bytes, kept by :func:`pubcli.store.entry_forms`), indented where it stands."""
    return _json_chunks(groups, by, form or json_entry)


def _json_chunks(groups: Groups, by: GroupBy, form: Callable[[Record], bytes]
                 ) -> Iterator[bytes]:
    if by is GroupBy.none:
        every = [r for _, rs in groups for r in rs]
        yield b'{\n  "entries": ' + (b"[]" if not every else b"[\n")
        yield from _json_entries(every, b"    ", form)
        yield (b"" if not every else b"\n  ]") + b"\n}\n"
        return
    yield f'{{\n  "by": {_enc(by.value)},\n  "groups": '.encode() + (b"[]" if not groups
                                                                     else b"[")
    for i, (name, recs) in enumerate(groups):
        head = f'    {{\n      "name": {json_safe(_enc(name))},\n      "count": {len(recs)},' \
            '\n      "entries": '
        yield (b",\n" if i else b"\n") + head.encode() + (b"[\n" if recs else b"[]")
        yield from _json_entries(recs, b"        ", form)
        yield (b"\n      ]" if recs else b"") + b"\n    }"
    yield (b"\n  ]" if groups else b"") + b"\n}\n"


_enc: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _json_entries(recs: Sequence[Record], ind: bytes, form: Callable[[Record], bytes]
                  ) -> Iterator[bytes]:
    """The entries, each ``form`` (written at no indentation: every newline in it is
    structure, as JSON strings escape theirs) moved in to ``ind``, JSON_CHUNK at a time."""
    deeper = b"\n" + ind
    for start in range(0, len(recs), JSON_CHUNK):
        text = ind + b",\n".join(map(form, recs[start:start + JSON_CHUNK]))
        yield (b",\n" if start else b"") + text.replace(b"\n", deeper)


def json_entry(rec: Record) -> bytes:
    """:func:`record_dict` of ``rec`` as ``json.dumps(..., ensure_ascii=False, indent=2)``
    writes it, C1 controls escaped (:func:`~pubcli.render.text.json_safe`): the JSON
    listing's text of one entry, at no indentation, in UTF-8."""
    v = view(rec)
    i1 = "  "
    return json_safe(
        f'{{\n{i1}"key": {_enc(v.key)},\n{i1}"type": {_enc(v.type)},\n'
        f'{i1}"year": {_json_scalar(v.year)},\n{i1}"month": {_json_scalar(v.month)},\n'
        f'{i1}"title": {_enc(v.title)},\n{i1}"authors": {_json_value(v.authors, i1)},\n'
        f'{i1}"venue": {_enc(v.venue)},\n{i1}"areas": {_json_value(v.areas, i1)},\n'
        f'{i1}"featured": {_json_scalar(v.featured)},\n'
        f'{i1}"links": {_json_value(dict(v.links), i1)},\n'
        f'{i1}"fields": {_json_value(rec.fields, i1)}\n}}').encode("utf-8")


def _json_scalar(x: object) -> str:
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is int:
        return int.__repr__(x)
    return json.dumps(x)


def _json_value(x: object, ind: str) -> str:
    """``x`` (a str, a list of them, a dict of them, or any JSON value) as
    ``json.dumps(x, ensure_ascii=False, indent=2)`` writes it at the indentation ``ind``."""
    if isinstance(x, str):
        return _enc(x)
    inner = ind + "  "
    sep = ",\n" + inner
    if isinstance(x, (list, tuple)):
        if not x:
            return "[]"
        try:
            body = sep.join(map(_enc, x))
        except TypeError:  # not all strings
            body = sep.join([_json_value(y, inner) for y in x])
        return f"[\n{inner}{body}\n{ind}]"
    if isinstance(x, dict):
        if not x:
            return "{}"
        try:
            body = sep.join([_enc(k) + ": " + _enc(y) for k, y in x.items()])
        except TypeError:
            body = sep.join([_enc(k) + ": " + _json_value(y, inner) for k, y in x.items()])
        return f"{{\n{inner}{body}\n{ind}}}"
    return _json_scalar(x)


def as_csv(groups: Groups, by: GroupBy) -> str:
    """CSV, one row per publication and group; cells a spreadsheet would run as a
    formula get a leading ``'`` (see :func:`pubcli.render.text.csv_cell`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["group", "key", "type", "year", "month", "title", "authors", "venue", "areas"])
    for name, recs in groups:
        for r in recs:
            v = view(r)
            w.writerow([csv_cell(c) for c in (name, v.key, v.type, v.year or "", v.month or "",
                                              v.title, "; ".join(v.authors), v.venue,
                                              "; ".join(v.areas))])
    return buf.getvalue()


def as_keys(groups: Groups) -> str:
    return "".join(clean(r.key) + "\n" for r in unique_records(groups))


def as_bibtex(groups: Groups, source: Callable[[Record], str]) -> str:
    """The entries' own text from the file, verbatim, separated by blank lines."""
    return "\n\n".join(source(r) for r in unique_records(groups)) + "\n"
