"""`thermogov sim` refuses bad input before the run: exit 2, one line naming the fix, no folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, sim_refuses_config, thermogov
from tests.cliutil import run_cli_completed
from tests.hw import fakesys

BOARDS = Path(__file__).resolve().parents[2] / "thermogov" / "boards"


def test_out_below_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = thermogov("sim", "--duration", "5", "--out", str(blocker / "runs"))
    line = one_line_error(p, "--out")
    assert "cannot create folder" in line and "writable folder" in line


def test_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = thermogov("sim", "--duration", "5", "--config", str(_config(tmp_path, out=str(blocker))))
    one_line_error(p, "run.out")


def _sim(capsys: pytest.CaptureFixture[str], script: bool, *args: str) -> subprocess.CompletedProcess[str]:
    """``thermogov sim ARGS`` through the installed script when ``script`` (each parametrized
    refusal runs its first case so: the exit-status contract), else the same ``main`` in-process."""
    return thermogov("sim", *args) if script else run_cli_completed(["sim", *args], capsys)


def _config(tmp: Path, **run: str) -> Path:
    body = "[run]\n" + "".join(f'{k} = "{v}"\n' for k, v in run.items())
    path = tmp / "config.toml"
    path.write_text(body)
    return path


NOT_PROFILES = ["time,temp\n0,40\n", "[board\nname = 1\n", "plain text, no TOML"]


@pytest.mark.parametrize("content", NOT_PROFILES)
def test_board_file_that_is_not_a_profile_is_refused(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "board.csv"
    bad.write_text(content)
    out = tmp_path / "runs"
    p = _sim(capsys, content == NOT_PROFILES[0], "--board", str(bad), "--out", str(out))
    line = one_line_error(p, "--board")
    assert "not a board profile TOML" in line
    assert not out.exists()


def test_board_takes_a_name_or_a_toml_and_board_file_still_works(tmp_path: Path) -> None:
    by_name = thermogov("sim", "--board", "rpi5", "--duration", "5", "--json", "--out", str(tmp_path))
    by_file = thermogov(
        "sim", "--board", str(BOARDS / "rpi5.toml"), "--duration", "5", "--json", "--out", str(tmp_path)
    )
    old = thermogov(
        "sim", "--board-file", str(BOARDS / "rpi5.toml"), "--duration", "5", "--json", "--out", str(tmp_path)
    )
    for p in (by_name, by_file, old):
        assert p.returncode == 0, p.stderr
        assert '"board": "rpi5"' in p.stdout
    assert "--board-file is deprecated; use --board FILE" in old.stderr
    assert "--board-file" not in thermogov("sim", "--help").stdout  # hidden alias


@pytest.mark.parametrize("policy", ["fixed:99999", "fixed:10"])
def test_fixed_cap_outside_the_opp_range_is_refused(
    tmp_path: Path, policy: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    p = _sim(capsys, policy == "fixed:99999", "--board", "rpi5", "--policy", policy, "--out", str(out))
    line = one_line_error(p, "fixed")
    assert "outside the board's OPP range 1500-2400 MHz" in line
    assert not out.exists()


@pytest.mark.parametrize("policy", ["fixed:inf", "fixed:-inf", "fixed:nan", "fixed:nan%"])
def test_a_fixed_cap_that_is_no_number_is_named_so(
    tmp_path: Path, policy: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """NaN and inf are no frequency: "outside the OPP range" sent the user looking for a range
    (session 32)."""
    out = tmp_path / "runs"
    line = one_line_error(
        _sim(capsys, False, "--board", "rpi5", "--policy", policy, "--out", str(out)), policy
    )
    assert "OPP range" not in line and ("no frequency" in line or "from 0% to 100%" in line)
    assert not out.exists()


def test_fixed_cap_inside_the_range_runs(tmp_path: Path) -> None:
    p = thermogov(
        "sim", "--board", "rpi5", "--policy", "fixed:2000", "--duration", "5", "--out", str(tmp_path)
    )
    assert p.returncode == 0, p.stderr


def test_run_refuses_a_fixed_cap_outside_the_range_too(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('[run]\npolicy = "fixed:99999"\n')
    p = thermogov(
        "run",
        "--dry-run",
        "--config",
        str(cfg),
        "--sysfs-root",
        str(tmp_path / "root"),
        "--state-dir",
        str(tmp_path / "state"),
        "--lock-file",
        str(tmp_path / "run.lock"),
        "--out",
        str(tmp_path / "out"),
        "--duration",
        "0.3s",
    )
    assert "outside the board's OPP range" in one_line_error(p, "fixed:99999")
    assert t.snapshot() == before


def test_scenario_of_another_board_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    p = thermogov("sim", "--scenario", "rpi5-steady-25", "--board", "jetson-orin-nano", "--out", str(out))
    line = one_line_error(p, "--board")
    assert "rpi5-steady-25 is written for board rpi5, not jetson-orin-nano" in line
    assert "drop --board" in line and "orin-" in line
    assert not out.exists()


def test_scenario_with_its_own_board_as_a_file_runs(tmp_path: Path) -> None:
    p = thermogov(
        "sim",
        "--scenario",
        "rpi5-steady-25",
        "--board",
        str(BOARDS / "rpi5.toml"),
        "--duration",
        "5",
        "--out",
        str(tmp_path),
    )
    assert p.returncode == 0, p.stderr


def test_scenario_with_a_calibrated_profile_of_its_board_runs(tmp_path: Path) -> None:
    text = (BOARDS / "rpi5.toml").read_text()
    calibrated = tmp_path / "rpi5-calibrated.toml"
    calibrated.write_text(text.replace('name = "rpi5"', 'name = "rpi5-calibrated"', 1))
    assert 'name = "rpi5-calibrated"' in calibrated.read_text()
    p = thermogov(
        "sim",
        "--scenario",
        "rpi5-steady-25",
        "--board",
        str(calibrated),
        "--duration",
        "5",
        "--json",
        "--out",
        str(tmp_path),
    )
    assert p.returncode == 0, p.stderr
    assert '"board": "rpi5-calibrated"' in p.stdout


@pytest.mark.parametrize(
    "out", ["", "   ", "runs\nsecond line", "runs\tx"], ids=["empty", "blank", "newline", "tab"]
)
def test_out_that_is_empty_or_holds_a_control_character_is_refused(tmp_path: Path, out: str) -> None:
    """An unset ``$OUT`` or a pasted newline must not write into the current folder, or print a
    run folder path that spans lines."""
    p = thermogov("sim", "--duration", "5", "--out", out, cwd=tmp_path)
    one_line_error(p, "--out")
    assert list(tmp_path.iterdir()) == []


def test_a_config_out_with_a_newline_is_refused_by_its_key(tmp_path: Path) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text('[run]\nout = "runs\\nx"\n')
    p = thermogov("sim", "--duration", "5", "--config", str(conf), cwd=tmp_path)
    one_line_error(p, "run.out")
    assert [f.name for f in tmp_path.iterdir()] == ["c.toml"]


@pytest.mark.parametrize("duration", ["0.0005", "0.0009s", "0.5ms"])
def test_a_duration_under_the_schedulers_millisecond_is_refused(
    tmp_path: Path, duration: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shorter than one scheduler step the run has no tick and reports 0 s; a sweep's estimate
    divided by it printed "inf s"."""
    p = _sim(capsys, duration == "0.0005", "--duration", duration, "--out", str(tmp_path / "out"))
    assert "shorter than 1 ms" in one_line_error(p, "--duration")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("rate", ["1e-320", "1e-7", "0.0"])
