"""One entry in full, for ``pubcli show``: every field as a reader sees it."""

from __future__ import annotations

import json
from typing import Mapping, Sequence

from pubcli.text.latex import to_text
from pubcli.schema.model import AREA_FIELD, FEATURED_FIELD, Record
from pubcli.schema.names import display_name, split_authors
from .text import clean, json_safe

_NAME_FIELDS = ("author", "editor")
_VERBATIM_FIELDS = frozenset({"url", "doi", "eprint", "file", "ids", "crossref", "xdata"})


def field_text(name: str, value: str) -> str:
    """A field's value in Unicode: names joined with "; ", LaTeX turned into text
    (URLs, DOIs and keys as written)."""
    if name in _NAME_FIELDS:
        return "; ".join(display_name(a) for a in split_authors(value))
    if name in _VERBATIM_FIELDS:
        return " ".join(value.split())
    return to_text(value)


def shown_fields(rec: Record) -> list[tuple[str, str]]:
    """(field, text) pairs in the entry's own order, areas and featured left to the header."""
    return [(name, field_text(name, value)) for name, value in rec.fields.items()
            if name not in (AREA_FIELD, FEATURED_FIELD)]


def entry_text(rec: Record, where: str, inherited: Mapping[str, str] | None = None) -> str:
    """``key (@type)  file:line`` then one ``field: value`` line per field; fields
    inherited through crossref/xdata follow, marked "(inherited)"."""
    head = f"{rec.key} (@{rec.type})  {where}"
    lines = [clean(head)]
    if rec.areas:
        lines.append(f"  areas: {clean(', '.join(rec.areas))}")
    if rec.featured:
        lines.append("  featured: yes")
    fields = [(name, text, "") for name, text in shown_fields(rec)]
    fields += [(name, field_text(name, value), " (inherited)")
               for name, value in (inherited or {}).items()]
    width = max((len(n) for n, _, _ in fields), default=0) + 1
    for name, text, mark in fields:
        lines.append(f"  {name + ':':<{width}} {' '.join(clean(text).split())}{mark}")
    return "\n".join(lines) + "\n"


def entries_text(items: Sequence[tuple[Record, str, Mapping[str, str]]]) -> str:
    return "\n".join(entry_text(rec, where, inherited) for rec, where, inherited in items)


def entries_json(items: Sequence[tuple[Record, str, int, Mapping[str, str]]]) -> str:
    """A JSON list: key, type, file, line, areas, featured, the fields as written and
    as text, and the fields inherited through crossref/xdata (as written)."""
    data = [{"key": rec.key, "type": rec.type, "file": path, "line": line,
             "areas": rec.areas, "featured": rec.featured, "fields": rec.fields,
             "text": dict(shown_fields(rec)), "inherited": dict(inherited)}
            for rec, path, line, inherited in items]
    return json_safe(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"
