"""Citation styles shipped with pubcli (CSL 1.0 files from the CSL project's style
repository, CC BY-SA 3.0; authors and sources in README.md beside this file).

Kept import-light: the CLI builds its ``--style`` choices from :class:`CitationStyle`
at start-up; formatting lives in :mod:`pubcli.exporters.csl`.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

STYLE_DIR = Path(__file__).resolve().parent

# --style NAME -> the shipped CSL file
STYLES: dict[str, str] = {
    "apa": "apa.csl",
    "ieee": "ieee.csl",
    "acm": "association-for-computing-machinery.csl",
    "chicago": "chicago-author-date.csl",
    "mla": "modern-language-association.csl",
}

CitationStyle = Enum("CitationStyle", {name: name for name in STYLES}, type=str)  # type: ignore[misc]
CitationStyle.__doc__ = "The shipped citation styles, by short name."

__all__ = ["STYLE_DIR", "STYLES", "CitationStyle"]
