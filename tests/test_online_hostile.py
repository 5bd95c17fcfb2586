"""The online commands against hostile servers, as whole processes.

Each case runs ``python -m pubcli`` against a loopback server that misbehaves
(a gzip bomb, a trickle of bytes, redirects elsewhere, an echoed API key...) and
checks the promises: one clear ``error:`` line on stderr, exit 2, a bounded time
(under twice the configured deadline), a bounded memory (under 200 MiB of
resident memory) and the library byte-identical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from pubcli.online.services import SERVICES

DEADLINE = 1.5      # $PUBCLI_HTTP_TIMEOUT for these runs
MAX_RSS_MIB = 200
SECRET = "sk-Very-Secret-Key-4242"
ROOT = Path(__file__).resolve().parent.parent

_BOMB: list[bytes] = []


def gzip_bomb() -> bytes:
    """A quarter of a MB of gzip that decompresses to 256 MiB of spaces."""
    if not _BOMB:
        z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        block = b" " * (1 << 20)
        _BOMB.append(b"".join(z.compress(block) for _ in range(256)) + z.flush())
    return _BOMB[0]


class Hostile:
    """One loopback server for every service; ``behave`` names what it does."""

    def __init__(self) -> None:
        self.behave = "ok"
        self.paths: list[str] = []
        self.other = ThreadingHTTPServer(("127.0.0.1", 0), self._handler("elsewhere"))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler("main"))
        for srv in (self.server, self.other):
            srv.daemon_threads = True
            threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02},
                             daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        for srv in (self.server, self.other):
            srv.shutdown()
            srv.server_close()

    def _handler(self, role: str):
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                hostile.paths.append(self.path)
                try:
                    if role == "elsewhere":
                        self._send(200, json.dumps({"message": {"title": ["Elsewhere"]}}))
                    else:
                        getattr(self, "b_" + hostile.behave.replace("-", "_"))()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass

            def _send(self, status, body, headers=()):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def b_gzip_bomb(self):
                self._send(200, gzip_bomb(), [("Content-Type", "application/json"),
                                              ("Content-Encoding", "gzip")])

            def b_huge_plain(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()   # no length: the body runs until the cap
                block = b" " * (1 << 20)
                for _ in range(200):
                    self.wfile.write(block)

            def b_trickle(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                for _ in range(1000):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)

            def b_trickle_headers(self):
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                for _ in range(1000):
                    self.wfile.write(b"X")
                    self.wfile.flush()
                    time.sleep(0.2)

            def b_silent(self):
                time.sleep(30)

            def _redirect(self, location):
                self._send(302, "", [("Location", location)])

            def b_redirect_elsewhere(self):
                self._redirect(f"http://127.0.0.1:{hostile.other.server_address[1]}/x")

            def b_redirect_ftp(self):
                self._redirect("ftp://127.0.0.1/pub/x.json")

            def b_redirect_loop(self):
                self._redirect(self.path)

            def b_redirect_secret(self):
                self._redirect(f"http://evil.example/steal?key={SECRET}")

            def b_damaged_json(self):
                self._send(200, '{"results": [ {"id": "W1", "title": ', [
                    ("Content-Type", "application/json")])

            def b_echo_secret(self):
                body = json.dumps({"results": [{"id": "W1", "title": f"Key {SECRET}",
                                                "publication_year": 2020}],
                                   "meta": {"next_cursor": None}})
                self._send(200, body, [("Content-Type", "application/json")])

            def b_damaged_gzip(self):
                self._send(200, gzip_bomb()[:2000], [("Content-Encoding", "gzip")])

            def b_not_found(self):
                self._send(404, "{}")

            def log_message(self, *args):
                pass

        return Handler


@pytest.fixture
def hostile():
    gzip_bomb()   # made before the clock of any case starts
    h = Hostile()
    yield h
    h.stop()


@pytest.fixture
def lib(tmp_path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    (d / "pubcli.toml").write_text('areas = ["Artificial intelligence"]\n')
    p = d / "library.bib"
    p.write_bytes(b"% my papers\n\n@misc{pre2020,\n  author = {Doe, Jane},\n  title = {A "
                  b"Preprint},\n  year = {2020},\n  eprint = {2001.01234},\n  archiveprefix "
                  b"= {arXiv}\n}\n")
    return p


def run(hostile: Hostile, tmp_path: Path, *args: str, **env: str):
    """``python -m pubcli ARGS`` against the hostile server: (rc, stderr, seconds, MiB)."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("PUBCLI_", "OPENALEX_"))}
    environ.update({e: hostile.base for e, _ in SERVICES.values()})
    environ.update({"PUBCLI_HTTP_TIMEOUT": str(DEADLINE), "PUBCLI_CACHE_TTL": "0",
                    "PUBCLI_MAILTO": "tester@example.org", "PUBCLI_OPENALEX_API_KEY": SECRET,
                    "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "PYTHONPATH": str(ROOT / "src"),
                    "COLUMNS": "120", **env})
    rss_file = tmp_path / "rss.txt"
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, str(rss_file), *args], env=environ,
                          capture_output=True, timeout=60)
    elapsed = time.monotonic() - started
    return proc.returncode, proc.stderr.decode(), elapsed, float(rss_file.read_text())


