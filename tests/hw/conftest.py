"""Fixtures shared by the hardware-world tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import faultshim


@pytest.fixture(scope="module")
def shim() -> Path:
    """The compiled LD_PRELOAD fault injector; the test is skipped where no C compiler is."""
    built = faultshim.build()
    if built is None:
        pytest.skip("no C compiler to build tests/hw/faultshim.c")
    return built
