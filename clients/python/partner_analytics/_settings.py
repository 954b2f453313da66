"""Where a Client's settings come from: its arguments, else the environment; the base URL checked."""

from __future__ import annotations

import os
import urllib.parse
from typing import Dict, Optional

__all__ = ["DEFAULT_TIMEOUT", "ENVIRONMENT", "checked_base_url", "from_environment"]

#: Seconds one request may take by default (see Client's ``timeout``).
DEFAULT_TIMEOUT = 60.0
#: The environment variables read when an argument is left out (the export command reads the same).
ENVIRONMENT = {"base_url": "PA_BASE_URL", "api_client_key": "PA_API_CLIENT_KEY", "api_secret_key": "PA_API_SECRET_KEY"}

_URL_RULE = "must be an absolute http:// or https:// URL, e.g. https://api.example.com"


def checked_base_url(value: str) -> str:
    """The base URL without trailing slashes; ValueError naming the rule it breaks (never echoing a password)."""
    parts = urllib.parse.urlsplit(value)
    shown = value
    if parts.password is not None or parts.username is not None:
        shown = urllib.parse.urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[-1]))
    if parts.scheme not in ("http", "https") or not parts.netloc or not parts.hostname:
        raise ValueError(f"base_url {_URL_RULE} (got {shown!r})")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"base_url must not contain a user name or password (got {shown!r})")
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        raise ValueError(f"base_url must not have a query (?…) or fragment (#…) (got {shown!r})")
    try:
        parts.port
    except ValueError:
        raise ValueError(f"base_url has a port that is not a number from 0 to 65535 (got {shown!r})") from None
    return value.rstrip("/")


def from_environment(arguments: Dict[str, Optional[str]]) -> Dict[str, str]:
    values = {}
    problems = []
    for name, given in arguments.items():
        variable = ENVIRONMENT[name]
        value = given if given is not None else (os.environ.get(variable) or None)
        if value is None:
            problems.append(f"{name} is not given and {variable} is not set")
        else:
            values[name] = value
    if problems:
        raise ValueError("; ".join(problems) + " (set PA_BASE_URL, PA_API_CLIENT_KEY and PA_API_SECRET_KEY, or pass them)")
    return values
