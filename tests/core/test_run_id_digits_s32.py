"""A run folder names its policy in ASCII digits: ``fixed:١٠٠٠`` (read as 1000 MHz) made a folder
``fixed-١٠٠٠`` that a shell user cannot type (session 32h)."""

from __future__ import annotations

from pathlib import Path

from thermogov.runs import new_run_id


def test_a_policy_s_digits_in_another_script_name_the_folder_in_ascii(tmp_path: Path) -> None:
    run_id = new_run_id(tmp_path, "sim", "rpi5", "fixed:١٠٠٠", 1)
    assert run_id.endswith("-sim-rpi5-fixed-1000-s1")
    assert new_run_id(tmp_path, "sim", "rpi5", "fixed:१२००", 2).endswith("-fixed-1200-s2")  # Devanagari


def test_an_ascii_policy_names_the_folder_as_before(tmp_path: Path) -> None:
    assert new_run_id(tmp_path, "hw", "orin", "stepped+limit_margin_c=0.5", 3).endswith(
        "-hw-orin-stepped+limit_margin_c=0.5-s3"
    )
    assert new_run_id(tmp_path, "sim", "orin", "fixed:cpu=1200/gpu", 1).endswith("-fixed-cpu=1200-gpu-s1")
