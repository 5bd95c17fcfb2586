"""The on-disk response cache: one file per URL, under the user's cache folder.

Only successful answers are kept. An entry expires after ``ttl`` seconds
(default :data:`DEFAULT_TTL`, or ``$PUBCLI_CACHE_TTL``; ``0`` turns the cache off).
The folder is ``<user cache>/http`` (``$PUBCLI_CACHE_DIR``, else
``$XDG_CACHE_HOME/pubcli``, else ``~/.cache/pubcli``), private to the user.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

from ..errors import ConfigError

DEFAULT_TTL = 24 * 3600.0


def default_ttl() -> float:
    raw = os.environ.get("PUBCLI_CACHE_TTL")
    if raw is None or not raw.strip():
        return DEFAULT_TTL
    try:
        ttl = float(raw)
    except ValueError:
        raise ConfigError(f"PUBCLI_CACHE_TTL must be a number of seconds, got {raw!r}") \
            from None
    return max(ttl, 0.0)


def default_folder() -> Path:
    from ..store import cache_dir

    return cache_dir() / "http"


class ResponseCache:
    """``get(url, accept)`` -> (status, headers, body) or None; ``put`` stores one."""

    def __init__(self, folder: Path | None = None, ttl: float | None = None,
                 clock=time.time) -> None:
        self.folder = folder if folder is not None else default_folder()
        self.ttl = default_ttl() if ttl is None else ttl
        self._clock = clock

    def _file(self, url: str, accept: str) -> Path:
        digest = hashlib.sha256(f"{accept}\n{url}".encode()).hexdigest()
        return self.folder / f"{digest[:2]}" / f"{digest}.json"

    def get(self, url: str, accept: str) -> tuple[int, dict[str, str], bytes] | None:
        if self.ttl <= 0:
            return None
        f = self._file(url, accept)
        try:
            item = json.loads(f.read_text(encoding="utf-8"))
            if item["url"] != url or self._clock() - float(item["time"]) > self.ttl:
                return None
            return int(item["status"]), dict(item["headers"]), base64.b64decode(item["body"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing, expired or damaged: ask the service again

    def put(self, url: str, accept: str, status: int, headers: dict[str, str],
            body: bytes) -> None:
        if self.ttl <= 0:
            return
        f = self._file(url, accept)
        item = {"url": url, "time": self._clock(), "status": status, "headers": headers,
                "body": base64.b64encode(body).decode("ascii")}
        try:
            f.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=f.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(item, fh)
            os.replace(tmp, f)
        except OSError:
            pass  # a cache that cannot be written only costs a request next time
