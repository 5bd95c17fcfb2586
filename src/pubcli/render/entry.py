"""One entry in full, for ``pubcli show``: every field as a reader sees it."""

from __future__ import annotations

import json
from typing import Mapping, Sequence

from pubcli.text.latex import to_text
from pubcli.schema.model import AREA_FIELD, FEATURED_FIELD, Record
from pubcli.schema.names import display_name, split_authors
from .text import clean, json_safe
from .wrap import cells, fill, hanging

_NAME_FIELDS = ("author", "editor")
_VERBATIM_FIELDS = frozenset({"url", "doi", "eprint", "file", "ids", "crossref", "xdata"})
# shown whole, never broken across lines (a path may hold spaces)
_WHOLE_FIELDS = frozenset({"url", "doi", "eprint", "file"})


def field_text(name: str, value: str, *, terminal: bool = False) -> str:
    """A field's value in Unicode: names joined with "; ", LaTeX turned into text
    (URLs, DOIs and keys as written); for a ``terminal``, simple math too
    (:func:`pubcli.text.math.terminal_text`: ``$O(n^2)$`` -> "O(n²)")."""
    if name in _NAME_FIELDS:
        return "; ".join(display_name(a) for a in split_authors(value))
    if name in _VERBATIM_FIELDS:
        return " ".join(value.split())
    if terminal and "$" in value:
        from pubcli.text.math import terminal_text

        return terminal_text(value)
    return to_text(value)


def shown_fields(rec: Record, *, terminal: bool = False) -> list[tuple[str, str]]:
    """(field, text) pairs in the entry's own order, areas and featured left to the header."""
    return [(name, field_text(name, value, terminal=terminal))
            for name, value in rec.fields.items() if name not in (AREA_FIELD, FEATURED_FIELD)]


def entry_text(rec: Record, where: str, inherited: Mapping[str, str] | None = None,
               width: int | None = None) -> str:
    """``key (@type)  file:line`` then one ``field: value`` line per field; fields
    inherited through crossref/xdata follow, marked "(inherited)". With ``width``
    (a terminal's), values wrap on words under their first word; a key, a URL, a
    path and the ``file:line`` are never split (see :mod:`.wrap`)."""
    lines = _head(clean(rec.key), clean(rec.type), clean(where), width)
    if rec.areas:
        lines += hanging("  areas: ", [f"{a}," for a in map(clean, rec.areas[:-1])]
                         + [clean(rec.areas[-1])], width)
    if rec.featured:
        lines.append("  featured: yes")
    fields = [(name, text, "") for name, text in shown_fields(rec, terminal=True)]
    fields += [(name, field_text(name, value, terminal=True), "(inherited)")
               for name, value in (inherited or {}).items()]
    column = max((len(n) for n, _, _ in fields), default=0) + 1
    for name, text, mark in fields:
        text = " ".join(clean(text).split())
        atoms = _atoms(name, text)
        lines += hanging(f"  {name + ':':<{column}} ", atoms + ([mark] if mark else []),
                         width)
    return "\n".join(lines) + "\n"


def _atoms(name: str, text: str) -> list[str]:
    """Where a shown value may break: between words; between names, never inside one
    (``Shaden Smith;``); nowhere in a URL, a DOI or a path."""
    if not text:
        return []
    if name in _WHOLE_FIELDS:
        return [text]
    if name in _NAME_FIELDS:
        names = text.split("; ")
        return [n + ";" for n in names[:-1]] + names[-1:]
    return text.split()


def _head(key: str, type_: str, where: str, width: int | None) -> list[str]:
    """``key (@type)  file:line``, the place on a line of its own when it does not fit."""
    one = f"{key} (@{type_})  {where}"
    if width is None or cells(one) <= width:
        return [one]
    return fill([key, f"(@{type_})"], width, rest="  ") + [f"  {where}"]


def entries_text(items: Sequence[tuple[Record, str, Mapping[str, str]]],
                 width: int | None = None) -> str:
    return "\n".join(entry_text(rec, where, inherited, width)
                     for rec, where, inherited in items)


def entries_json(items: Sequence[tuple[Record, str, int, Mapping[str, str]]]) -> str:
    """A JSON list: key, type, file, line, areas, featured, the fields as written and
    as text, and the fields inherited through crossref/xdata (as written)."""
    data = [{"key": rec.key, "type": rec.type, "file": path, "line": line,
             "areas": rec.areas, "featured": rec.featured, "fields": rec.fields,
             "text": dict(shown_fields(rec)), "inherited": dict(inherited)}
            for rec, path, line, inherited in items]
    return json_safe(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"
