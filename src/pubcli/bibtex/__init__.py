"""BibTeX text <-> pubcli records, by BibTeX's own rules.

:mod:`.command` reads one command's text (values, fields, an entry) as the ``bibtex``
program does, and :mod:`.read` a whole document, keeping for every entry where its text
sits and how each field was written; :mod:`.writable` is what pubcli may write, :mod:`.form`
the form it writes entries in (new ones, and ``pubcli fmt``'s), :mod:`.write` the edits
that rewrite one entry's text without touching the others. Together they let the store
write an unchanged file back byte for byte.
"""

from .command import MONTH_MACROS, evaluate, read_plain, type_written, written_fields
from .form import (DEFAULT_FORM, Form, format_entry, format_value, format_written, in_form,
                   normalise, rewrite_written)
from .read import (DUPLICATE, KEYLESS, UNREAD, Failed, Parsed, Source, duplicate_reason,
                   duplicated_fields, parse)
from .writable import (CITABLE_KEY_RE, FIELD_NAME_RE, KEY_RE, READ_KEY_RE, braces_balanced,
                       check_key, check_value, writable)
from .write import detect_indent, patch_entry

__all__ = ["CITABLE_KEY_RE", "DEFAULT_FORM", "FIELD_NAME_RE", "DUPLICATE", "KEYLESS", "KEY_RE",
           "MONTH_MACROS", "READ_KEY_RE", "UNREAD", "Failed", "Form", "Parsed", "Source", "duplicate_reason", "duplicated_fields",
           "braces_balanced", "check_key", "check_value", "detect_indent", "evaluate",
           "format_entry", "format_value", "format_written", "in_form", "normalise", "parse",
           "patch_entry", "read_plain", "rewrite_written", "type_written", "writable",
           "written_fields"]
