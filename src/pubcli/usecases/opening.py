"""What ``pubcli open`` opens for an entry: a local file, its PDF, DOI, URL, arXiv page,
code... (the core: it chooses an address; the CLI hands it to the platform's opener).

The addresses come from their one homes: DOI, URL and arXiv links from
:mod:`pubcli.text.view`, resource links (``url_pdf``, ``url_code``, ``pdf``, ``code``...)
from :mod:`pubcli.schema.types.resources`; local files from the ``file`` field as JabRef,
Zotero and Mendeley write it (``Description:path/to/a.pdf:PDF``, several
separated by ``;``), relative to the library's folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from pubcli.errors import NotFound
from pubcli.schema.model import Record

#: --what when none is given: the first of these the entry has
DEFAULT_ORDER = ("file", "pdf", "doi", "url", "arxiv")


class Target(NamedTuple):
    what: str       # "pdf", "doi", "url", "arxiv", "code", "file", "slides"...
    address: str    # a URL, or an absolute path for a local file
    local: bool


def local_files(rec: Record, folder: Path) -> list[Path]:
    """The files the ``file`` field names that exist, relative to ``folder``."""
    out = []
    for part in rec.fields.get("file", "").split(";"):
        bits = part.split(":")
        name = bits[1] if len(bits) == 3 else part  # Description:path:Type, or a path
        name = name.strip().replace("\\:", ":")
        if not name:
            continue
        p = Path(name).expanduser()
        p = p if p.is_absolute() else folder / p
        if p.is_file():
            out.append(p.resolve())
    return out


def targets(rec: Record, folder: Path) -> list[Target]:
    """Everything ``rec`` can open, one per kind, in :data:`DEFAULT_ORDER` first."""
    from pubcli.schema.resources import resources
    from pubcli.text.view import view

    found: dict[str, Target] = {}
    for p in local_files(rec, folder):
        found.setdefault("file", Target("file", str(p), True))
        if p.suffix.lower() == ".pdf":
            found.setdefault("pdf", Target("pdf", str(p), True))
    for res in resources(rec.fields):
        what = res.label.casefold()
        url = res.url
        if "://" not in url:  # a relative link (papers/zero.pdf): open it if it is here
            p = folder / url
            if not p.is_file():
                continue
            found.setdefault(what, Target(what, str(p.resolve()), True))
        else:
            found.setdefault(what, Target(what, url, False))
    for label, url in view(rec).links:
        found.setdefault(label.casefold(), Target(label.casefold(), url, False))
    first = [found[w] for w in DEFAULT_ORDER if w in found]
    return first + [t for w, t in found.items() if w not in DEFAULT_ORDER]


def choose(rec: Record, folder: Path, what: str | None = None, *,
           path: Path | None = None) -> Target:
    """The target to open: ``what`` (pdf, doi, url, code...), else the first there is."""
    there = targets(rec, folder)
    if what is None:
        if there:
            return there[0]
        raise NotFound(f"entry '{rec.key}' has nothing to open (no file, pdf, doi, url or "
                       "eprint field)", path=path, line=rec.line or None)
    want = what.casefold()
    for t in there:
        if t.what == want:
            return t
    has = ", ".join(t.what for t in there)
    raise NotFound(f"entry '{rec.key}' has no {want} to open"
                   + (f" (it has: {has})" if has else " (it has nothing to open)"),
                   path=path, line=rec.line or None)
