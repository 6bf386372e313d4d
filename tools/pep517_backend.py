"""Build backend: setuptools, behind a Python version gate with a message a board user can act on.

pip builds a source tree before it can read the project's ``requires-python``; on Python 3.8
(JetPack 5, Ubuntu 20.04) that build used to fail first, inside setuptools' own version check
("3.8.18 not in '>=3.10' (required by setuptools ...)"), which names setuptools, not thermogov,
and no way out.  This gate says what is needed and where the tested way to get it is described.
The build requirements carry the same marker, so on an old Python nothing is downloaded first.
"""

from __future__ import annotations

import sys

MINIMUM = (3, 10)

if sys.version_info < MINIMUM:
    raise SystemExit(
        f"thermogov needs Python {MINIMUM[0]}.{MINIMUM[1]} or newer; this is Python "
        f"{sys.version_info[0]}.{sys.version_info[1]} ({sys.executable}). On JetPack 5 (Ubuntu 20.04, "
        "Python 3.8) install a newer interpreter under /opt and a venv from it: see docs/hardware.md, "
        "'Installing on a board', JetPack 5."
    )

from setuptools import build_meta as _orig  # noqa: E402  (only once the gate has passed)
from setuptools.build_meta import *  # noqa: E402, F403

__all__ = _orig.__all__
