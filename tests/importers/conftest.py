"""The real logs in ``$THERMOGOV_REAL_DATA`` (tests/realdata.py), which the repo may not copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED_REAL


@pytest.fixture(scope="module")
def real() -> Path:
    if not SHARED_REAL.is_dir():
        pytest.skip(f"{SHARED_REAL} absent: licence forbids copying these files into the repo")
    return SHARED_REAL
