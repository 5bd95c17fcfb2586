"""Start-up CPU of pubcli's commands: median of N runs, before and after in the same run.

    python bench/bench_startup.py                          # 20 runs each
    python bench/bench_startup.py --before /tmp/base/src   # interleaved before/after

Each run is a fresh process (``python -m pubcli``), so the figure includes the
interpreter's start-up, as a user sees it: ``--help``, ``--version``, ``sync --help``, and
``fmt --check`` and ``list`` on a one-entry library (what a command costs before it does
any work; ``--library PATH`` for another file). With ``--before SRC`` every run of the
current code alternates with a run of the code in SRC (put first on PYTHONPATH, e.g.
``git archive <commit> src | tar -x -C /tmp/base``), so that a busy machine slows both
alike; the ratio after/before is printed. Bytecode is compiled and written first (as an
installed pubcli has it). Also reports whether the network modules are imported by
``--help`` (they must not be) and which command modules ``--version`` imports (none).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _env(pythonpath: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = pythonpath or str(SRC)
    return env


def once(args: list[str], pythonpath: str | None) -> tuple[float, float, int]:
    """(wall ms, CPU ms, exit status) of one run; CPU time (user + system of the child)
    is what a busy machine disturbs least."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "pubcli", *args], capture_output=True,
                       env=_env(pythonpath), check=False)
    wall = (time.perf_counter() - t) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
    return wall, cpu, p.returncode


def modules_loaded(args: list[str], names: tuple[str, ...], pythonpath: str | None = None
                   ) -> list[str]:
    """Which of ``names`` (or modules under them, for a name ending in '.') a fresh
    ``pubcli ARGS`` imported."""
    code = (f"import sys; sys.argv=['pubcli', *{args!r}]\n"
            "from pubcli.cli import app\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\n"
            f"names = {names!r}\n"
            "print('LOADED', *sorted(m for m in sys.modules if m in names or any("
            "n.endswith('.') and m.startswith(n) for n in names)), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(pythonpath), check=False)
    line = [ln for ln in out.stderr.splitlines() if ln.startswith("LOADED")]
    return line[-1].split()[1:] if line else ["(could not tell)"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--before", metavar="SRC", help="source folder of the code to compare with")
    ap.add_argument("--library", type=Path, help="the library fmt --check and list read "
                                                 "(default: a one-entry file)")
    ns = ap.parse_args()
    for src in filter(None, (str(SRC), ns.before)):
        compileall.compile_dir(src, quiet=1)
    tmp = Path(tempfile.mkdtemp(prefix="pubcli-bench-startup-"))
    os.environ["PUBCLI_CACHE_DIR"] = str(tmp / "cache")
    lib = ns.library or tmp / "library.bib"
    if ns.library is None:
        lib.write_text("@misc{a,\n  title = {T},\n}\n", encoding="utf-8")
    commands = [["--help"], ["--version"], ["sync", "--help"],
                ["-l", str(lib), "fmt", "--check"], ["-l", str(lib), "list"]]
    for args in commands:
        once(args, None)  # warm the OS caches and the parse cache
        before_works = bool(ns.before) and once(args, ns.before)[2] != 2  # 2: no such command
        after, before = [], []
        for _ in range(ns.runs):
            after.append(once(args, None))
            if before_works:
                before.append(once(args, ns.before))
        shown = " ".join("LIB" if a == str(lib) else a for a in args)
        for i, what in ((0, "wall"), (1, "cpu")):
            a = statistics.median(x[i] for x in after)
            line = f"pubcli {shown}: median {what} {a:.1f} ms"
            if before:
                b = statistics.median(x[i] for x in before)
                line += f" (before: {b:.1f} ms, after/before {a / b:.2f})"
            print(f"{line} over {ns.runs} runs", flush=True)
    loaded = modules_loaded(["--help"], ("urllib.request", "http.client", "ssl", "pubcli.online"))
    print("network modules imported by --help:", ", ".join(loaded) or "none")
    cmds = tuple(f"pubcli.cli.{p.stem}" for p in sorted((SRC / "pubcli" / "cli").glob("*_cmd.py")))
    for args in (["--version"], ["-l", str(lib), "fmt", "--check"]):
        loaded = modules_loaded(args, cmds)
        shown = " ".join("LIB" if a == str(lib) else a for a in args)
        print(f"command modules imported by {shown}:", ", ".join(loaded) or "none")


if __name__ == "__main__":
    main()
