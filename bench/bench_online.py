"""Benchmark of the online commands against loopback servers, as whole processes.

Two parts, each run for this tree and (with --baseline ROOT) for another checkout,
in the same run:

* ``update`` of N arXiv preprints (N from --preprints, default 10 and 100) against an
  arXiv that enforces its 3 s rule (a request sooner than 3 s after the previous one
  is answered 503) and a Crossref that knows the DOI arXiv gives every second
  preprint: wall time and CPU time (medians of --repeat runs), requests made;
* hostile servers (a gzip bomb, a trickle of bytes, a redirect to another site...):
  ``add --doi`` with ``PUBCLI_HTTP_TIMEOUT=2``: wall time, peak resident memory, exit
  status, whether the library kept its bytes. A run is stopped after --limit s.

    python bench/bench_online.py --baseline /work/main
    python bench/bench_online.py --preprints 100 --repeat 3 --only update
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

HERE = Path(__file__).resolve().parent.parent
ENVS = ("PUBCLI_CROSSREF_URL", "PUBCLI_DOI_URL", "PUBCLI_ARXIV_URL", "PUBCLI_OPENLIBRARY_URL",
        "PUBCLI_ORCID_URL", "PUBCLI_DBLP_URL", "PUBCLI_OPENALEX_URL")
TIMEOUT = 2.0


def _bomb() -> bytes:
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b" " * (1 << 20)
    return b"".join(z.compress(block) for _ in range(256)) + z.flush()


class Server:
    """One loopback server standing for every service."""

    def __init__(self) -> None:
        self.behave = "arxiv"
        self.requests: list[str] = []
        self.refused = 0
        self.last_arxiv = 0.0
        self.bomb = _bomb()
        self.lock = threading.Lock()
        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.srv.daemon_threads = True
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.other = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.other.daemon_threads = True
        threading.Thread(target=self.other.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.srv.server_address[1]}"

    def _handler(self):
        server = self

        class H(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                server.requests.append(self.path)
                try:
                    getattr(self, "b_" + server.behave.replace("-", "_"))()
                except OSError:
                    pass

            def send(self, status, body, headers=()):
                data = body if isinstance(body, bytes) else body.encode()
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def b_arxiv(self):
                parts = urlsplit(self.path)
                q = {k: v[0] for k, v in parse_qs(parts.query).items()}
                if parts.path == "/api/query":
                    with server.lock:
                        now = time.monotonic()
                        early = now - server.last_arxiv < 3.0
                        server.last_arxiv = now
                    if early:
                        server.refused += 1
                        return self.send(503, "Rate exceeded.", [("Retry-After", "3")])
                    return self.send(200, feed(q.get("id_list", "").split(",")))
                if parts.path == "/works" and "doi:" in q.get("filter", ""):
                    dois = [d.removeprefix("doi:") for d in q["filter"].split(",")]
                    items = [work(d) for d in dois]
                    return self.send(200, json.dumps({"message": {"items": items}}))
                if parts.path.startswith("/works/10."):
                    doi = parts.path[len("/works/"):].replace("%2F", "/")
                    return self.send(200, json.dumps({"message": work(doi)}))
                if parts.path == "/works":
                    return self.send(200, json.dumps({"message": {"items": []}}))
                return self.send(404, "{}")

            def b_gzip_bomb(self):
                self.send(200, server.bomb, [("Content-Encoding", "gzip"),
                                             ("Content-Type", "application/json")])

            def b_trickle(self):
                self.send_response(200)
                self.send_header("Content-Length", "100000")
                self.end_headers()
                for _ in range(600):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.1)

            def b_redirect(self):
                self.send(302, "", [("Location", f"http://127.0.0.1:"
                                     f"{server.other.server_address[1]}/elsewhere")])

            def b_elsewhere(self):
                self.b_redirect()

            def log_message(self, *a):
                pass

        return H


def preprint_id(i: int) -> str:
    return f"1903.{i:05d}"


def feed(ids: list[str]) -> str:
    entries = []
    for aid in ids:
        i = int(aid.split(".")[1])
        doi = f"<arxiv:doi>10.9999/paper.{i}</arxiv:doi>" if i % 2 == 0 else ""
        entries.append(
            f"<entry><id>http://arxiv.org/abs/{aid}v1</id>"
            "<published>2019-03-04T10:00:00Z</published>"
            f"<title>Paper Number {i}</title><summary>Text.</summary>"
            "<author><name>Ann Lee</name></author>"
            '<arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>'
            f"{doi}</entry>")
    return ('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" '
            'xmlns:arxiv="http://arxiv.org/schemas/atom">' + "".join(entries) + "</feed>")


def work(doi: str) -> dict:
    i = int(doi.rsplit(".", 1)[1])
    return {"DOI": doi, "type": "journal-article", "title": [f"Paper Number {i}"],
            "author": [{"given": "Ann", "family": "Lee"}], "issued": {"date-parts": [[2020]]},
            "container-title": ["J. Things"], "volume": "1", "page": f"{i}-{i + 9}"}


def library(n: int) -> str:
    return "% preprints\n" + "".join(
        f"\n@misc{{p{i},\n  author = {{Lee, Ann}},\n  title = {{Paper Number {i}}},\n"
        f"  year = {{2019}},\n  eprint = {{{preprint_id(i)}}},\n  archiveprefix = {{arXiv}},\n}}\n"
        for i in range(1, n + 1))


WRAPPER = """
import atexit, resource, runpy, sys
out = sys.argv.pop(1)
def peak():
    # VmHWM: this process's own peak (ru_maxrss would count the forking parent's too)
    r = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/self/status") as st:
        kib = next(int(ln.split()[1]) for ln in st if ln.startswith("VmHWM:"))
    with open(out, "w") as fh:
        fh.write(f"{kib / 1024} {r.ru_utime + r.ru_stime}")
