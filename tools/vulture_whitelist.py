"""Names vulture cannot see used (``vulture src/pubcli tools/vulture_whitelist.py``, run by
the README's test command). Each is used by a framework, a template or a reader of the API;
anything else vulture reports is dead code to delete, not to list here."""

# ruff: noqa: B018, F821
# module __getattr__: the lazy public names of pubcli and pubcli.render
__getattr__
# click calls these: the command order in --help, the root callback, the help classes
_.list_commands
_root
formatter_class
_.context_class
# enum members typer offers as choices (pubcli completion bash|zsh|fish)
bash
zsh
fish
# what the page templates read of an entry and the page (Jinja attributes)
award
authors_shown
authors_more
abstract
tab_label
generator
# Jinja's environment option; a package's own docstring
_.bytecode_cache
_.__doc__
# fields of public records: a biblatex date range, an area resolution, an entry's link
end_year
end_month
end_day
open_end
open_start
is_new
local
# hooks the tests read: the parse-cache reader, what a warm matcher compared, a reader API
_cache_read
_.rows_cached  # whether the display rows came from the cache
_._pairs_compared
read_source
