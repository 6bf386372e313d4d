"""``thermogov import``: every format becomes a run folder that loads and plots like a
simulated run.  Inputs are the permissive excerpts in tests/data/logs and synthetic logs
written here; the real no-licence logs are read from $THERMOGOV_REAL_DATA when present."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.cliutil import run_cli
from tests.realdata import REAL_DATA, absent
from thermogov.runs import LEDGER_FILE, load_summary
from thermogov.trace import TraceSchema, load_samples, load_trace

DATA = Path(__file__).resolve().parents[1] / "data" / "logs"
REAL = REAL_DATA

RPI_CSV = "time,usage,temperature,frequency\n1,2.0,45,600\n2,3.5,45,600\nthis line is garbage\n3,99.0,48,1500\n4,,50,1500\n5,98.0,51,1500\n"
STRESSBERRY = (
    "# This file was created by stressberry v0.3.1 on 2020-06-19 12:55:06\n"
    "name: test rig\n"
    "time: [0.0, 2.0, 4.0, 6.0, oops, 10.0]\n"
    "temperature: [40.0, 40.5, 45.0, 46.0, 46.5, 47.0]\n"
    "cpu frequency: [600.0, 600.0, 1500.0, 1500.0, 1500.0, 1500.0]\n"
    "ambient: []\n"
)
TEGRASTATS = (
    "RAM 1800/3964MB (lfb 1x4MB) SWAP 0/1982MB (cached 0MB) IRAM 0/252kB(lfb 252kB) CPU [5%@1479,3%@1479,2%@1479,4%@1479] "
    "EMC_FREQ 3%@1600 GR3D_FREQ 99%@921 APE 25 PLL@27.5C CPU@30C PMIC@100C GPU@29C AO@34.5C thermal@29.25C "
    "POM_5V_IN 5180/5100 POM_5V_GPU 3050/3000 POM_5V_CPU 190/200\n"
    "RAM 1800/3964MB (lfb 1x4MB) SWAP 0/1982MB (cached 0MB) IRAM 0/252kB(lfb 252kB) CPU [6%@1479,3%@1479,2%@1479,4%@1479] "
    "EMC_FREQ 3%@1600 GR3D_FREQ 98%@921 APE 25 PLL@27.5C CPU@30.5C PMIC@100C GPU@29.5C AO@34.5C thermal@29.5C "
    "POM_5V_IN 5200/5120 POM_5V_GPU 3060/3010 POM_5V_CPU 190/200\n"
)


def import_file(path: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[Path, str]:
    code, stdout, err = run_cli(["import", str(path), "--out", str(out), *extra], capsys)
    assert code == 0, err
    run_dir = Path(stdout.strip().splitlines()[-1].split(None, 2)[-1])
    assert run_dir.parent == out
    return run_dir, stdout


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_rpi_csv_import_counts_malformed_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir, stdout = import_file(write(tmp_path, "temp_bench.csv", RPI_CSV), tmp_path / "runs", capsys)
    assert "skipped     1 malformed line(s)" in stdout or "1 malformed line(s)" in stdout
    s = load_summary(run_dir)
    assert (s["backend"], s["format"], s["skipped_lines"], s["samples"]) == ("import", "rpi-csv", 1, 5)
    assert s["sustained_throughput_ips"] is None and s["inferences_total"] is None and s["policy"] is None
    trace = load_trace(run_dir)
    assert trace["t_s"] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert trace["cpu_c"] == [45.0, 45.0, 48.0, 50.0, 51.0]
    assert trace["fused_c"] == trace["cpu_c"]  # one sensor fuses to itself
    assert trace["cpu_freq_hz"] == [600_000_000, 600_000_000, 1_500_000_000, 1_500_000_000, 1_500_000_000]
    assert trace["cpu_load"] == [0.02, 0.035, 0.99, None, 0.98]
    # what the log cannot say stays empty
    assert set(trace["cpu_cap_hz"]) == {None} and set(trace["policy_state"]) == {None}
    assert set(trace["inferences_total"]) == {None} and set(trace["power_w"]) == {None}
    schema = TraceSchema.from_columns(list(trace))
    assert (schema.sensors, schema.domains) == (("cpu",), ("cpu",))
    samples = load_samples(run_dir)
    assert samples["sensor"] == ["cpu"] * 5 and samples["value_c"] == trace["cpu_c"]
    with (tmp_path / "runs" / LEDGER_FILE).open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["run_id"] for r in rows] == [run_dir.name]
    assert rows[0]["backend"] == "import" and rows[0]["sustained_throughput_ips"] == ""


def test_stressberry_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir, stdout = import_file(write(tmp_path, "rig.dat", STRESSBERRY), tmp_path / "runs", capsys)
    assert "1 malformed line(s)" in stdout
    s = load_summary(run_dir)
    assert (s["format"], s["skipped_lines"]) == ("stressberry", 1)
    trace = load_trace(run_dir)
    assert trace["t_s"] == [0.0, 2.0, 4.0, 6.0, 10.0]
    assert trace["cpu_freq_hz"][-1] == 1_500_000_000


def test_tegrastats_import_fuses_with_the_board_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = import_file(write(tmp_path, "tegrastats.txt", TEGRASTATS), tmp_path / "runs", capsys)
    s = load_summary(run_dir)
    assert s["board"] == "jetson-nano"  # the log's own hint names a built-in profile
    trace = load_trace(run_dir)
    w = s["fusion_weights"]
    assert set(w) == {"cpu", "gpu"}
    expected = (w["cpu"] * 30.0 + w["gpu"] * 29.0) / (w["cpu"] + w["gpu"])
    assert trace["fused_c"][0] == pytest.approx(expected, abs=1e-3)
    assert trace["sensors_used"][0] == "cpu+gpu"
    assert trace["power_w"] == [5.18, 5.2]
    assert trace["pom_5v_gpu_rail_w"] == [3.05, 3.06]
    assert trace["gpu_freq_hz"][0] == 921_000_000 and trace["gpu_load"][0] == 0.99
    assert s["energy_j"] == pytest.approx(5.18 * 1.0)
    assert s["extra_columns"]["rails"] == ["pom_5v_in_rail_w", "pom_5v_gpu_rail_w", "pom_5v_cpu_rail_w"]


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*_excerpt.*")))
def test_permissive_excerpts_import_and_load(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = import_file(DATA / name, tmp_path / "runs", capsys)
    trace = load_trace(run_dir)
    s = load_summary(run_dir)
    assert len(trace["t_s"]) == s["samples"] > 0
    assert s["format"] in ("tegrastats", "sbc-bench")
    assert s["duration_s"] == pytest.approx(trace["t_s"][-1] - trace["t_s"][0], abs=1e-3)


def test_explicit_format_and_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "log.txt", RPI_CSV)
    run_dir, _stdout = import_file(path, tmp_path / "runs", capsys, "--format", "rpi-csv", "--board", "rpi4")
    assert load_summary(run_dir)["board"] == "rpi4"
    assert "rpi4" in run_dir.name


def test_the_help_names_every_format_the_parser_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    """The --format help once listed seven of the nine formats (bcmstat and labelled missing)."""
    from thermogov.importers import FORMATS

    code, stdout, _ = run_cli(["import", "--help"], capsys)
    assert code == 0
    shown = " ".join(stdout.split())
    missing = [f for f in FORMATS if f not in shown]
    assert not missing, f"import --help does not name {missing}"
    assert "bcmstat" in FORMATS and "labelled" in FORMATS


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["import", "/nonexistent/log.csv"], "cannot read"),
        (["import", "{bad}"], "not a recognised log"),
        (["import", "{good}", "--format", "xml"], "unknown format"),
        (["import", "{good}", "--board", "nosuchboard"], "unknown board"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "notes.txt", "just some prose\nnothing to import\n")
    good = write(tmp_path, "good.csv", RPI_CSV)
    out = tmp_path / "runs"
    argv = [a.replace("{bad}", str(bad)).replace("{good}", str(good)) for a in args] + ["--out", str(out)]
    code, stdout, err = run_cli(argv, capsys)
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and message in err
    assert not out.exists() or not any(out.iterdir())


def test_imported_run_plots_like_a_simulated_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir, _ = import_file(write(tmp_path, "tegrastats.txt", TEGRASTATS), tmp_path / "runs", capsys)
    code, _stdout, err = run_cli(["plot", str(run_dir)], capsys)
    assert code == 0, err
    png = run_dir / "plot.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from thermogov.plotting.figures import plot_runs

    fig = plot_runs([run_dir])
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert (
        f"import {Path(json.loads((run_dir / 'summary.json').read_text())['source']).name}: fused" in labels
    )


@pytest.mark.parametrize(
    "name",
    ["rpi_4b_stress_cpu4_unitA.csv", "rpi_4b_stressberry_nocase.dat", "tegrastats_nano_trtexec_resnet50.log"],
)
def test_real_logs_import(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not REAL.is_dir():
        pytest.skip(absent(REAL))
    run_dir, _ = import_file(REAL / name, tmp_path / "runs", capsys)
    trace = load_trace(run_dir)
    s = load_summary(run_dir)
    assert len(trace["t_s"]) == s["samples"] and s["skipped_lines"] == 0
    assert s["max_sensor_c"]["cpu"] == max(v for v in trace["cpu_c"] if v is not None)
