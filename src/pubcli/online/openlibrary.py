"""Open Library's books API: ``/api/books?bibkeys=ISBN:...&format=json&jscmd=data``.

The answer maps ``"ISBN:<isbn>"`` to a book with ``title``, ``subtitle``,
``authors[].name``, ``publishers[].name``, ``publish_date`` ("2016", "March 2016",
"June 1, 2016"); an unknown ISBN gives ``{}``.
"""

from __future__ import annotations

import re

from pubcli.usecases.newentry import EntryOptions
from pubcli.schema.model import parse_month
from . import BadResponse, NotFoundOnline, mapping
from .http import Client


def lookup(client: Client, isbn: str) -> mapping.Found:
    key = f"ISBN:{isbn}"
    resp = client.get("openlibrary", "/api/books",
                      {"bibkeys": key, "format": "json", "jscmd": "data"})
    if resp.status == 404:
        raise NotFoundOnline(f"Open Library does not know the ISBN {isbn}")
    data = resp.json()
    if not isinstance(data, dict):
        raise BadResponse(f"{resp.url}: expected a JSON object")
    book = data.get(key)
    if not book:
        raise NotFoundOnline(f"Open Library does not know the ISBN {isbn}")
    if not isinstance(book, dict):
        raise BadResponse(f"{resp.url}: the book is not a JSON object")
    return to_found(book, isbn)


def _names(items) -> list[str]:
    if not isinstance(items, list):
        return []
    return [str(i.get("name") or "") if isinstance(i, dict) else str(i) for i in items if i]


def to_found(book: dict, isbn: str) -> mapping.Found:
    date = mapping.clean_text(book.get("publish_date"))
    y = re.search(r"(?<!\d)(\d{4})(?!\d)", date)
    words = [w for w in re.findall(r"[A-Za-z]+", date) if parse_month(w) and len(w) >= 3]
    m = parse_month(words[0]) if words else None
    publishers = _names(book.get("publishers"))
    opts = EntryOptions(
        type="book",
        title=mapping.title(book.get("title"), book.get("subtitle")) or None,
        authors=mapping.authors(mapping.person_from_full(n) for n in _names(book.get("authors"))),
        year=y.group(1) if y else None,
        month=mapping.month(m) if m else None,
        venue=mapping.venue(publishers[0]) if publishers else None,
        fields=mapping.extra(isbn=isbn),
    )
    return mapping.Found(opts, "openlibrary")
