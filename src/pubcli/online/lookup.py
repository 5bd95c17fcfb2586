"""One identifier -> the entry options ``pubcli add`` is given (the core of add by id).

A DOI is asked of Crossref, then of doi.org content negotiation (DataCite and the
other agencies); an arXiv DOI (``10.48550/arXiv.*``) or id of the arXiv API; an
ISBN of Open Library. What the user gave on the command line wins over what was
fetched (:func:`merge`).
"""

from __future__ import annotations

from dataclasses import replace

from pubcli.usecases.newentry import EntryOptions, parse_field_option
from ..errors import ValidationError
from . import arxiv, crossref, doi as doi_mod, ids, mapping, openlibrary
from .http import Client


def fetch(client: Client, kind: str, value: str) -> mapping.Found:
    """What the services say about ``value`` (kind "doi", "arxiv" or "isbn")."""
    if kind == "doi":
        try:
            return arxiv.lookup(client, ids.parse_arxiv(value))
        except ValidationError:
            pass
        msg = crossref.work(client, value)
        if msg is not None:
            return crossref.to_found(msg, source="crossref")
        return doi_mod.lookup(client, value)
    if kind == "arxiv":
        pre = arxiv.fetch(client, value)
        if pre.doi:
            pre.found.notes.append(f"arXiv says {value} was published (DOI {pre.doi}); "
                                   "'pubcli update KEY' turns the entry into that version")
        return pre.found
    if kind == "isbn":
        return openlibrary.lookup(client, value)
    raise ValueError(kind)


def merge(fetched: EntryOptions, given: EntryOptions) -> EntryOptions:
    """``fetched`` with every value the user gave put over it: type, title, authors,
    year, month, venue, doi, url, areas, featured and ``--field`` items."""
    out = replace(fetched, fields=list(fetched.fields))
    for name in ("type", "title", "year", "month", "venue", "doi", "url"):
        value = getattr(given, name)
        if value:
            setattr(out, name, value)
    if given.doi and fetched.doi and mapping.doi(given.doi) == fetched.doi:
        out.doi = fetched.doi      # the DOI fetched by: in its one form
    if given.authors:
        out.authors = list(given.authors)
    given_names = {parse_field_option(item)[0] for item in given.fields}
    out.fields = [item for item in out.fields
                  if parse_field_option(item)[0] not in given_names] + list(given.fields)
    if given.type and given.type != fetched.type and not given.venue and fetched.venue:
        out.venue = fetched.venue  # the venue follows the type the user chose
    out.areas = list(given.areas)
    out.featured = given.featured
    return out


def options_for(kind: str, value: str, given: EntryOptions,
                client: Client | None = None) -> tuple[EntryOptions, list[str]]:
    """The options for ``pubcli add <identifier>`` and the notes to show."""
    client = client or Client.from_environment()
    found = fetch(client, kind, value)
    return merge(found.opts, given), list(found.notes)
