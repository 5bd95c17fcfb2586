"""How pubcli reads real bibliographies: ``check`` findings per code, and what
``import`` and ``add --from`` (both as dry runs, into an empty library) refuse.

The corpus is fetched outside the repository (Beebe's bibliographies are public
domain, the rest LPPL)::

    mkdir -p /tmp/texlive && cd /tmp/texlive
    apt-get download texlive-bibtex-extra texlive-base texlive-latex-extra texlive-publishers
    for f in *.deb; do dpkg-deb -x "$f" root; done

Then, from a checkout (``--src`` runs another checkout's ``src`` instead, for a
before/after pair)::

    python bench/real_rules.py /tmp/texlive/root
    python bench/real_rules.py /tmp/texlive/root --src /path/to/old/checkout/src

``--samples CODE`` prints every finding of that code (file:line: message), to read them.
"""

from __future__ import annotations

import argparse
import collections
import io
import re
import sys
import tempfile
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", type=Path, help="folders searched for *.bib")
    ap.add_argument("--src", type=Path, help="import pubcli from this src folder")
    ap.add_argument("--samples", metavar="CODE", help="print every finding of this code")
    ap.add_argument("--max-size", type=int, default=400_000,
                    help="import only files up to this many bytes (import matches every "
                         "pair; the largest files take long) [%(default)s]")
    args = ap.parse_args()
    if args.src:
        sys.path.insert(0, str(args.src.resolve()))
    from pubcli.usecases import checks, adding as entries, importing as importers, triage
    from pubcli.local import config
    from pubcli import store
    from pubcli.errors import PubcliError
    from pubcli.schema.types import KNOWN_TYPES

    files = sorted({p for root in args.roots for p in root.rglob("*.bib")})
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "library.bib"
        empty.write_text("")
        cfg = config.load_config(empty)
        codes: collections.Counter[str] = collections.Counter()
        outcomes: collections.Counter[str] = collections.Counter()
        refusals: collections.Counter[str] = collections.Counter()
        add_from: collections.Counter[str] = collections.Counter()
        unreadable = entries_seen = 0
        for path in files:
            try:
                lib = store.load(path, use_cache=False)
            except PubcliError:
                unreadable += 1
                continue
            entries_seen += len(lib.records)
            for f in checks.check(lib):
                codes[f.code] += 1
                if f.code == args.samples:
                    print(f"{path}:{f.line}: {f.message}")
            if path.stat().st_size > args.max_size:
                continue
            text = importers.read_input(str(path), io.StringIO())
            try:
                plan = importers.plan_import(text, [], cfg, source=str(path), fmt="bib",
                                             force=True)
            except PubcliError:
                outcomes["nothing to import"] += 1
                continue
            for o in plan.outcomes:
                outcomes[o.status] += 1
                if o.status == triage.INVALID:
                    if o.record.type in KNOWN_TYPES:  # not bib2gls glossaries' @entry...
                        outcomes["invalid, of a BibTeX/biblatex type"] += 1
                    why = re.sub(r"'[^']*'", "'…'", re.sub(r"^entry '[^']*': ", "", o.problem))
                    refusals[why] += 1
            try:
                entries.plan_add_bibtex(text, [], cfg, source=str(path), force=True)
                add_from["accepted"] += 1
            except PubcliError:
                add_from["refused"] += 1
    print(f"files {len(files)}, unreadable {unreadable}, entries {entries_seen}")
    print("check findings:", dict(codes.most_common()), f"total {sum(codes.values())}")
    print(f"import --dry-run (files up to {args.max_size} bytes):", dict(outcomes))
    print("add --from --dry-run --force, files:", dict(add_from))
    print("import refusals, most common:")
    for why, n in refusals.most_common(15):
        print(f"  {n:5}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
