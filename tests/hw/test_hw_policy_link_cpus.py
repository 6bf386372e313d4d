"""A policy's CPUs are read from its own folder only, never through a link (rev21's finding (b)).

The kernel makes a policy as the directory ``cpufreq/policyN`` and its attributes as files;
the links go the other way (``cpuN/cpufreq`` -> ``../cpufreq/policyN``).  ``read_policy`` read
``related_cpus`` before its own-folder check, so a ``policy4`` made as a link to ``policy0`` (or
whose ``related_cpus`` is a link to ``policy0``'s) was shown with policy0's CPUs: ``doctor``
listed CPUs 0-3 under both policies, each counted twice.  Through the installed script.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil

CPUFREQ = "sys/devices/system/cpu/cpufreq"
P4 = f"{CPUFREQ}/policy4"


def _doctor_cpus(tmp: Path) -> dict[str, list[int]]:
    done = procutil.run_cli("doctor", "--json", "--sysfs-root", str(tmp / "root"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return {p["name"]: p["cpus"] for p in json.loads(done.stdout)["cpufreq"]}


def _counted_once(cpus: dict[str, list[int]]) -> None:
    listed = [c for each in cpus.values() for c in each]
    assert len(listed) == len(set(listed)), f"a CPU listed under two policies: {cpus}"


def test_a_policy_folder_linked_to_another_shows_none_of_its_cpus(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    shutil.rmtree(t.root / P4)
    (t.root / P4).symlink_to("policy0")
    cpus = _doctor_cpus(tmp_path)
    # main: {"policy0": [0, 1, 2, 3], "policy4": [0, 1, 2, 3]}
    assert cpus == {"policy0": [0, 1, 2, 3], "policy4": []}, cpus
    _counted_once(cpus)


def test_a_related_cpus_file_linked_to_another_policys_is_not_read(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    (t.root / P4 / "related_cpus").unlink()
    (t.root / P4 / "related_cpus").symlink_to("../policy0/related_cpus")
    cpus = _doctor_cpus(tmp_path)
    assert cpus["policy4"] == [], cpus  # main: [0, 1, 2, 3]
    _counted_once(cpus)
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    line = next(s for s in done.stdout.splitlines() if s.strip().startswith("policy4"))
    assert "cpus ?" in line, line  # still governable: only the list is unknown


def test_the_cpus_of_an_untouched_board_are_as_listed(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root", jetpack=6)
    assert _doctor_cpus(tmp_path) == {"policy0": [0, 1, 2, 3], "policy4": [4, 5]}


def test_a_related_cpus_naming_another_policys_cpus_is_not_shown(tmp_path: Path) -> None:
    # The kernel links cpuN/cpufreq to CPU N's policy: policy4 listing CPUs 0-3, which link to
    # policy0, is not policy4's list (a copied folder, a file written over).
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    (t.root / P4 / "related_cpus").write_text("0 1 2 3\n")
    cpus = _doctor_cpus(tmp_path)
    assert cpus == {"policy0": [0, 1, 2, 3], "policy4": []}, cpus  # main: policy4 [0, 1, 2, 3]


@pytest.mark.parametrize("loop", ["itself", "through-another"])
def test_a_policy_folder_that_is_a_link_loop_costs_only_that_policy(tmp_path: Path, loop: str) -> None:
    # A link loop resolves to its own path, so the own-folder rule took it as the directory; its
    # files answered ELOOP and the error left the whole cpu domain unbound (main: "domain cpu
    # MISSING: .../policy4/cpuinfo_min_freq: read failed (ELOOP ...)"), where a link to another
    # folder costs only that policy.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    shutil.rmtree(t.root / P4)
    if loop == "itself":
        (t.root / P4).symlink_to("policy4")
    else:
        (t.root / P4).symlink_to("policy9")
        (t.root / CPUFREQ / "policy9").symlink_to("policy4")
    done = procutil.run_cli("doctor", "--json", "--sysfs-root", str(tmp_path / "root"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    doc = json.loads(done.stdout)
    policy4 = next(p for p in doc["cpufreq"] if p["name"] == "policy4")
    assert "not its own folder" in policy4["not_own"], policy4
    text = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root")).stdout
    line = next(s for s in text.splitlines() if s.strip().startswith("domain cpu"))
    assert "MISSING" not in line and "policy0" in line, line
