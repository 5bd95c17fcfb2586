"""One entry in full, for ``pubcli show``: every field as a reader sees it."""

from __future__ import annotations

import json
from typing import Sequence

from ..latex import to_text
from ..model import AREA_FIELD, FEATURED_FIELD, Record
from ..names import display_name, split_authors
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


def entry_text(rec: Record, where: str) -> str:
    """``key (@type)  file:line`` then one ``field: value`` line per field."""
    head = f"{rec.key} (@{rec.type})  {where}"
    lines = [clean(head)]
    if rec.areas:
        lines.append(f"  areas: {clean(', '.join(rec.areas))}")
    if rec.featured:
        lines.append("  featured: yes")
    fields = shown_fields(rec)
    width = max((len(n) for n, _ in fields), default=0) + 1
    for name, text in fields:
        lines.append(f"  {name + ':':<{width}} {' '.join(clean(text).split())}")
    return "\n".join(lines) + "\n"


def entries_text(items: Sequence[tuple[Record, str]]) -> str:
    return "\n".join(entry_text(rec, where) for rec, where in items)


def entries_json(items: Sequence[tuple[Record, str, int]]) -> str:
    """A JSON list: key, type, file, line, areas, featured, the fields as written and
    as text."""
    data = [{"key": rec.key, "type": rec.type, "file": path, "line": line,
             "areas": rec.areas, "featured": rec.featured, "fields": rec.fields,
             "text": dict(shown_fields(rec))}
            for rec, path, line in items]
    return json_safe(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"
