"""BibTeX text <-> pubcli records, by BibTeX's own rules.

:mod:`.read` reads a document as the ``bibtex`` program does and keeps, for every
entry, where its text sits and how each field was written; :mod:`.write` writes new
entries and rewrites one entry's text without touching the others. Together they
let the store write an unchanged file back byte for byte.
"""

from .read import (KEYLESS, MONTH_MACROS, UNREAD, Failed, Parsed, Source, evaluate, parse,
                   read_plain, written_fields)
from .write import (CITABLE_KEY_RE, DEFAULT_FORM, FIELD_NAME_RE, KEY_RE, READ_KEY_RE, Form,
                    braces_balanced, check_key, check_value, detect_indent, format_entry,
                    format_value, format_written, in_form, normalise, patch_entry,
                    rewrite_written, writable)

__all__ = ["KEYLESS", "UNREAD", "MONTH_MACROS", "Failed", "Parsed", "Source", "evaluate", "parse",
           "read_plain", "written_fields", "CITABLE_KEY_RE", "FIELD_NAME_RE", "KEY_RE", "READ_KEY_RE",
           "braces_balanced", "check_key", "check_value", "detect_indent", "format_entry",
           "format_value", "patch_entry", "writable", "DEFAULT_FORM", "Form", "format_written",
           "in_form", "normalise", "rewrite_written"]
