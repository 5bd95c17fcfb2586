"""Online metadata: fetch works from Crossref, doi.org, arXiv, Open Library, ORCID,
DBLP and OpenAlex, and map them to entries in pubcli's conventions.

Nothing here is imported at start-up: the commands that go online (``add`` by
identifier, ``update``, ``sync``) import it inside their functions.

* :mod:`.http` is the only module that talks HTTP (the standard library's
  ``http.client``: no dependency, imported only when a request is made). It owns
  the User-Agent, deadlines, the size cap, the redirects allowed, the secrets
  hidden, retries with backoff (429 / ``Retry-After``, Crossref's rate-limit
  headers), one request at a time per service, and the base URLs.
* :mod:`.cache` is the on-disk response cache (with an expiry).
* :mod:`.userconfig` reads the user's own settings (contact address, API keys).
* :mod:`.ids` recognises identifiers (DOI, arXiv id, ISBN, ORCID iD, DBLP pid,
  OpenAlex author id) and URLs naming them.
* :mod:`.mapping` holds the conventions every source maps to: ``Last, First``
  names, braces protecting capitals in titles, escaped LaTeX specials, months.
* one module per service (:mod:`.crossref`, :mod:`.doi`, :mod:`.arxiv`,
  :mod:`.openlibrary`, :mod:`.orcid`, :mod:`.dblp`, :mod:`.openalex`) turns its
  answers into :class:`pubcli.usecases.newentry.EntryOptions`;
* :mod:`.lookup` (one identifier -> one entry), :mod:`.update` (fill and upgrade
  entries) and :mod:`.sync` (a researcher's works against the library) are the
  core functions the commands call.
"""

from __future__ import annotations

from ..errors import PubcliError


class NetworkError(PubcliError):
    """A service could not be reached, timed out, or kept refusing (429/5xx)."""


class BadResponse(PubcliError):
    """A service answered something pubcli cannot read (malformed JSON/XML...)."""


class NotFoundOnline(PubcliError):
    """The service does not know this identifier (HTTP 404 or an empty answer)."""

