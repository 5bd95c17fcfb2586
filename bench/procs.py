"""What the benchmarks share about timing whole processes: one child's wall and CPU
time, the source tree a ``--baseline`` names, the environment children run in."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path


def timed(args: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children, e.g. pandoc)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def sides(this: Path, baseline: Path | None) -> dict[str, Path]:
    """The source trees to measure: "B" this one, "A" the ``--baseline`` tree (a
    checkout or its ``src``), first, when given."""
    if baseline is None:
        return {"B": this}
    base = baseline / "src" if (baseline / "src" / "pubcli").is_dir() else baseline
    if not (base / "pubcli").is_dir():
        raise SystemExit(f"--baseline {baseline}: no pubcli package there")
    return {"A": base, "B": this}


def child_env() -> dict[str, str]:
    """This environment for a measured child: bytecode written (as installed), the cache
    on, no library named from outside."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONDONTWRITEBYTECODE", "PUBCLI_NO_CACHE", "PUBCLI_LIBRARY")}
