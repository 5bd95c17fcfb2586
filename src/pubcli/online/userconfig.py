"""The user's own settings for going online (never the committed pubcli.toml).

``$XDG_CONFIG_HOME/pubcli/local/config.toml`` (default ``~/.config/pubcli/local/config.toml``)::

    mailto = "you@example.org"        # contact address sent in the User-Agent
    openalex-api-key = "..."          # optional OpenAlex API key

The environment wins over the file: ``$PUBCLI_MAILTO`` and
``$PUBCLI_OPENALEX_API_KEY`` (or ``$OPENALEX_API_KEY``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

KNOWN = ("mailto", "openalex-api-key")


@dataclass(frozen=True)
class UserConfig:
    mailto: str | None = None
    openalex_api_key: str | None = None
    path: Path | None = None


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pubcli" / "config.toml"


def load() -> UserConfig:
    """The settings from the environment and the user's config file."""
    path = config_path()
    table: dict = {}
    if path.is_file():
        import tomllib

        try:
            table = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"invalid TOML: {exc}", path=path) from None
        except OSError as exc:
            raise ConfigError(f"cannot read: {exc.strerror or exc}", path=path) from None
        for k, v in table.items():
            if k not in KNOWN:
                raise ConfigError(f"unknown setting '{k}' (known: {', '.join(KNOWN)})",
                                  path=path, field=k)
            if not isinstance(v, str):
                raise ConfigError("must be a string", path=path, field=k)
    mailto = os.environ.get("PUBCLI_MAILTO") or table.get("mailto") or None
    if mailto is not None and ("@" not in mailto or any(c.isspace() for c in mailto.strip())):
        raise ConfigError(f"mailto {mailto!r} is not an e-mail address",
                          path=None if os.environ.get("PUBCLI_MAILTO") else path,
                          field="mailto")
    key = (os.environ.get("PUBCLI_OPENALEX_API_KEY") or os.environ.get("OPENALEX_API_KEY")
           or table.get("openalex-api-key") or None)
    return UserConfig(mailto=mailto.strip() if mailto else None, openalex_api_key=key,
                      path=path if path.is_file() else None)