atexit.register(peak)
sys.argv[0] = "pubcli"
runpy.run_module("pubcli", run_name="__main__")
"""


def run(tree: Path, server: Server, args: list[str], limit: float, tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PUBCLI_")}
    env.update({e: server.base for e in ENVS})
    env.update(PUBCLI_HTTP_TIMEOUT=str(TIMEOUT), PUBCLI_CACHE_TTL="0",
               PUBCLI_MAILTO="bench@example.org", PYTHONPATH=str(tree / "src"),
               XDG_CONFIG_HOME=str(tmp / "cfg"), PUBCLI_CACHE_DIR=str(tmp / "cache"))
    stats = tmp / "stats.txt"
    stats.unlink(missing_ok=True)
    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", WRAPPER, str(stats), *args], env=env,
                              capture_output=True, timeout=limit)
        rc: int | str = proc.returncode
        err = proc.stderr.decode(errors="replace").strip().splitlines()
    except subprocess.TimeoutExpired:
        rc, err = f"killed after {limit:g} s", []
    wall = time.monotonic() - started
    rss, cpu = (float(x) for x in stats.read_text().split()) if stats.exists() else (0.0, 0.0)
    return {"rc": rc, "wall": wall, "cpu": cpu, "rss": rss, "last": err[-1] if err else ""}


def bench_update(trees: dict[str, Path], sizes: list[int], repeat: int, limit: float) -> None:
    server = Server()
    print("update of N arXiv preprints, arXiv enforcing 3 s between requests")
    print(f"{'tree':10} {'N':>4} {'wall s (median)':>16} {'cpu s':>7} {'requests':>9} "
          f"{'refused':>8}  rc")
    for n in sizes:
        for name, tree in trees.items():
            walls, cpus = [], []
            for _ in range(repeat if name == "this" or n <= 10 else 1):
                with tempfile.TemporaryDirectory() as d:
                    tmp = Path(d)
                    lib = tmp / "library.bib"
                    lib.write_text(library(n))
                    server.requests.clear()
                    server.refused = 0
                    server.last_arxiv = 0.0
                    r = run(tree, server, ["update", "-l", str(lib), "--dry-run"], limit, tmp)
                    walls.append(r["wall"])
                    cpus.append(r["cpu"])
            print(f"{name:10} {n:>4} {statistics.median(walls):>16.2f} "
                  f"{statistics.median(cpus):>7.2f} {len(server.requests):>9} "
                  f"{server.refused:>8}  {r['rc']}")


def bench_hostile(trees: dict[str, Path], limit: float) -> None:
    server = Server()
    print(f"\nhostile servers, add --doi with PUBCLI_HTTP_TIMEOUT={TIMEOUT:g}")
    print(f"{'case':12} {'tree':10} {'wall s':>7} {'peak MiB':>9} {'same bytes':>10}  rc / "
          "last stderr line")
    for case in ("gzip-bomb", "trickle", "redirect"):
        for name, tree in trees.items():
            with tempfile.TemporaryDirectory() as d:
                tmp = Path(d)
                lib = tmp / "library.bib"
                lib.write_text("% mine\n")
                before = lib.read_bytes()
                server.behave = case
                r = run(tree, server, ["add", "--doi", "10.1000/x", "--no-interactive", "-l",
                                       str(lib)], limit, tmp)
                same = lib.read_bytes() == before
                print(f"{case:12} {name:10} {r['wall']:>7.2f} {r['rss']:>9.0f} {str(same):>10}"
                      f"  {r['rc']} / {r['last'][:110]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, help="another checkout (its root) to compare")
    ap.add_argument("--preprints", type=int, action="append", help="N (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=float, default=400.0, help="seconds before a run is stopped")
    ap.add_argument("--only", choices=("update", "hostile"))
    a = ap.parse_args()
    trees = {"this": HERE}
    if a.baseline:
        root = a.baseline.resolve()
        if not (root / "src" / "pubcli").is_dir():
            ap.error(f"{root} has no src/pubcli")
        trees["baseline"] = root
    if a.only != "hostile":
        bench_update(trees, a.preprints or [10, 100], a.repeat, a.limit)
    if a.only != "update":
        bench_hostile(trees, min(a.limit, 60.0))


if __name__ == "__main__":
    main()
