"""The one module that talks HTTP (standard library ``http.client``, imported here only).

* Base URLs: each service has a default and an environment variable standing for
  its scheme and host only (:data:`.services.SERVICES`); paths and parameters stay the
  service's own, so a mirror or a test server can stand in.
* Every request sends ``User-Agent: pubcli/<version> (mailto:<address>)`` when a
  contact address is configured (Crossref's "polite pool" asks for it).
* Deadlines: each response must be whole within ``$PUBCLI_HTTP_TIMEOUT`` seconds
  (default 20: connecting, headers and body together, however slowly the bytes
  come), and the online part of a command within ``$PUBCLI_ONLINE_DEADLINE``
  (default 600); the message names the slow service. Transient failures (429,
  500, 502, 503, 504, connection resets) are retried with exponential backoff, and
  a ``Retry-After`` header is honoured (within the command's deadline).
* What a server sends is bounded: at most :data:`MAX_BODY` bytes, counted after
  decompression while streaming (a gzip bomb stops at the cap); redirects are
  followed only within what the service needs (:data:`REDIRECT_HOSTS`: same
  scheme or an upgrade to https, the service's own hosts, the registration
  agencies for doi.org) and a refused one is named.
* Secrets (API keys, the contact address) are sent but never shown: every
  message, cache name and cached file goes through :meth:`Client.hide` / the
  URL without them (:meth:`Client.shown_url`).
* One request at a time per service, spaced as Crossref's ``X-Rate-Limit-Limit`` /
  ``X-Rate-Limit-Interval`` headers ask (and 3 s apart for arXiv, as its API asks).
* Successful answers go through the on-disk cache (:mod:`.cache`).

Failures raise :class:`~pubcli.online.NetworkError` (unreachable, timed out,
still refused after the retries) or :class:`~pubcli.online.BadResponse`; a 404 is
returned to the caller, who knows what it means.
"""

from __future__ import annotations

import json
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import quote, quote_plus, urlencode, urljoin, urlsplit

from . import BadResponse, NetworkError
from .cache import ResponseCache
from .services import (BACKOFF, CHUNK, DEFAULT_TIMEOUT, MAX_BODY, MAX_REDIRECTS,
                       MAX_RETRY_AFTER, MIN_SPACING, NAMES, REDIRECTS, RETRIES, SECRET_PARAMS,
                       TRANSIENT, allowed_redirect, base_url, deadline_seconds, rate_spacing,
                       retry_after, timeout_seconds, user_agent)

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()

@dataclass
class Response:
    url: str             # as shown: without the secrets
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
        except (ValueError, RecursionError):  # not UTF-8, or nested beyond reason
            raise BadResponse(f"{self.url}: the answer is not valid JSON") from None


class _Slow(Exception):
    """The response's deadline passed (``partial``: some of it had come)."""


