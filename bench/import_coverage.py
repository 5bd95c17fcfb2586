"""How much of a researcher's own library ``pubcli import`` takes: entries imported
over entries BibTeX reads, and keys kept as written, per export file.

BibTeX is the judge: a one-line style (``cite$ write$``) lists every entry the real
``bibtex`` program reads from the file (``\\citation{*}``). pubcli imports the file
into an empty library (a whole process, ``python -m pubcli import``), and the result is
read back with pubcli's own loader.

    python bench/import_coverage.py                      # this tree
    python bench/import_coverage.py --src /work/main/src # another tree, for "before"
    python bench/import_coverage.py tests/data/exports/*.bib
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_FILES = sorted((HERE.parent / "tests" / "data" / "exports").glob("*.bib"))
KEYS_BST = "ENTRY { } { } { }\nREAD\nFUNCTION {dump} { cite$ write$ newline$ }\n" \
           "ITERATE {dump}\n"


def bibtex_keys(bib: Path, work: Path) -> list[str]:
    """The keys of the entries BibTeX reads from ``bib`` (in file order)."""
    shutil.copy(bib, work / "in.bib")
    (work / "keys.bst").write_text(KEYS_BST)
    (work / "t.aux").write_text("\\citation{*}\n\\bibdata{in}\n\\bibstyle{keys}\n")
    env = {**os.environ, "BIBINPUTS": ".:", "BSTINPUTS": ".:"}
    subprocess.run(["bibtex", "-terse", "t"], cwd=work, env=env, capture_output=True,
                   check=False)
    return [ln for ln in (work / "t.bbl").read_text(encoding="utf-8",
                                                    errors="replace").splitlines() if ln]


def pubcli_import(bib: Path, work: Path, src: Path) -> tuple[list[str], int]:
    """The keys in an empty library after ``pubcli import bib``, and the exit status."""
    lib = work / "library.bib"
    lib.write_text("")
    env = {**os.environ, "PYTHONPATH": str(src)}
    r = subprocess.run([sys.executable, "-m", "pubcli", "import", str(bib), "-l", str(lib)],
                       cwd=work, env=env, capture_output=True, text=True, check=False)
    code = (f"import sys; sys.path.insert(0, {str(src)!r}); from pubcli import store; "
            f"print('\\n'.join(r.key for r in store.load({str(lib)!r}).records))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return [k for k in out.splitlines() if k], r.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    ap.add_argument("--src", type=Path, default=HERE.parent / "src",
                    help="the src/ of the pubcli tree to measure")
    args = ap.parse_args()
    total_read = total_imported = total_kept = 0
    print(f"{'file':<20} {'bibtex reads':>12} {'imported':>9} {'keys kept':>10}")
    for bib in args.files:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            read = bibtex_keys(bib.resolve(), work)
            imported, _ = pubcli_import(bib.resolve(), work, args.src.resolve())
        kept = len(set(read) & set(imported))
        total_read += len(read)
        total_imported += len(imported)
        total_kept += kept
        print(f"{bib.name:<20} {len(read):>12} {len(imported):>9} {kept:>10}")
    share = 100 * total_imported / total_read if total_read else 0.0
    print(f"{'total':<20} {total_read:>12} {total_imported:>9} {total_kept:>10}  "
          f"({share:.0f}% imported, {100 * total_kept / max(total_read, 1):.0f}% keys kept)")


if __name__ == "__main__":
    main()
