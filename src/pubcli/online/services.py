"""What each online service is and how pubcli may talk to it: base URLs (a mirror or a
test server can stand in through an environment variable), names, deadlines, the
redirects each service needs, ``Retry-After`` and rate-limit headers, the User-Agent.
The rules :mod:`.http` applies to every request."""

from __future__ import annotations

import email.utils
import os
import re
import time
from typing import Mapping
from urllib.parse import quote, urlsplit

from ..errors import ConfigError

# service -> (environment variable, default base URL)
SERVICES: dict[str, tuple[str, str]] = {
    "crossref": ("PUBCLI_CROSSREF_URL", "https://api.crossref.org"),
    "doi": ("PUBCLI_DOI_URL", "https://doi.org"),
    "arxiv": ("PUBCLI_ARXIV_URL", "https://export.arxiv.org"),
    "openlibrary": ("PUBCLI_OPENLIBRARY_URL", "https://openlibrary.org"),
    "orcid": ("PUBCLI_ORCID_URL", "https://pub.orcid.org"),
    "dblp": ("PUBCLI_DBLP_URL", "https://dblp.org"),
    "openalex": ("PUBCLI_OPENALEX_URL", "https://api.openalex.org"),
}
NAMES = {"crossref": "Crossref", "doi": "doi.org", "arxiv": "arXiv",
         "openlibrary": "Open Library", "orcid": "ORCID", "dblp": "DBLP",
         "openalex": "OpenAlex"}

DEFAULT_TIMEOUT = 20.0        # seconds for one whole response
DEFAULT_DEADLINE = 600.0      # seconds for all the requests of one command
RETRIES = 3                 # extra attempts after a transient failure
BACKOFF = 0.5               # seconds before the first retry; doubles each time
MAX_RETRY_AFTER = 60.0      # a longer Retry-After is an error, not a wait
MAX_BODY = 32 * 1024 * 1024   # bytes of an answer, after decompression
MAX_REDIRECTS = 5
CHUNK = 64 * 1024
TRANSIENT = frozenset({429, 500, 502, 503, 504})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Seconds between two requests to a service, as its documentation asks (arXiv: "a 3
# second delay" between calls); raised further by rate-limit headers.
MIN_SPACING = {"arxiv": 3.0}
# The hosts a service may redirect to (besides its own configured scheme and host).
# doi.org's content negotiation sends a client on to the DOI's registration agency.
REDIRECT_HOSTS: dict[str, frozenset[str]] = {
    "crossref": frozenset({"api.crossref.org"}),
    "doi": frozenset({"doi.org", "dx.doi.org", "data.crossref.org", "api.crossref.org",
                      "data.datacite.org", "api.datacite.org", "data.crosscite.org",
                      "citation.crosscite.org", "data.medra.org", "api.medra.org",
                      "data.jalc.or.jp"}),
    "arxiv": frozenset({"export.arxiv.org", "arxiv.org"}),
    "openlibrary": frozenset({"openlibrary.org"}),
    "orcid": frozenset({"pub.orcid.org"}),
    "dblp": frozenset({"dblp.org", "dblp.uni-trier.de"}),
    "openalex": frozenset({"api.openalex.org"}),
}
# services whose configured base URL another service may redirect to
REDIRECT_SERVICES = {"doi": ("crossref",)}
# query parameters that carry a secret: sent, never shown, never part of a cache name
SECRET_PARAMS = ("api_key", "mailto")



def base_url(service: str) -> str:
    """The service's base URL: ``$PUBCLI_<SERVICE>_URL`` (scheme and host only) or
    the default."""
    env, default = SERVICES[service]
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        raise ConfigError(f"{env} must be a scheme and host such as {default}, got {raw!r}")
    return f"{parts.scheme}://{parts.netloc}"


def _seconds(env: str, default: float) -> float:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise ConfigError(f"{env} must be a positive number of seconds, got {raw!r}")
    return value


def timeout_seconds() -> float:
    """Seconds one response may take, whole (``$PUBCLI_HTTP_TIMEOUT``)."""
    return _seconds("PUBCLI_HTTP_TIMEOUT", DEFAULT_TIMEOUT)


def deadline_seconds() -> float:
    """Seconds the requests of one command may take together (``$PUBCLI_ONLINE_DEADLINE``)."""
    return _seconds("PUBCLI_ONLINE_DEADLINE", DEFAULT_DEADLINE)


def user_agent(mailto: str | None) -> str:
    from .. import __version__

    contact = f" (mailto:{mailto})" if mailto else ""
    return f"pubcli/{__version__}{contact}"


def segment(value: str) -> str:
    """One identifier as one URL path segment: every character but letters, digits
    and ``-._~`` percent-encoded (a DOI's ``/`` too, so ``../`` cannot climb)."""
    out = quote(value, safe="")
    return out.replace(".", "%2E") if out.strip(".") == "" else out


def allowed_redirect(service: str, current: str, target: str) -> str | None:
    """Why following ``current`` -> ``target`` is refused, or None when it is fine."""
    a, b = urlsplit(current), urlsplit(target)
    if b.scheme not in ("http", "https"):
        return f"to a {b.scheme or 'relative'}: URL"
    if a.scheme == "https" and b.scheme == "http":
        return "from https to http"
    if b.username or b.password:
        return "to a URL with a user name"
    if b.netloc.lower() == a.netloc.lower():
        return None
    own = {urlsplit(base_url(s)).netloc.lower()
           for s in (service, *REDIRECT_SERVICES.get(service, ()))}
    if b.netloc.lower() in own:
        return None
    host = (b.hostname or "").lower()
    try:
        default_port = b.port is None or b.port == (443 if b.scheme == "https" else 80)
    except ValueError:   # "host:port" with a port that is not one
        return "to a malformed URL"
    if host in REDIRECT_HOSTS.get(service, frozenset()) and default_port:
        return None
    return "to another site"


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"\d{1,12}(\.\d{1,6})?", value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    try:
        return max(when.timestamp() - (time.time() if now is None else now), 0.0)
    except (OverflowError, OSError, ValueError):
        return None


def rate_spacing(headers: Mapping[str, str]) -> float:
    """Seconds between requests that ``X-Rate-Limit-Limit`` / ``-Interval`` allow."""
    limit = headers.get("x-rate-limit-limit", "")
    interval = headers.get("x-rate-limit-interval", "")
    m = re.fullmatch(r"\s*(\d{1,9}(?:\.\d{1,6})?)\s*(ms|s|m|h)?\s*", interval or "")
    try:
        n = float(limit)
    except ValueError:
        return 0.0
    if not m or not n > 0:
        return 0.0
    unit = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[m.group(2) or "s"]
    return min(float(m.group(1)) * unit / n, MAX_RETRY_AFTER)
