"""Write notebooks/*.ipynb from the cell sources below (stored without outputs).

Run ``python tests/notebooks/build_notebooks.py`` after editing a cell; the notebook test
checks that the stored notebooks match this file, so the two cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from thermogov.policies import DEFAULT_POLICY

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

SETUP = """\
%matplotlib inline
from pathlib import Path
import dataclasses
import json

import thermogov
from thermogov.config import Config
from thermogov.runs import load_summary
from thermogov.trace import load_trace, to_pandas
from thermogov.plotting.figures import plot_runs
from thermogov.sim.model.runner import simulate

OUT = Path("runs")  # run folders go next to wherever the notebook runs
OUT.mkdir(exist_ok=True)


def config(**sim_changes):
    base = Config()
    return dataclasses.replace(base, sim=dataclasses.replace(base.sim, **sim_changes))


def record(notebook, **figures):
    \"\"\"Keep what this notebook computed (runs/figures-NN.json): its text is checked against it.\"\"\"
    (OUT / f"figures-{notebook}.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
"""

# --- 01 -------------------------------------------------------------------------------------

NB01 = [
    new_markdown_cell(
        "# 01 · A thermal trace, step by step\n\n"
        "One simulated run of the default board (Jetson Orin Nano in a sealed fanless box) under a "
        f"saturating YOLO stream with the default policy `{DEFAULT_POLICY}`: the spec's 85/70 °C trip and "
        "release, reached by stepping through a ladder of CPU/GPU operating points rather than jumping "
        "between full and lowest clocks (`Config()` picks it; docs/policies.md explains it). Every run, "
        "simulated or imported from a real board, leaves the same run folder: `trace.csv` (one row per "
        "governor tick), `samples.csv` (one row per sensor read), `summary.json` and a ledger row."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "result = simulate(config(duration_s=300.0), None, OUT)\n"
        "run = result.run_dir\n"
        "print('policy:', result.summary['policy'])\n"
        "sorted(p.name for p in run.iterdir())"
    ),
    new_markdown_cell(
        "## The trace\n`load_trace` returns plain columns (no pandas on a board); `to_pandas` is for notebooks. "
        "`fused_c` is the weighted fusion of the fresh sensors, `*_cap_hz` what the policy asked for and "
        "`*_freq_hz` what the board actually ran."
    ),
    new_code_cell("trace = to_pandas(load_trace(run))\ntrace.head()"),
    new_code_cell("trace[['fused_c', 'cpu_c', 'gpu_c', 'battery_c', 'power_w']].describe().round(2)"),
    new_markdown_cell("## The summary\nSustained throughput is measured over the last half of the run."),
    new_code_cell(
        "s = load_summary(run)\n"
        "for key in ('board', 'policy', 'duration_s', 'sustained_throughput_ips', 'max_fused_c', "
        "'time_above_trip_s', 'energy_j', 'inferences_per_joule', 'cap_changes'):\n"
        "    print(f'{key:26} {s[key]}')\n"
        "record('01', policy=s['policy'], board=s['board'])"
    ),
    new_markdown_cell(
        "## The figure\nTemperatures against the run's trip/release band, caps and clocks as steps, rolling "
        "throughput and power, all on one time axis (the same figure `thermogov plot RUN` writes)."
    ),
    new_code_cell("fig = plot_runs([run])\nfig"),
    new_code_cell(
        "events = trace[trace['event'].notna()][['t_s', 'fused_c', 'policy_state', 'event']]\nevents.head(10)"
    ),
]

# --- 02 -------------------------------------------------------------------------------------

NB02_POLICIES = (DEFAULT_POLICY, "hysteresis", "performance", "fixed:1267", "fixed:960")
NB02_UNDER_TRIP_S = 1.0  # "stays under the trip": at most this long above it in the whole run

NB02 = [
    new_markdown_cell(
        "# 02 · Policies on one scenario\n\n"
        "The same board, workload and seed under "
        + ", ".join(f"`{p}`" for p in NB02_POLICIES)
        + f": `{DEFAULT_POLICY}` is the default (it walks a ladder of OPP pairs and holds just under the "
        "trip), `hysteresis` the spec (lowest clocks at 85 °C, full clocks again at 70 °C), `performance` "
        "no software cap (only the board's own protections act), and two fixed CPU caps. Each run is "
        "simulated with `simulate()`; the summaries go into one table."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        f"POLICIES = {list(NB02_POLICIES)!r}\n"
        "runs = {}\n"
        "for policy in POLICIES:\n"
        "    cfg = dataclasses.replace(config(duration_s=600.0), policy=policy)\n"
        "    runs[policy] = simulate(cfg, None, OUT).run_dir\n"
        "list(runs)"
    ),
    new_code_cell(
        "import pandas as pd\n\n"
        "cols = ['sustained_throughput_ips', 'mean_throughput_ips', 'max_fused_c', 'time_above_trip_s', "
        "'energy_j', 'inferences_per_joule', 'cap_changes', 'board_throttle_events']\n"
        "summaries = {p: load_summary(r) for p, r in runs.items()}\n"
        "table = pd.DataFrame({p: {c: s.get(c) for c in cols} for p, s in summaries.items()}).T\n"
        "record('02', policies={p: {'policy': s['policy'], 'sustained_ips': s['sustained_throughput_ips'],\n"
        "                          'time_above_trip_s': s['time_above_trip_s']} for p, s in summaries.items()})\n"
        "table.sort_values('sustained_throughput_ips', ascending=False)"
    ),
    new_markdown_cell(
        f"Of the policies that stay under the 85 °C trip (at most {NB02_UNDER_TRIP_S:g} s above it in the run), "
        f"`{DEFAULT_POLICY}` sustains the most throughput. The policies without a software trip (`performance` "
        "and the fixed caps) sustain as much or slightly more, but only by spending minutes above the trip: "
        "compare `time_above_trip_s` and the clocks in the figure."
    ),
    new_code_cell("fig = plot_runs(list(runs.values()))\nfig"),
]

# --- 03 -------------------------------------------------------------------------------------

NB03 = [
    new_markdown_cell(
        "# 03 · What if: ambient temperature and lid conductance\n\n"
        f"How much sustained throughput does the default policy `{DEFAULT_POLICY}` keep when the room is "
        "hotter, or when the enclosure lid sheds heat better or worse? The lid's conductance to ambient is "
        "scaled with an `ambient_link` event at t = 0 (a factor of 2 is roughly a small fan, 0.5 a lid in "
        "still, trapped air)."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "from thermogov.config import SimEvent\n\n"
        "AMBIENTS = [15.0, 25.0, 35.0]\n"
        "LID = [0.5, 1.0, 2.0]\n"
        "rows = []\n"
        "for amb in AMBIENTS:\n"
        "    for lid in LID:\n"
        "        events = (SimEvent(at_s=0.0, kind='ambient_link', target='lid', value=lid),)\n"
        "        r = simulate(config(duration_s=480.0, ambient_c=amb, events=events), None, OUT)\n"
        "        s = r.summary\n"
        "        rows.append({'ambient_c': amb, 'lid_factor': lid, 'policy': s['policy'],\n"
        "                     'sustained_ips': s['sustained_throughput_ips'],\n"
        "                     'max_fused_c': s['max_fused_c'], 'time_above_trip_s': s['time_above_trip_s']})\n"
        "record('03', rows=rows)\n"
        "POLICY = rows[0]['policy']\n"
        "import pandas as pd\n"
        "df = pd.DataFrame(rows)\n"
        "df.pivot(index='ambient_c', columns='lid_factor', values='sustained_ips').round(1)"
    ),
    new_code_cell(
        "from matplotlib.figure import Figure\n\n"
        "fig = Figure(figsize=(6, 4), layout='constrained')\n"
        "ax = fig.subplots()\n"
        "for lid in LID:\n"
        "    sub = df[df.lid_factor == lid]\n"
        "    ax.plot(sub.ambient_c, sub.sustained_ips, marker='o', label=f'lid conductance x{lid:g}')\n"
        "ax.set_xlabel('ambient (°C)')\n"
        "ax.set_ylabel('sustained throughput (inf/s)')\n"
        "ax.set_title(f'{POLICY} policy, saturating YOLO stream')\n"
        "ax.legend()\n"
        "fig"
    ),
    new_markdown_cell(
        "Sustained throughput never rises when the room warms and never falls when the lid sheds more heat. "
        "Where even the lowest clocks cannot hold the trip (a hot room behind a poor lid), `time_above_trip_s` "
        "in `df` says so.\n\n"
        "Runs are kept short (8 simulated minutes) so the notebook executes in seconds; for a real study use "
        "`duration_s` of an hour or more so the sustained window sits well after the first trip."
    ),
]

# --- 04 -------------------------------------------------------------------------------------

NB04_BOARD = "rpi4"
# The "true" board: the rpi4 profile with these values changed (prior -> truth below).
NB04_TRUTH = {
    "C[board]": 80.0,
    "C[package]": 3.0,
    "G[package-board]": 0.6,
    "G[board-ambient]": 0.25,
    "dyn_scale[cpu]": 1.2,
}
NB04_WITHIN_REL = 0.15  # every changed parameter recovered within this fraction of its truth
NB04_WITHIN_SD = 2.0  # ... and within this many of its own standard deviations
NB04_HOLDOUT_RMSE_C = 0.5  # held-out open-loop RMSE under this (sensor noise 0.2, steps 0.5 °C)
NB04_UNITS = {"C": "J/K", "G": "W/K", "dyn_scale": "×"}


def _unit(name: str) -> str:
    return NB04_UNITS[name.split("[")[0]]


NB04 = [
    new_markdown_cell(
        "# 04 · Calibrate the simulator from a step-test log\n\n"
        "`thermogov calibrate` fits a board profile's RC network and dynamic-power scale to a logged run. To "
        "see what such a fit can and cannot identify, this notebook calibrates a log **with a known truth**: "
        "a Raspberry Pi 4 step test generated by the simulator's own plant and power model "
        "(`thermogov.sim.calibration.steptest.step_log`) from a board whose thermal values differ from the "
        f"`{NB04_BOARD}` profile's. The log is what a logger on that board would have written: 1 Hz, "
        "0.2 °C noise, 0.5 °C steps, 5 minutes idle, 25 minutes at full load, 15 minutes cooling, with the "
        "load changing between two samples. The fit starts from the unchanged profile, as it would for a "
        "real log, and never sees the truth, which differs from the profile in:\n\n"
        "| parameter | truth |\n|---|---|\n"
        + "".join(f"| `{k}` | {v:g} {_unit(k)} |\n" for k, v in NB04_TRUTH.items())
        + "\n(The permissive real excerpts in `tests/data/logs` are a few dozen monitor lines, too short to "
        "identify a thermal network; docs/real-logs.md says where the full public logs are and how to fit "
        "your own.)"
    ),
    new_code_cell(
        SETUP + "\nfrom thermogov.board import load_board, load_board_file\n"
        "from thermogov.importers.runfolder import write_run_folder\n"
        "from thermogov.sim.calibration.calibrate import calibrate, calibrated_profile_text, load_log_data\n"
        "from thermogov.sim.calibration.steptest import step_log, with_thermal\n\n"
        f"BOARD = {NB04_BOARD!r}\n"
        f"TRUTH = {NB04_TRUTH!r}\n"
        "prior = load_board(BOARD)\n"
        "truth = with_thermal(\n"
        "    prior,\n"
        "    caps={k[2:-1]: v for k, v in TRUTH.items() if k.startswith('C[')},\n"
        "    links={tuple(k[2:-1].split('-')): v for k, v in TRUTH.items() if k.startswith('G[') and not k.endswith('-ambient]')},\n"
        "    to_amb={k[2:-len('-ambient]')]: v for k, v in TRUTH.items() if k.endswith('-ambient]')},\n"
        "    dyn_scale=TRUTH['dyn_scale[cpu]'],\n"
        ")\n"
        "imported = write_run_folder(step_log(truth, ambient_c=25.0), OUT)\n"
        "print(imported.run_dir.name, '|', imported.summary['samples'], 'samples')"
    ),
    new_code_cell(
        "result = calibrate(load_log_data(imported.run_dir), prior, holdout=0.3, ambient_c=25.0)\n"
        "print(f\"{'parameter':22} {'prior':>9} {'truth':>9} {'fitted':>9}  ± 1 sd   determined by\")\n"
        "for p in result.params:\n"
        "    true = TRUTH.get(p.name)\n"
        "    shown = f'{true:9.4g}' if true is not None else '    (same)'\n"
        "    print(f'{p.name:22} {p.prior:9.4g} {shown} {p.value:9.4g}  {p.sd:7.2g}  {p.determined_by}')\n"
        "print(f'RMSE train {result.rmse_train_c:.2f} °C, held-out tail {result.rmse_holdout_c:.2f} °C')\n"
        "print('time constants (s):', ', '.join(f'{t:.3g}' for t in result.time_constants_s))\n"
        "record('04', truth=TRUTH, rmse_train_c=result.rmse_train_c, rmse_holdout_c=result.rmse_holdout_c,\n"
        "       fitted={p.name: {'prior': p.prior, 'value': p.value, 'sd': p.sd, 'by': p.determined_by}\n"
        "               for p in result.params})"
    ),
    new_markdown_cell(
        f"Every value the truth changed is recovered within {NB04_WITHIN_REL:.0%} and within "
        f"{NB04_WITHIN_SD:g} standard deviations of its true value, and all but `dyn_scale[cpu]` are "
        "determined by the data (posterior sd under half the prior's): without a power log the idle power is "
        "fitted too, so the power scale trades with the path to air and only their ratio, the kelvin per watt "
        f"of the load step, is pinned by the temperature. The open-loop prediction of the held-out tail, which the fit never saw, has an "
        f"RMSE under {NB04_HOLDOUT_RMSE_C:g} °C: about the sensor's own noise and quantisation. The die node "
        "(`C[cpu]`, a 10 ms time constant) is invisible at 1 Hz and stays at its prior, as the table says. "
        "A real log adds what this one lacks (an unknown ambient, a fan, a room that warms): "
        "docs/calibration.md shows the same fit on eight public Pi 4 logs."
    ),
    new_code_cell(
        "from matplotlib.figure import Figure\n"
        "fig = Figure(figsize=(9, 4), layout='constrained')\n"
        "ax = fig.subplots()\n"
        "ax.plot(result.t_s / 60, result.measured_c, '.', ms=3, label='logged (truth + sensor noise)')\n"
        "ax.plot(result.t_s / 60, result.predicted_c, lw=1.5, label='calibrated model (open loop)')\n"
        "ax.axvspan(result.holdout_from_s / 60, result.t_s[-1] / 60, color='grey', alpha=0.15, label='held out')\n"
        "ax.set_xlabel('time (min)'); ax.set_ylabel(f'{result.sensor} (°C)'); ax.legend()\n"
        "display(fig)"
    ),
    new_markdown_cell(
        "The calibrated profile is an ordinary board file: `thermogov sim --board <file>.toml` uses it "
        "(here through `simulate`), at the ambient the fit found."
    ),
    new_code_cell(
        "path = OUT / 'calibrated.toml'\n"
        "path.write_text(calibrated_profile_text(result, prior), encoding='utf-8')\n"
        "board = load_board_file(path)\n"
        "cfg = dataclasses.replace(config(duration_s=120.0, ambient_c=round(result.ambient_c, 1)),\n"
        "                          board_file=str(path), policy='performance')\n"
        "sim = simulate(cfg, board, OUT)\n"
        "print(board.name, '| simulated max fused', sim.summary['max_fused_c'], '°C')\n"
        "display(plot_runs([sim.run_dir]))"
    ),
    new_markdown_cell(
        "## Your own log\n\n"
        "```\n"
        "thermogov import my_log.csv --out traces\n"
        "thermogov calibrate traces/<run> --board rpi4\n"
        "```\n"
        "or, here, `calibrate(load_log_data(run_dir), load_board('rpi4'))`. docs/real-logs.md lists the "
        "formats, the public logs the tests use and their licences."
    ),
]


def build() -> dict[str, nbformat.NotebookNode]:
    books = {
        "01_thermal_trace.ipynb": NB01,
        "02_policy_comparison.ipynb": NB02,
        "03_what_if.ipynb": NB03,
        "04_calibration.ipynb": NB04,
    }
    out = {}
    for name, cells in books.items():
        nb = new_notebook(cells=cells)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"{name.split('_')[0]}-{i:02d}"  # stable ids: rebuilding changes nothing
        out[name] = nb
    return out


def main() -> None:
    NOTEBOOKS.mkdir(exist_ok=True)
    for name, nb in build().items():
        nbformat.validate(nb)
        nbformat.write(nb, NOTEBOOKS / name)
        print(f"wrote notebooks/{name}")


if __name__ == "__main__":
    main()
