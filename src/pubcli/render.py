"""Terminal and text renderings of grouped records (never prints itself).

* :func:`tables` builds one rich Table per group (for a terminal);
* :func:`plain` gives one line per publication under a heading per group
  (for pipes and very long listings: no ANSI codes, greppable);
* :func:`as_json`, :func:`as_csv`, :func:`as_keys`, :func:`as_bibtex` are the
  machine formats of ``pubcli list --format``.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Callable, Sequence

from .model import GroupBy, Record
from .view import View, owner_flags, short_authors, view

Groups = Sequence[tuple[str, Sequence[Record]]]


def heading(name: str, count: int, by: GroupBy) -> str:
    noun = "publication" if count == 1 else "publications"
    if by is GroupBy.none or not name:
        return f"{count} {noun}"
    return f"{name} ({count} {noun})"


def _author_segments(v: View, owner: str | None, limit: int = 3):
    owner_idx = {i for i, f in enumerate(owner_flags(v.raw_names, owner)) if f}
    return short_authors(v.authors, owner_idx, limit)


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
            title = Text(v.title or "(no title)")
            if v.featured:
                title.append(" ★", style="yellow")
            title.append("\n" + v.key, style="dim")  # the key, for tag/dedupe commands
            t.add_row(str(v.year or ""), title, authors, v.venue, ", ".join(v.areas))
        out.append(t)
    return out


def plain(groups: Groups, by: GroupBy, owner: str | None = None,
          bold: Callable[[str], str] = lambda s: s) -> str:
    """One line per publication: year | title | authors | venue | areas | key."""
    lines: list[str] = []
    for name, recs in groups:
        if lines:
            lines.append("")
        lines.append(bold(heading(name, len(recs), by)))
        for rec in recs:
            v = view(rec)
            authors = "".join(bold(s) if o else s for s, o in _author_segments(v, owner))
            cells = [str(v.year or "----"), v.title or "(no title)", authors, v.venue,
                     ", ".join(v.areas), v.key]
            lines.append("  " + " | ".join(cells))
    return "\n".join(lines) + ("\n" if lines else "")


def _record_dict(rec: Record) -> dict:
    v = view(rec)
    return {"key": v.key, "type": v.type, "year": v.year, "month": v.month, "title": v.title,
            "authors": v.authors, "venue": v.venue, "areas": v.areas, "featured": v.featured,
            "links": dict(v.links), "fields": rec.fields}


def as_json(groups: Groups, by: GroupBy) -> str:
    if by is GroupBy.none:
        data: object = {"entries": [_record_dict(r) for _, recs in groups for r in recs]}
    else:
        data = {"by": by.value, "groups": [{"name": name, "count": len(recs),
                                            "entries": [_record_dict(r) for r in recs]}
                                           for name, recs in groups]}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def as_csv(groups: Groups, by: GroupBy) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["group", "key", "type", "year", "month", "title", "authors", "venue", "areas"])
    for name, recs in groups:
        for r in recs:
            v = view(r)
            w.writerow([name, v.key, v.type, v.year or "", v.month or "", v.title,
                        "; ".join(v.authors), v.venue, "; ".join(v.areas)])
    return buf.getvalue()


def unique_records(groups: Groups) -> list[Record]:
    seen: set[int] = set()
    out = []
    for _, recs in groups:
        for r in recs:
            if id(r) not in seen:
                seen.add(id(r))
                out.append(r)
    return out


def as_keys(groups: Groups) -> str:
    return "".join(r.key + "\n" for r in unique_records(groups))


def as_bibtex(groups: Groups, source: Callable[[Record], str]) -> str:
    """The entries' own text from the file, verbatim, separated by blank lines."""
    return "\n\n".join(source(r) for r in unique_records(groups)) + "\n"


def github_annotation(level: str, path: str, line: int | None, title: str, message: str) -> str:
    """One GitHub Actions workflow command (``::warning file=...,line=...::message``),
    escaped as the runner expects: ``%``, CR and LF everywhere, ``:`` and ``,`` in
    properties. ``path`` is shown relative to the current folder when inside it."""
    import os

    def data(s: str) -> str:
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(s: str) -> str:
        return data(s).replace(":", "%3A").replace(",", "%2C")

    try:
        shown = os.path.relpath(path)
        if shown.startswith(".."):
            shown = str(path)
    except ValueError:
        shown = str(path)
    props = [f"file={prop(shown)}"]
    if line:
        props.append(f"line={line}")
    props.append(f"title={prop(title)}")
    return f"::{level} {','.join(props)}::{data(message)}"
