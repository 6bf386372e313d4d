"""The real logs in ../shared/data/real, for importer tests that may not copy them into the repo."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED_REAL


@pytest.fixture(scope="module")
def real() -> Path:
    if not SHARED_REAL.is_dir():
        pytest.skip(f"{SHARED_REAL} absent: licence forbids copying these files into the repo")
    return SHARED_REAL
