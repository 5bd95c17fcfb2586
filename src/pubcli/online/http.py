"""The one module that talks HTTP (standard library ``urllib``, imported here only).

* Base URLs: each service has a default and an environment variable standing for
  its scheme and host only (:data:`SERVICES`); paths and parameters stay the
  service's own, so a mirror or a test server can stand in.
* Every request sends ``User-Agent: pubcli/<version> (mailto:<address>)`` when a
  contact address is configured (Crossref's "polite pool" asks for it).
* Timeouts (``$PUBCLI_HTTP_TIMEOUT`` seconds, default 20); transient failures (429,
  500, 502, 503, 504, connection resets) are retried with exponential backoff, and
  a ``Retry-After`` header is honoured; a timeout is retried once.
* One request at a time per service, spaced as Crossref's ``X-Rate-Limit-Limit`` /
  ``X-Rate-Limit-Interval`` headers ask (and 3 s apart for arXiv, as its API asks).
* Successful answers go through the on-disk cache (:mod:`.cache`).

Failures raise :class:`~pubcli.online.NetworkError` (unreachable, timed out,
still refused after the retries) or :class:`~pubcli.online.BadResponse`; a 404 is
returned to the caller, who knows what it means.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import quote, urlencode, urlsplit

from ..errors import ConfigError
from . import BadResponse, NetworkError
from .cache import ResponseCache

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

DEFAULT_TIMEOUT = 20.0
RETRIES = 3                 # extra attempts after a transient failure
BACKOFF = 0.5               # seconds before the first retry; doubles each time
MAX_RETRY_AFTER = 60.0      # a longer Retry-After is an error, not a wait
MAX_BODY = 64 * 1024 * 1024
TRANSIENT = frozenset({429, 500, 502, 503, 504})
# Seconds between two requests to a service, as its documentation asks (arXiv: "a 3
# second delay" between calls); raised further by rate-limit headers.
MIN_SPACING = {"arxiv": 3.0}

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


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


def timeout_seconds() -> float:
    raw = os.environ.get("PUBCLI_HTTP_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ConfigError(f"PUBCLI_HTTP_TIMEOUT must be a positive number of seconds, "
                          f"got {raw!r}")
    return value


def user_agent(mailto: str | None) -> str:
    from .. import __version__

    contact = f" (mailto:{mailto})" if mailto else ""
    return f"pubcli/{__version__}{contact}"


def path_quote(segment: str) -> str:
    """A value placed in a URL path (a DOI keeps its slashes)."""
    return quote(segment, safe="/:;()._-")


@dataclass
class Response:
    url: str
    status: int
    headers: dict[str, str]
    body: bytes
    cached: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def text(self) -> str:
        try:
            return self.body.decode("utf-8")
        except UnicodeDecodeError:
            raise BadResponse(f"{self.url}: the answer is not UTF-8 text") from None

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except json.JSONDecodeError as exc:
            raise BadResponse(f"{self.url}: the answer is not valid JSON ({exc.msg} at "
                              f"line {exc.lineno})") from None
        except ValueError:  # not UTF-8
            raise BadResponse(f"{self.url}: the answer is not valid JSON") from None


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def rate_spacing(headers: Mapping[str, str]) -> float:
    """Seconds between requests that ``X-Rate-Limit-Limit`` / ``-Interval`` allow."""
    limit = headers.get("x-rate-limit-limit", "")
    interval = headers.get("x-rate-limit-interval", "")
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", interval or "")
    try:
        n = float(limit)
    except ValueError:
        return 0.0
    if not m or n <= 0:
        return 0.0
    unit = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[m.group(2) or "s"]
    return float(m.group(1)) * unit / n


@dataclass
class Client:
    """Makes the requests of one pubcli run. ``sleep`` and ``cache`` can be replaced
    (tests pass a recording sleep)."""

    mailto: str | None = None
    api_keys: dict[str, str] = field(default_factory=dict)  # service -> key parameter
    timeout: float | None = None
    cache: ResponseCache | None = None
    sleep: Callable[[float], None] = time.sleep
    retries: int = RETRIES
    backoff: float = BACKOFF
    _spacing: dict[str, float] = field(default_factory=dict)
    _last: dict[str, float] = field(default_factory=dict)
    requests: int = 0  # requests actually sent (not served from the cache)

    @classmethod
    def from_environment(cls) -> "Client":
        from . import userconfig

        cfg = userconfig.load()
        keys = {"openalex": cfg.openalex_api_key} if cfg.openalex_api_key else {}
        return cls(mailto=cfg.mailto, api_keys=keys, timeout=timeout_seconds(),
                   cache=ResponseCache())

    def url(self, service: str, path: str, params: Mapping[str, Any] | None = None) -> str:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        if service in ("crossref", "openalex") and self.mailto:
            query.setdefault("mailto", self.mailto)
        if service in self.api_keys:
            query.setdefault("api_key", self.api_keys[service])
        return base_url(service) + path + ("?" + urlencode(query) if query else "")

    def get(self, service: str, path: str, params: Mapping[str, Any] | None = None, *,
            accept: str = "application/json") -> Response:
        """GET ``path`` from ``service``. Returns the response (2xx or 404);
        raises NetworkError / BadResponse otherwise."""
        url = self.url(service, path, params)
        shown = self._shown(url)
        if self.cache is not None:  # keyed by the URL without the API key: never on disk
            hit = self.cache.get(shown, accept)
            if hit is not None:
                return Response(url, hit[0], hit[1], hit[2], cached=True)
        with _lock_for(service):
            resp = self._fetch(service, url, shown, accept)
        if resp.ok and self.cache is not None:
            self.cache.put(shown, accept, resp.status, resp.headers, resp.body)
        return resp

    def _shown(self, url: str) -> str:
        """The URL for messages, without the API key."""
        return re.sub(r"([?&]api_key=)[^&]*", r"\1...", url)

    def _fetch(self, service: str, url: str, shown: str, accept: str) -> Response:
        name = NAMES.get(service, service)
        attempt = 0
        timeouts = 0
        while True:
            self._wait_turn(service)
            try:
                resp = self._once(url, accept)
            except TimeoutError:
                timeouts += 1
                if timeouts > 1:
                    raise NetworkError(f"{name} did not answer within "
                                       f"{self._timeout():g} s ({shown}); nothing was "
                                       "written") from None
                self.sleep(self.backoff)
                continue
            except ConnectionError as exc:
                if attempt >= self.retries:
                    raise NetworkError(f"cannot reach {name} ({shown}): {exc}; are you "
                                       "offline? nothing was written") from None
                self.sleep(self.backoff * 2 ** attempt)
                attempt += 1
                continue
            finally:
                self._last[service] = time.monotonic()
            spacing = rate_spacing(resp.headers)
            if spacing:
                self._spacing[service] = spacing
            if resp.ok or resp.status == 404:
                return resp
            if resp.status in TRANSIENT and attempt < self.retries:
                wait = retry_after(resp.headers.get("retry-after"))
                if wait is not None and wait > MAX_RETRY_AFTER:
                    raise NetworkError(f"{name} asks to wait {wait:g} s before retrying "
                                       f"(HTTP {resp.status}, {shown}); try again later; "
                                       "nothing was written")
                self.sleep(wait if wait is not None else self.backoff * 2 ** attempt)
                attempt += 1
                continue
            if resp.status in TRANSIENT:
                raise NetworkError(f"{name} answered HTTP {resp.status} after "
                                   f"{attempt + 1} tries ({shown}); try again later; nothing "
                                   "was written")
            raise BadResponse(f"{name} answered HTTP {resp.status} ({shown}); nothing was "
                              "written")

    def _timeout(self) -> float:
        return self.timeout if self.timeout is not None else DEFAULT_TIMEOUT

    def _wait_turn(self, service: str) -> None:
        spacing = max(self._spacing.get(service, 0.0), MIN_SPACING.get(service, 0.0))
        last = self._last.get(service)
        if spacing and last is not None:
            wait = last + spacing - time.monotonic()
            if wait > 0:
                self.sleep(wait)

    def _once(self, url: str, accept: str) -> Response:
        """One request. Raises TimeoutError or ConnectionError (with a short reason)."""
        import gzip
        import socket
        import urllib.error
        import urllib.request
        from http.client import HTTPException

        req = urllib.request.Request(url, headers={
            "User-Agent": user_agent(self.mailto), "Accept": accept,
            "Accept-Encoding": "gzip"})
        self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=self._timeout()) as fh:
                status, headers, body = fh.status, fh.headers, fh.read(MAX_BODY + 1)
        except urllib.error.HTTPError as exc:
            status, headers = exc.code, exc.headers
            try:
                body = exc.read(MAX_BODY + 1)
            except (OSError, HTTPException):
                body = b""
        except (socket.timeout, TimeoutError):
            raise TimeoutError from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (socket.timeout, TimeoutError)):
                raise TimeoutError from None
            raise ConnectionError(_reason(exc.reason)) from None
        except (OSError, HTTPException) as exc:
            raise ConnectionError(_reason(exc)) from None
        if len(body) > MAX_BODY:
            raise BadResponse(f"{url}: the answer is larger than {MAX_BODY // 2**20} MB")
        hdrs = {k.lower(): v for k, v in headers.items()} if headers else {}
        if hdrs.get("content-encoding", "").lower() == "gzip" and body:
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError):
                raise BadResponse(f"{url}: a damaged gzip answer") from None
        hdrs.pop("content-encoding", None)
        keep = {k: v for k, v in hdrs.items()
                if k in ("content-type", "retry-after", "x-rate-limit-limit",
                         "x-rate-limit-interval", "x-concurrency-limit")}
        return Response(url, status, keep, body)


def _reason(reason: object) -> str:
    text = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return str(text)


def _lock_for(service: str) -> threading.Lock:
    with _locks_guard:
        lock = _locks.get(service)
        if lock is None:
            lock = _locks[service] = threading.Lock()
        return lock
