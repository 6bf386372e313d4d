"""Nothing in the repository points outside it: a fresh clone has no ``shared`` folder beside it.

Docs, comments and notebooks once cited the team's private notes and data folder; on a clone
those links are dead.  Sources are cited by their public address instead, and real logs are
found through ``THERMOGOV_REAL_DATA`` (tests/realdata.py), so no tracked file needs the path.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# What a dead outside link looks like: the sibling folder, its two subfolders, an absolute path
# of the machine the repository was written on, or the team's notes that no clone has.
FORBIDDEN = (
    "../shared",
    "shared/reference",
    "shared/data",
    "/work/",
    "DESIGN.md",
    "modeling.md",
    "linux-thermal.md",
    "peers.md",
)
THIS = Path(__file__).resolve().relative_to(REPO).as_posix()  # lists the patterns themselves


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout ({exc}): cannot list tracked files")
    return [p for p in out.split("\0") if p and p != THIS]


def outside_refs(root: Path, files: list[str]) -> list[str]:
    """``path:line: pattern`` for every forbidden pattern in the given files (binary files skipped)."""
    hits = []
    for rel in files:
        path = root / rel
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # a binary file, or one deleted in the working tree but not yet in the index
        for n, line in enumerate(text.splitlines(), 1):
            hits += [f"{rel}:{n}: {pat}" for pat in FORBIDDEN if pat in line]
    return hits


def test_no_tracked_file_points_outside_the_repository() -> None:
    files = tracked_files()
    assert len(files) > 50  # the listing worked (an empty list would pass vacuously)
    hits = outside_refs(REPO, files)
    assert hits == [], "links outside the repository (cite the public source instead):\n" + "\n".join(hits)


def test_the_check_finds_each_pattern(tmp_path: Path) -> None:
    for i, pat in enumerate(FORBIDDEN):
        (tmp_path / f"f{i}.md").write_text(f"ok line\nsee {pat}x for details\n", encoding="utf-8")
    (tmp_path / "clean.md").write_text("shared axis; modelling\n", encoding="utf-8")
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe../shared")
    names = [f"f{i}.md" for i in range(len(FORBIDDEN))] + ["clean.md", "blob.bin"]
    assert outside_refs(tmp_path, names) == [f"f{i}.md:2: {pat}" for i, pat in enumerate(FORBIDDEN)]