class _Refused(Exception):
    """A redirect pubcli does not follow, or an answer past the size cap."""


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
    deadline: float | None = None     # seconds for the whole command (None: no limit)
    max_body: int = MAX_BODY
    on_request: Callable[[str, int], None] | None = None   # (service name, requests so far)
    _spacing: dict[str, float] = field(default_factory=dict)
    _last: dict[str, float] = field(default_factory=dict)
    _start: float = field(default_factory=time.monotonic)
    requests: int = 0  # requests actually sent (not served from the cache)

    @classmethod
    def from_environment(cls) -> "Client":
        from . import userconfig

        cfg = userconfig.load()
        keys = {"openalex": cfg.openalex_api_key} if cfg.openalex_api_key else {}
        return cls(mailto=cfg.mailto, api_keys=keys, timeout=timeout_seconds(),
                   deadline=deadline_seconds(), cache=ResponseCache())

    # ------------------------------------------------------------ secrets
    def secrets(self) -> list[str]:
        return [s for s in [*self.api_keys.values(), self.mailto or ""] if len(s) >= 4]

    def hide(self, text: str) -> str:
        """``text`` with every secret (as written, and URL-encoded) replaced by ``...``;
        the one place a message passes before it can reach the user."""
        for secret in sorted(self.secrets(), key=len, reverse=True):
            for form in {secret, quote_plus(secret), quote(secret, safe="")}:
                text = text.replace(form, "...")
        return re.sub(r"([?&](?:api_key|mailto)=)[^&#\s]*", r"\1...", text)

    def url(self, service: str, path: str, params: Mapping[str, Any] | None = None) -> str:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        if service in ("crossref", "openalex") and self.mailto:
            query.setdefault("mailto", self.mailto)
        if service in self.api_keys:
            query.setdefault("api_key", self.api_keys[service])
        return base_url(service) + path + ("?" + urlencode(query) if query else "")

    def shown_url(self, service: str, path: str, params: Mapping[str, Any] | None = None) -> str:
        """The URL without its secret parameters: for messages and cache names."""
        query = {k: v for k, v in (params or {}).items()
                 if v is not None and k not in SECRET_PARAMS}
        return self.hide(base_url(service) + path + ("?" + urlencode(query) if query else ""))

    # ------------------------------------------------------------ requests
    def get(self, service: str, path: str, params: Mapping[str, Any] | None = None, *,
            accept: str = "application/json") -> Response:
        """GET ``path`` from ``service``. Returns the response (2xx or 404);
        raises NetworkError / BadResponse otherwise."""
        url = self.url(service, path, params)
        shown = self.shown_url(service, path, params)
        if self.cache is not None:  # keyed by the URL without the secrets
            hit = self.cache.get(shown, accept)
            if hit is not None:
                return Response(shown, hit[0], hit[1], hit[2], cached=True)
        if self.on_request is not None:
            self.on_request(NAMES.get(service, service), self.requests)
        with _lock_for(service):
            resp = self._fetch(service, url, shown, accept)
        if any(len(k) >= 6 and k.encode() in resp.body for k in self.api_keys.values()):
            raise BadResponse(f"{NAMES.get(service, service)} sent back the API key in its "
                              f"answer ({shown}); not used; nothing was written")
        if resp.ok and self.cache is not None:
            self.cache.put(shown, accept, resp.status, resp.headers, resp.body)
        return resp

    def remaining(self) -> float | None:
        """Seconds left of the command's deadline (None: no deadline)."""
        if self.deadline is None:
            return None
        return self._start + self.deadline - time.monotonic()

    def _pause(self, name: str, seconds: float, why: str) -> None:
        left = self.remaining()
        if left is not None and seconds >= left:
            raise NetworkError(f"{name} {why}, past the {self.deadline:g} s this command "
                               "may spend online ($PUBCLI_ONLINE_DEADLINE); nothing was "
                               "written")
        self.sleep(seconds)

    def _fetch(self, service: str, url: str, shown: str, accept: str) -> Response:
        name = NAMES.get(service, service)
        attempt = 0
        while True:
            self._wait_turn(service, name)
            left = self.remaining()
            if left is not None and left <= 0:
                raise NetworkError(f"this command's {self.deadline:g} s online "
                                   f"($PUBCLI_ONLINE_DEADLINE) ran out before {name} was "
                                   f"asked ({shown}); nothing was written")
            budget = self._timeout() if left is None else min(self._timeout(), left)
            try:
                resp = self._once(service, url, accept, budget)
            except _Slow:
                if left is not None and budget < self._timeout():
                    raise NetworkError(f"{name} was still answering when this command's "
                                       f"{self.deadline:g} s online ran out "
                                       f"($PUBCLI_ONLINE_DEADLINE; {shown}); nothing was "
                                       "written") from None
                raise NetworkError(f"{name} did not answer within {self._timeout():g} s "
                                   f"($PUBCLI_HTTP_TIMEOUT; {shown}); nothing was "
                                   "written") from None
            except _Refused as exc:
                raise BadResponse(self.hide(f"{name}: {exc} ({shown}); nothing was "
                                            "written")) from None
            except ConnectionError as exc:
                if attempt >= self.retries:
                    raise NetworkError(self.hide(f"cannot reach {name} ({shown}): {exc}; "
                                                 "are you offline? nothing was written")) \
                        from None
                self._pause(name, self.backoff * 2 ** attempt, "cannot be reached")
                attempt += 1
                continue
            finally:
                self._last[service] = time.monotonic()
            spacing = rate_spacing(resp.headers)
            if spacing:
                self._spacing[service] = spacing
            if resp.ok or resp.status == 404:
                return Response(shown, resp.status, resp.headers, resp.body)
            if resp.status in TRANSIENT and attempt < self.retries:
                wait = retry_after(resp.headers.get("retry-after"))
                if wait is not None and wait > MAX_RETRY_AFTER:
                    raise NetworkError(f"{name} asks to wait {wait:g} s before retrying "
                                       f"(HTTP {resp.status}, {shown}); try again later; "
                                       "nothing was written")
                self._pause(name, wait if wait is not None else self.backoff * 2 ** attempt,
                            f"asks to wait (HTTP {resp.status})")
                attempt += 1
                continue
            if resp.status in TRANSIENT:
                raise NetworkError(f"{name} answered HTTP {resp.status} after "
                                   f"{attempt + 1} tries ({shown}); try again later; nothing "
                                   "was written")
            if resp.status in REDIRECTS:
                raise BadResponse(f"{name} answered HTTP {resp.status} without a usable "
                                  f"Location ({shown}); nothing was written")
            raise BadResponse(f"{name} answered HTTP {resp.status} ({shown}); nothing was "
                              "written")

    def _timeout(self) -> float:
        return self.timeout if self.timeout is not None else DEFAULT_TIMEOUT

    def _wait_turn(self, service: str, name: str) -> None:
        spacing = max(self._spacing.get(service, 0.0), MIN_SPACING.get(service, 0.0))
        last = self._last.get(service)
        if spacing and last is not None:
            wait = last + spacing - time.monotonic()
            if wait > 0:
                self._pause(name, wait, f"asks for {spacing:g} s between requests")

    def _once(self, service: str, url: str, accept: str, budget: float) -> Response:
        """One request, its redirects followed as the service allows, the whole answer
        within ``budget`` seconds. Raises _Slow, _Refused or ConnectionError."""
        end = time.monotonic() + budget
        for _ in range(MAX_REDIRECTS + 1):
            status, headers, body = self._exchange(url, accept, end)
            location = headers.get("location", "").strip()
            if status not in REDIRECTS or not location:
                return Response(url, status, headers, body)
            target = urljoin(url, location)
            why = allowed_redirect(service, url, target)
            if why is None and not re.fullmatch(r"[\x21-\x7e]+", target):
                why = "to a malformed URL"
            if why is not None:
                raise _Refused(f"a redirect {why} was not followed "
                               f"(HTTP {status} to {_short_url(target)})")
            url = target
        raise _Refused(f"more than {MAX_REDIRECTS} redirects")

    def _exchange(self, url: str, accept: str, end: float) -> tuple[int, dict[str, str], bytes]:
        """One HTTP exchange, bounded in time (a watchdog closes the socket at ``end``)
        and in size (the body is decoded while it streams)."""
        import http.client
        import socket

        parts = urlsplit(url)
        host = parts.hostname or ""
        left = end - time.monotonic()
        if left <= 0:
            raise _Slow
        conn_class = (http.client.HTTPSConnection if parts.scheme == "https"
                      else http.client.HTTPConnection)
        conn = conn_class(host, parts.port, timeout=left)
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        watchdog = threading.Timer(left, expire)
        watchdog.daemon = True
        watchdog.start()
        self.requests += 1
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            conn.request("GET", target, headers={
                "User-Agent": user_agent(self.mailto), "Accept": accept,
                "Accept-Encoding": "gzip", "Connection": "close"})
            resp = conn.getresponse()
            headers = {k.lower(): v for k, v in resp.getheaders()}
            status = resp.status
            if not (200 <= status < 300):
                return status, _kept(headers), b""   # the callers never read it
            body = self._read(resp, headers, end, expired)
            return status, _kept(headers), body
        except (socket.timeout, TimeoutError):
            raise _Slow from None
        except (OSError, http.client.HTTPException) as exc:
            if expired.is_set() or time.monotonic() >= end:
                raise _Slow from None
            raise ConnectionError(_reason(exc)) from None
        finally:
            watchdog.cancel()
            conn.close()

    def _read(self, resp: Any, headers: dict[str, str], end: float,
              expired: threading.Event) -> bytes:
        encoding = headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("identity", "gzip", "x-gzip", ""):
            raise _Refused(f"an answer in an encoding pubcli did not ask for ({encoding})")
        cap = self.max_body
        size = f"{cap // 2**20} MB" if cap >= 2**20 else f"{cap} bytes"
        try:
            declared = int(headers.get("content-length", "") or -1)
        except ValueError:
            declared = -1
        if declared > cap and encoding in ("identity", ""):
            raise _Refused(f"an answer larger than {size}")
        gz = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding.endswith("gzip") else None
        chunks: list[bytes] = []
        total = wire = 0
        pending = False   # a gzip member begun and not ended
        while True:
            if expired.is_set() or time.monotonic() >= end:
                raise _Slow
            data = resp.read1(CHUNK)
            if not data:
                break
            wire += len(data)
            if wire > cap:
                raise _Refused(f"an answer larger than {size}")
            while data:
                if gz is None:
                    piece, data = data, b""
                else:
                    pending = True
                    try:
                        piece = gz.decompress(data, cap - total + 1)
                    except zlib.error:
                        raise _Refused("a damaged gzip answer") from None
                    data = gz.unconsumed_tail
                    if gz.eof:
                        pending = False
                        rest = gz.unused_data
                        gz = zlib.decompressobj(16 + zlib.MAX_WBITS)
                        data = rest + data
                total += len(piece)
                if total > cap:
                    raise _Refused(f"an answer larger than {size} once decompressed")
                chunks.append(piece)
        if expired.is_set():
            raise _Slow
        if pending:
            raise _Refused("a damaged gzip answer (cut short)")
        return b"".join(chunks)


def _kept(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items()
            if k in ("content-type", "retry-after", "x-rate-limit-limit", "location",
                     "x-rate-limit-interval", "x-concurrency-limit")}


def _short_url(url: str) -> str:
    """A URL for a message: scheme, host and path, shortened."""
    p = urlsplit(url)
    text = f"{p.scheme}://{p.netloc}{p.path}" if p.netloc else url
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= 120 else text[:117] + "..."


def _reason(reason: object) -> str:
    text = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return str(text)


def _lock_for(service: str) -> threading.Lock:
    with _locks_guard:
        lock = _locks.get(service)
        if lock is None:
            lock = _locks[service] = threading.Lock()
        return lock
