"""Resource links of a publication: PDF, slides, code, video, poster...

Two conventions are read, in this order:

* BibBase's ``url_<label>`` fields (``url_pdf``, ``url_slides``, ``url_code``,
  ``url_video``, ``url_poster``, any ``url_<label>``): the label is the rest of
  the name;
* al-folio's plain fields: ``pdf``, ``supp``, ``code``, ``slides``, ``poster``,
  ``website``, ``video``, ``blog``, ``html``.

A link is kept only when it is an ``http(s)://`` URL or a relative path (such
as ``papers/zero.pdf``); :func:`link_problem` says why any other value is
refused, and ``pubcli check`` reports it (code ``bad-link``). This module is
the one home of that rule: the page and the check both ask it.
"""

from __future__ import annotations

import re
from typing import Mapping, NamedTuple

from pubcli.schema.values import web_link

ALFOLIO_FIELDS: tuple[str, ...] = ("pdf", "supp", "code", "slides", "poster", "website",
                                   "video", "blog", "html")
LABELS = {"pdf": "PDF", "supp": "Supplement", "html": "HTML", "url_pdf": "PDF"}
AWARD_FIELD = "award"

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_RELATIVE = re.compile(r"^[^\s\"'<>\\]+$")


class Resource(NamedTuple):
    field: str
    label: str
    url: str


def link_problem(value: str) -> str | None:
    """None for an acceptable link, else why it is not one."""
    v = value.strip()
    if not v:
        return "is empty"
    if _SCHEME.match(v):
        return None if web_link(v) else "is neither an http(s):// URL nor a relative path"
    if v.startswith("//"):
        return "is a protocol-relative URL; write https:// in full"
    if not _RELATIVE.match(v):
        return "contains spaces, quotes, '<', '>' or a backslash"
    return None


def label_of(field: str) -> str:
    if field in LABELS:
        return LABELS[field]
    name = field[4:] if field.startswith("url_") else field
    return name.replace("_", " ").capitalize()


def resource_fields(fields: Mapping[str, str]) -> list[str]:
    """The fields of a record that hold resource links, in reading order."""
    return ([f for f in fields if f.startswith("url_") and len(f) > 4]
            + [f for f in ALFOLIO_FIELDS if f in fields])


def resources(fields: Mapping[str, str]) -> list[Resource]:
    """The acceptable resource links, one per label (the first wins)."""
    out: list[Resource] = []
    seen: set[str] = set()
    for f in resource_fields(fields):
        value = fields[f].strip()
        label = label_of(f)
        if label.casefold() in seen or link_problem(value):
            continue
        seen.add(label.casefold())
        out.append(Resource(f, label, value))
    return out


__all__ = ["Resource", "resources", "resource_fields", "link_problem", "label_of",
           "ALFOLIO_FIELDS", "AWARD_FIELD"]
