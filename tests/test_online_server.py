"""A loopback web for the online tests: one tiny HTTP server per service, on
127.0.0.1, answering what each test routes; the PUBCLI_*_URL variables point at
them. Also the tests of the HTTP layer itself (retries, Retry-After, timeouts,
cache, User-Agent, base URLs)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from pubcli.online import BadResponse, NetworkError
from pubcli.online.http import Client
from pubcli.online.services import SERVICES, rate_spacing, retry_after

MAILTO = "tester@example.org"


class Reply:
    def __init__(self, status=200, body=b"", headers=None, delay=0.0):
        self.status = status
        self.body = body.encode("utf-8") if isinstance(body, str) else body
        self.headers = headers or {}
        self.delay = delay


class FakeWeb:
    """``route(service, path, *replies, query={...})``: the replies are served in
    turn (the last one repeats). ``requests`` logs (service, path, query, headers)."""

    def __init__(self) -> None:
        self.routes: list[tuple[str, str, dict, list[Reply]]] = []
        self.requests: list[tuple[str, str, dict, dict]] = []
        self.raw_paths: list[str] = []     # as sent, percent-encoding and all
        self.servers: dict[str, ThreadingHTTPServer] = {}
        self._lock = threading.Lock()

    def start(self, monkeypatch) -> None:
        for service, (env, _) in SERVICES.items():
            srv = ThreadingHTTPServer(("127.0.0.1", 0), self._handler(service))
            srv.daemon_threads = True
            threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02},
                             daemon=True).start()
            self.servers[service] = srv
            monkeypatch.setenv(env, f"http://127.0.0.1:{srv.server_address[1]}")

    def stop(self) -> None:
        for srv in self.servers.values():
            srv.shutdown()
            srv.server_close()

    def route(self, service: str, path: str, *replies, query: dict | None = None) -> None:
        rs = [r if isinstance(r, Reply) else json_reply(r) for r in replies]
        self.routes.insert(0, (service, path, query or {}, rs))

    def hits(self, service: str, path: str | None = None) -> list:
        return [r for r in self.requests if r[0] == service and (path is None or r[1] == path)]

    def _answer(self, service: str, path: str, query: dict) -> Reply:
        with self._lock:
            for s, p, q, replies in self.routes:
                if s == service and p == path and all(query.get(k) == v for k, v in q.items()):
                    return replies.pop(0) if len(replies) > 1 else replies[0]
        if service == "crossref" and path == "/works" and "doi:" in query.get("filter", ""):
            return self._crossref_filter(query["filter"])
        return Reply(404, json.dumps({"status": "error", "message": "Resource not found."}))

    def _crossref_filter(self, value: str) -> Reply:
        """Crossref's ``filter=doi:a,doi:b`` (filters of one name are ORed): the works
        routed as ``/works/{doi}``, as one list (DOIs compared case-insensitively)."""
        items = []
        for part in value.split(","):
            doi = part.removeprefix("doi:").lower()
            reply = next((r[0] for s, p, _, r in self.routes
                          if s == "crossref" and p.lower() == f"/works/{doi}"), None)
            if reply is not None and reply.status == 200:
                items.append(json.loads(reply.body)["message"])
        return json_reply({"status": "ok", "message-type": "work-list",
                           "message": {"total-results": len(items), "items": items}})

    def _handler(self, service: str):
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                path = unquote(parts.path)
                web.raw_paths.append(parts.path)
                web.requests.append((service, path, query, dict(self.headers)))
                reply = web._answer(service, path, query)
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        return Handler


def json_reply(data, status=200, headers=None) -> Reply:
    return Reply(status, json.dumps(data), {"Content-Type": "application/json", **(headers or {})})


@pytest.fixture
def web(monkeypatch, tmp_path):
    """The loopback services, a user config folder of our own and a contact address."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("PUBCLI_MAILTO", MAILTO)
    monkeypatch.setenv("PUBCLI_HTTP_TIMEOUT", "5")
    for name in ("PUBCLI_CACHE_TTL", "OPENALEX_API_KEY", "PUBCLI_OPENALEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    w = FakeWeb()
    w.start(monkeypatch)
    yield w
    w.stop()


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


# ---------------------------------------------------------------- the HTTP layer
def test_user_agent_names_pubcli_its_version_and_the_contact(web):
    from pubcli import __version__

    web.route("crossref", "/works/10.1/x", {"message": {}})
    Client.from_environment().get("crossref", "/works/10.1/x")
    (_, _, query, headers), = web.hits("crossref")
    assert headers["User-Agent"] == f"pubcli/{__version__} (mailto:{MAILTO})"
    assert query["mailto"] == MAILTO


def test_the_contact_comes_from_the_user_config_file(web, monkeypatch, tmp_path):
    monkeypatch.delenv("PUBCLI_MAILTO")
    cfg = tmp_path / "config-home" / "pubcli" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('mailto = "me@uni.example"\nopenalex-api-key = "k123"\n')
    web.route("openalex", "/works", {"results": [], "meta": {"next_cursor": None}})
    Client.from_environment().get("openalex", "/works", {"filter": "author.id:A1"})
    (_, _, query, headers), = web.hits("openalex")
    assert "mailto:me@uni.example" in headers["User-Agent"]
    assert query["api_key"] == "k123"


def test_429_with_retry_after_is_waited_out_then_retried(web):
    web.route("crossref", "/works/10.1/x",
              Reply(429, "slow down", {"Retry-After": "3"}),
              Reply(429, "slow down", {"Retry-After": "2"}),
              json_reply({"message": {"DOI": "10.1/x"}}))
    sleeps = Sleeps()
    client = Client(sleep=sleeps)
    resp = client.get("crossref", "/works/10.1/x")
    assert resp.json()["message"]["DOI"] == "10.1/x"
    assert sleeps == [3.0, 2.0]
    assert len(web.hits("crossref")) == 3


def test_a_server_error_is_retried_with_growing_backoff_then_reported(web):
    web.route("dblp", "/pid/1/2.bib", Reply(503, "busy"))
    sleeps = Sleeps()
    with pytest.raises(NetworkError, match="DBLP answered HTTP 503 after 4 tries"):
        Client(sleep=sleeps).get("dblp", "/pid/1/2.bib")
    assert sleeps == [0.5, 1.0, 2.0]


def test_a_long_retry_after_is_an_error_not_a_wait(web):
    web.route("crossref", "/works/10.1/x", Reply(429, "", {"Retry-After": "3600"}))
    sleeps = Sleeps()
    with pytest.raises(NetworkError, match="asks to wait 3600 s"):
        Client(sleep=sleeps).get("crossref", "/works/10.1/x")
    assert sleeps == []


def test_crossref_rate_limit_headers_space_the_next_requests(web):
    headers = {"X-Rate-Limit-Limit": "2", "X-Rate-Limit-Interval": "10s"}
    web.route("crossref", "/works/10.1/a", json_reply({"message": {}}, headers=headers))
    web.route("crossref", "/works/10.1/b", json_reply({"message": {}}, headers=headers))
    sleeps = Sleeps()
    client = Client(sleep=sleeps)
    client.get("crossref", "/works/10.1/a")
    client.get("crossref", "/works/10.1/b")
    assert len(sleeps) == 1 and 4.0 < sleeps[0] <= 5.0
    assert rate_spacing({"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"}) == 0.02


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after("7") == 7.0
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after("soon") is None


def test_a_timeout_is_reported_at_once_naming_the_service(web):
    web.route("openalex", "/works", Reply(200, "{}", delay=1.5))
    sleeps = Sleeps()
    started = time.monotonic()
    with pytest.raises(NetworkError, match=r"OpenAlex did not answer within 0.2 s"):
        Client(timeout=0.2, sleep=sleeps).get("openalex", "/works", {"filter": "x"})
    assert time.monotonic() - started < 0.4
    assert len(web.hits("openalex")) == 1 and sleeps == []


def test_offline_is_one_clear_error(monkeypatch):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    monkeypatch.setenv("PUBCLI_CROSSREF_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(NetworkError, match="cannot reach Crossref .*offline"):
        Client(sleep=Sleeps()).get("crossref", "/works/10.1/x")


def test_malformed_json_is_a_bad_response(web):
    web.route("crossref", "/works/10.1/x", Reply(200, '{"message": {"title": [', {}))
    with pytest.raises(BadResponse, match="not valid JSON"):
        Client().get("crossref", "/works/10.1/x").json()


def test_answers_are_cached_on_disk_until_they_expire(web, tmp_path):
    from pubcli.online.cache import ResponseCache

    web.route("crossref", "/works/10.1/x", json_reply({"message": {"n": 1}}))
    now = [1000.0]
    cache = ResponseCache(tmp_path / "c", ttl=60, clock=lambda: now[0])
    assert Client(cache=cache).get("crossref", "/works/10.1/x").json()["message"]["n"] == 1
    again = Client(cache=cache).get("crossref", "/works/10.1/x")
    assert again.cached and len(web.hits("crossref")) == 1
    now[0] += 61
    assert not Client(cache=cache).get("crossref", "/works/10.1/x").cached
    assert len(web.hits("crossref")) == 2


def test_errors_are_not_cached(web, tmp_path):
    from pubcli.online.cache import ResponseCache

    web.route("crossref", "/works/10.1/x", Reply(404, "{}"))
    cache = ResponseCache(tmp_path / "c", ttl=60)
    for _ in range(2):
        assert Client(cache=cache).get("crossref", "/works/10.1/x").status == 404
    assert len(web.hits("crossref")) == 2


@pytest.mark.parametrize("value", ["https://api.crossref.org/v1", "ftp://x.org", "api.crossref.org",
                                   "https://x.org/?a=1"])
def test_a_base_url_is_a_scheme_and_host_only(monkeypatch, value):
    from pubcli.errors import ConfigError
    from pubcli.online.services import base_url

    monkeypatch.setenv("PUBCLI_CROSSREF_URL", value)
    with pytest.raises(ConfigError, match="PUBCLI_CROSSREF_URL must be a scheme and host"):
        base_url("crossref")


def test_help_imports_nothing_of_the_network():
    import subprocess
    import sys

    code = ("import sys; sys.argv = ['pubcli', '--help']\n"
            "from pubcli.cli import app\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\n"
            "print([m for m in ('urllib.request', 'http.client', 'ssl', 'pubcli.online',"
            " 'pubcli.online.http') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_one_request_at_a_time_per_service(web):
    active, peak = [0], [0]
    guard = threading.Lock()
    original = web._answer

    def counting(service, path, query):
        with guard:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with guard:
            active[0] -= 1
        return original(service, path, query)

    web._answer = counting
    web.route("crossref", "/works/10.1/x", {"message": {}})
    client = Client()
    threads = [threading.Thread(target=client.get, args=("crossref", "/works/10.1/x"))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(web.hits("crossref")) == 4 and peak[0] == 1


def test_arxiv_calls_are_three_seconds_apart(web):
    web.route("arxiv", "/api/query", Reply(200, "<feed/>"))
    sleeps = Sleeps()
    client = Client(sleep=sleeps)
    client.get("arxiv", "/api/query", {"id_list": "1"})
    client.get("arxiv", "/api/query", {"id_list": "2"})
    assert len(sleeps) == 1 and 2.5 < sleeps[0] <= 3.0


def test_the_api_key_is_not_written_to_the_cache(web, tmp_path):
    from pubcli.online.cache import ResponseCache

    web.route("openalex", "/works", json_reply({"results": []}))
    cache = ResponseCache(tmp_path / "c", ttl=60)
    Client(api_keys={"openalex": "s3cret"}, cache=cache).get("openalex", "/works", {"q": "1"})
    files = list((tmp_path / "c").rglob("*.json"))
    assert len(files) == 1 and "s3cret" not in files[0].read_text()
    assert Client(api_keys={"openalex": "s3cret"}, cache=cache).get(
        "openalex", "/works", {"q": "1"}).cached
