"""TOML reading on every Python the boards ship.

``tomllib`` joined the standard library in 3.11; JetPack 6 (Ubuntu 22.04) has 3.10, where the
same parser is the ``tomli`` package (a declared dependency there).  Everything that reads TOML
imports ``loads`` and ``TOMLDecodeError`` from here so no module carries the fallback itself.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:  # pragma: no cover - exercised by the 3.10 CI leg
    from tomli import TOMLDecodeError, loads

__all__ = ["TOMLDecodeError", "loads"]