def test_a_trip_rate_too_rare_for_a_quantile_is_refused_by_its_key(
    tmp_path: Path, rate: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """1e-320 readings an hour put the normal quantile's tail under double precision: an
    internal error before the lower bound of 1e-6."""
    sim_refuses_config(
        tmp_path,
        f"[policies.stepped]\ntrip_reads_per_h = {rate}\n",
        "policies.stepped.trip_reads_per_h",
        None if rate == "1e-320" else capsys,
    )


@pytest.mark.parametrize("value", ["nan", "-1.0", "inf"])
def test_the_near_trip_distance_refuses_nan_and_negatives_by_its_key(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Session 12's near-trip rule: a NaN would compare false with every reading and silently
    switch the rule off; a negative distance means nothing."""
    sim_refuses_config(
        tmp_path,
        f"[policies.stepped]\nnear_trip_k = {value}\n",
        "policies.stepped.near_trip_k",
        None if value == "nan" else capsys,
    )


def test_a_board_protection_watching_no_node_is_refused(tmp_path: Path) -> None:
    """``nodes = []`` on a temperature protection was an internal error (max of nothing)."""
    text = (BOARDS / "rpi5.toml").read_text(encoding="utf-8")
    head, tail = text.split("[[protections]]", 1)
    line = next(ln for ln in tail.splitlines() if ln.startswith("nodes = "))
    board = tmp_path / "b.toml"
    board.write_text(head + "[[protections]]" + tail.replace(line, "nodes = []", 1), encoding="utf-8")
    p = thermogov("sim", "--board", str(board), "--duration", "5", "--out", str(tmp_path / "out"))
    one_line_error(p, "protections[0].nodes: empty")
    assert not (tmp_path / "out").exists()