# pubcli as `python -m pubcli`, writing its peak resident memory (MiB) to argv[1] on exit
_WRAPPER = """
import atexit, resource, runpy, sys
out = sys.argv.pop(1)
def peak():
    # VmHWM: this process's own peak (ru_maxrss would count the forking parent's too)
    with open("/proc/self/status") as st:
        kib = next(int(ln.split()[1]) for ln in st if ln.startswith("VmHWM:"))
    with open(out, "w") as fh:
        fh.write(str(kib / 1024))
atexit.register(peak)
sys.argv[0] = "pubcli"
runpy.run_module("pubcli", run_name="__main__")
"""


def one_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


ADD = ("add", "--doi", "10.1145/3394486.3406703", "--no-interactive")

CASES = {
    # behaviour: (what the line says, the command)
    "gzip-bomb": ("larger than 32 MB once decompressed", ADD),
    "huge-plain": ("larger than 32 MB", ADD),
    "trickle": (f"Crossref did not answer within {DEADLINE:g} s", ADD),
    "trickle-headers": (f"Crossref did not answer within {DEADLINE:g} s", ADD),
    "silent": (f"Crossref did not answer within {DEADLINE:g} s", ADD),
    "redirect-elsewhere": ("a redirect to another site was not followed", ADD),
    "redirect-ftp": ("a redirect to a ftp: URL was not followed", ADD),
    "redirect-loop": ("more than 5 redirects", ADD),
    "damaged-gzip": ("a damaged gzip answer", ADD),
    "trickle-sync": (f"OpenAlex did not answer within {DEADLINE:g} s",
                     ("sync", "--openalex", "A5023888391", "--apply")),
    "damaged-json-sync": ("not valid JSON", ("sync", "--openalex", "A5023888391", "--apply")),
    "redirect-secret": ("a redirect to another site was not followed",
                        ("sync", "--openalex", "A5023888391", "--apply")),
    "echo-secret": ("sent back the API key", ("sync", "--openalex", "A5023888391", "--apply")),
    "trickle-update": (f"arXiv did not answer within {DEADLINE:g} s", ("update", "pre2020")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_server_is_one_line_exit_2_bounded_and_writes_nothing(hostile, lib, tmp_path,
                                                                        case):
    expected, args = CASES[case]
    hostile.behave = case.removesuffix("-sync").removesuffix("-update")
    before = lib.read_bytes()
    rc, err, seconds, rss = run(hostile, tmp_path, *args, "-l", str(lib))
    line = one_error(err)
    assert rc == 2, err
    assert expected in line
    assert SECRET not in err and "tester@example.org" not in err
    assert seconds < 2 * DEADLINE + 1.0, seconds   # + the interpreter's start-up
    assert rss < MAX_RSS_MIB, rss
    assert lib.read_bytes() == before
    assert sorted(p.name for p in lib.parent.iterdir()) == ["library.bib", "pubcli.toml"]


def test_a_doi_with_dot_segments_is_refused_before_any_request(hostile, lib, tmp_path):
    before = lib.read_bytes()
    rc, err, _, _ = run(hostile, tmp_path, "add", "--doi", "10.1234/../../admin",
                        "--no-interactive", "-l", str(lib))
    assert rc == 2 and "is not a DOI" in one_error(err)
    assert hostile.paths == [] and lib.read_bytes() == before


def test_every_identifier_is_one_percent_encoded_path_segment(hostile, lib, tmp_path):
    hostile.behave = "not-found"
    run(hostile, tmp_path, "add", "--doi", "10.1234/a/b?c#d;e", "--no-interactive",
        "-l", str(lib))
    crossref = [p for p in hostile.paths if p.startswith("/works/")]
    assert crossref and all(urlsplit(p).path == "/works/10.1234%2Fa%2Fb%3Fc%23d%3Be"
                            for p in crossref)
    assert unquote(urlsplit(crossref[0]).path) == "/works/10.1234/a/b?c#d;e"


def test_the_command_deadline_bounds_many_slow_answers(hostile, lib, tmp_path):
    """Each answer within the response deadline, but the command's own runs out."""
    hostile.behave = "silent"
    rc, err, seconds, _ = run(hostile, tmp_path, *ADD, "-l", str(lib),
                              PUBCLI_HTTP_TIMEOUT="5", PUBCLI_ONLINE_DEADLINE="1")
    assert rc == 2 and "this command's 1 s online" in one_error(err)
    assert seconds < 5  # the command's 1 s ran out before one answer's 5 s did


def test_redirect_rules():
    from pubcli.online.services import allowed_redirect

    assert allowed_redirect("crossref", "https://api.crossref.org/works/x",
                            "http://api.crossref.org/works/x") == "from https to http"
    assert allowed_redirect("crossref", "http://api.crossref.org/works/x",
                            "https://api.crossref.org/works/x") is None
    assert allowed_redirect("doi", "https://doi.org/10.5281/x",
                            "https://data.datacite.org/application/x") is None
    assert allowed_redirect("doi", "https://doi.org/10.1/x",
                            "https://api.crossref.org/v1/works/10.1/x/transform") is None
    assert allowed_redirect("crossref", "https://api.crossref.org/works/x",
                            "https://data.datacite.org/x") == "to another site"
    assert allowed_redirect("arxiv", "https://export.arxiv.org/api/query",
                            "https://arxiv.org:8443/api/query") == "to another site"
    assert allowed_redirect("dblp", "https://dblp.org/pid/1/2.bib",
                            "file:///etc/passwd") == "to a file: URL"
    assert allowed_redirect("dblp", "https://dblp.org/pid/1/2.bib",
                            "https://dblp.org:99999999/x") == "to a malformed URL"


def test_one_home_hides_every_secret():
    from pubcli.online.http import Client

    c = Client(mailto="me+tok@uni.example", api_keys={"openalex": "k/ey 1"})
    text = c.hide("https://x.org/w?api_key=k%2Fey+1&mailto=me%2Btok%40uni.example k/ey 1")
    assert "k/ey" not in text and "tok" not in text and "k%2Fey" not in text
    assert c.shown_url("openalex", "/works", {"filter": "a", "api_key": "k/ey 1"}) \
        .endswith("/works?filter=a")


def test_a_secret_free_cache(hostile, lib, tmp_path):
    """Cache names and files hold neither the API key nor the contact address."""
    hostile.behave = "damaged-json"
    cache = tmp_path / "cache"
    run(hostile, tmp_path, "sync", "--openalex", "A5023888391", "-l", str(lib),
        PUBCLI_CACHE_TTL="60", PUBCLI_CACHE_DIR=str(cache))
    for f in cache.rglob("*"):
        assert SECRET not in f.name
        if f.is_file():
            data = f.read_bytes()
            assert SECRET.encode() not in data and b"tester@example.org" not in data


@pytest.fixture
def tls(tmp_path):
    """A certificate for 127.0.0.1 (made with openssl) that the child trusts."""
    import shutil

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_a_redirect_from_https_to_http_is_refused_and_named(hostile, lib, tmp_path, tls):
    import ssl

    cert, key = tls
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    plain = f"http://127.0.0.1:{hostile.other.server_address[1]}"

    class Downgrade(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(301)
            self.send_header("Location", plain + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Downgrade)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02},
                     daemon=True).start()
    try:
        before = lib.read_bytes()
        rc, err, _, _ = run(hostile, tmp_path, *ADD, "-l", str(lib),
                            PUBCLI_CROSSREF_URL=f"https://127.0.0.1:{srv.server_address[1]}",
                            SSL_CERT_FILE=str(cert))
        line = one_error(err)
        assert rc == 2 and "a redirect from https to http was not followed" in line
        assert plain in line and lib.read_bytes() == before
        assert not [p for p in hostile.paths if "works" in p]   # the http site never asked
    finally:
        srv.shutdown()
        srv.server_close()
