"""Text a reader sees: LaTeX to Unicode, the one fold, suggestions, display rows."""
