"""The real logs in ``$THERMOGOV_REAL_DATA`` (tests/realdata.py), which the repo may not copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED_REAL
from tests.realdata import absent


@pytest.fixture(scope="module")
def real() -> Path:
    if not SHARED_REAL.is_dir():
        pytest.skip(absent(SHARED_REAL))
    return SHARED_REAL
