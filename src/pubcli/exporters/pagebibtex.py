"""The BibTeX a page visitor copies: the entry as written, less its private fields."""

from __future__ import annotations

from collections.abc import Sequence

from pubcli.schema.model import AREA_FIELD, FEATURED_FIELD, Record

# Left out of the BibTeX a page visitor copies (plus the configured private_fields):
# pubcli's bookkeeping, and the fields only a page uses (al-folio's and BibBase's),
# which nobody wants pasted into a paper. Every url_<label> (BibBase) goes too.
PRIVATE_FIELDS: tuple[str, ...] = (
    AREA_FIELD, FEATURED_FIELD, "file", "pdf", "slides", "code", "video", "poster", "supp",
    "html", "website", "blog", "award", "abstract", "abbr", "selected", "preview",
    "bibtex_show", "altmetric", "dimensions", "google_scholar_id", "inspirehep_id")
PAGE_ONLY_PREFIX = "url_"


def public_bibtex(text: str, rec: Record, private: Sequence[str]) -> str:
    """The entry's BibTeX as written, less its private fields (only their text goes:
    the bibtex package's own edit of one entry, as a removal of those fields)."""
    drop = {f for f in rec.fields if f in private or f.startswith(PAGE_ONLY_PREFIX)}
    if not drop:
        return text
    from .. import bibtex
    from ..errors import PubcliError

    kept = rec.copy(fields={k: v for k, v in rec.fields.items() if k not in drop})
    try:
        if rec.source is not None:  # patch_entry checks that text is the entry as read
            return bibtex.patch_entry(text, rec.source, rec, kept, {})
        return bibtex.format_entry(kept, indent=bibtex.detect_indent(text),
                                   newline="\r\n" if "\r\n" in text else "\n")
    except PubcliError:
        return ""  # never show a private field: no BibTeX rather than all of it
