"""Shared fixtures: the repo root, the real-data folder (THERMOGOV_REAL_DATA), short simulation configs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.realdata import REAL_DATA
from thermogov.config import Config

REPO = Path(__file__).resolve().parents[1]
SHARED_REAL = REAL_DATA


@pytest.fixture
def short_config() -> Config:
    """The default scenario, shortened: enough to see the first trip on the default board."""
    base = Config()
    return dataclasses.replace(base, sim=dataclasses.replace(base.sim, duration_s=240.0))


def with_sim(cfg: Config, **changes: object) -> Config:
    return dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, **changes))


@pytest.fixture(autouse=True)
def _board_lock_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-board locks go to a tmp folder, never /run/thermogov (subprocesses inherit it)."""
    monkeypatch.setenv("THERMOGOV_LOCK_DIR", str(tmp_path_factory.mktemp("locks")))
