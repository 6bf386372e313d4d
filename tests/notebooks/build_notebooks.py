"""Write notebooks/*.ipynb from the cell sources below (stored without outputs).

Run ``python tests/notebooks/build_notebooks.py`` after editing a cell; the notebook test
checks that the stored notebooks match this file, so the two cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

SETUP = """\
%matplotlib inline
from pathlib import Path
import dataclasses

import thermogov
from thermogov.config import Config
from thermogov.runs import load_summary
from thermogov.trace import load_trace, to_pandas
from thermogov.plot import plot_runs
from thermogov.sim.runner import simulate

OUT = Path("runs")  # run folders go next to wherever the notebook runs


def config(**sim_changes):
    base = Config()
    return dataclasses.replace(base, sim=dataclasses.replace(base.sim, **sim_changes))
"""

NB01 = [
    new_markdown_cell(
        "# 01 · A thermal trace, step by step\n\n"
        "One simulated run of the default board (Jetson Orin Nano in a sealed fanless box) under a "
        "saturating YOLO stream with the specified 85/70 °C hysteresis policy. Every run, simulated "
        "or imported from a real board, leaves the same run folder: `trace.csv` (one row per "
        "governor tick), `samples.csv` (one row per sensor read), `summary.json` and a ledger row."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "result = simulate(config(duration_s=300.0), None, OUT)\n"
        "run = result.run_dir\n"
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
        "    print(f'{key:26} {s[key]}')"
    ),
    new_markdown_cell(
        "## The figure\nTemperatures against the 70–85 °C band, caps and clocks as steps, rolling "
        "throughput and power, all on one time axis (the same figure `thermogov plot RUN` writes)."
    ),
    new_code_cell("fig = plot_runs([run])\nfig"),
    new_code_cell(
        "events = trace[trace['event'].notna()][['t_s', 'fused_c', 'policy_state', 'event']]\nevents.head(10)"
    ),
]

NB02 = [
    new_markdown_cell(
        "# 02 · Policies on one scenario\n\n"
        "The same board, workload and seed under each registered policy: `hysteresis` (the spec), "
        "`performance` (no software cap: only the board's own protections act) and two fixed caps. "
        "Each run is simulated with `simulate()`; the summaries go into one table."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "POLICIES = ['hysteresis', 'performance', 'fixed:1267', 'fixed:960']\n"
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
        "table = pd.DataFrame({p: {c: load_summary(r).get(c) for c in cols} for p, r in runs.items()}).T\n"
        "table.sort_values('sustained_throughput_ips', ascending=False)"
    ),
    new_markdown_cell(
        "A policy that lets the temperature run into the board's own protection is seen to lose: "
        "compare `time_above_trip_s` and the clocks in the figure."
    ),
    new_code_cell("fig = plot_runs(list(runs.values()))\nfig"),
]

NB03 = [
    new_markdown_cell(
        "# 03 · What if: ambient temperature and lid conductance\n\n"
        "How much sustained throughput does the hysteresis policy keep when the room is hotter, or when "
        "the enclosure lid sheds heat better or worse? The lid's conductance to ambient is scaled with an "
        "`ambient_link` event at t = 0 (a factor of 2 is roughly a small fan, 0.5 a lid in still, "
        "trapped air)."
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
        "        rows.append({'ambient_c': amb, 'lid_factor': lid, 'sustained_ips': s['sustained_throughput_ips'],\n"
        "                     'max_fused_c': s['max_fused_c'], 'time_above_trip_s': s['time_above_trip_s']})\n"
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
        "ax.set_title('hysteresis policy, saturating YOLO stream')\n"
        "ax.legend()\n"
        "fig"
    ),
    new_markdown_cell(
        "Runs are kept short (8 simulated minutes) so the notebook executes in seconds; for a real study use "
        "`duration_s` of an hour or more so the sustained window sits well after the first trip."
    ),
]

NB04 = [
    new_markdown_cell(
        "# 04 · Calibrate the simulator from a real log\n\n"
        "Import a Raspberry Pi 4 `stress --cpu 4` log, fit the rpi4 profile's RC network and dynamic-power "
        "scale to it (`thermogov calibrate` does the same), and compare the open-loop prediction with the "
        "measured temperatures, including the held-out tail the fit never saw. The log is read from "
        "`../shared/data/real` next to the repository when it is there (it has no licence, so it is not "
        "copied into the repo); otherwise a permissive sbc-bench excerpt from `tests/data` is used; if "
        "neither exists the cells say so and skip."
    ),
    new_code_cell(
        SETUP + "\nfrom thermogov.board import load_board, load_board_file\n"
        "from thermogov.importers import parse_log\n"
        "from thermogov.importers.runfolder import write_run_folder\n"
        "from thermogov.sim.calibrate import calibrate, calibrated_profile_text, load_log_data\n\n"
        "import thermogov.board\n\n"
        "REPO = Path(thermogov.board.__file__).resolve().parents[1]  # the checkout this thermogov runs from\n"
        "CANDIDATES = [\n"
        "    (REPO.parent / 'shared' / 'data' / 'real' / 'rpi_4b_stress_cpu4_unitA.csv', 'rpi4'),\n"
        "    (REPO / 'tests' / 'data' / 'logs' / 'sbcbench_rpi5_8-NK_excerpt.txt', 'rpi5'),\n"
        "]\n"
        "LOG, BOARD = next(((p, b) for p, b in CANDIDATES if p.is_file()), (None, None))\n"
        "print(f'using {LOG} with board {BOARD}' if LOG else 'skipped: no real log found (shared/data/real or tests/data)')"
    ),
    new_code_cell(
        "if LOG is None:\n"
        "    print('skipped: no log')\n"
        "else:\n"
        "    imported = write_run_folder(parse_log(LOG), OUT, board=load_board(BOARD))\n"
        "    print(imported.run_dir.name, '|', imported.summary['samples'], 'samples,',\n"
        "          imported.summary['skipped_lines'], 'malformed lines skipped')\n"
        "    result = calibrate(load_log_data(imported.run_dir), load_board(BOARD), holdout=0.3)\n"
        "    for p in result.params:\n"
        "        print(f'{p.name:22} {p.prior:9.4g} -> {p.value:9.4g} ± {p.sd:.2g} {p.unit:4} ({p.determined_by})')\n"
        "    print(f'RMSE train {result.rmse_train_c:.2f} °C, held-out tail {result.rmse_holdout_c:.2f} °C')\n"
        "    if result.steady is not None:\n"
        "        print(f'predicted steady state under the load: {result.steady.predicted_c:.1f} °C')"
    ),
    new_code_cell(
        "if LOG is None:\n"
        "    print('skipped: no log')\n"
        "else:\n"
        "    from matplotlib.figure import Figure\n"
        "    fig = Figure(figsize=(9, 4), layout='constrained')\n"
        "    ax = fig.subplots()\n"
        "    ax.plot(result.t_s, result.measured_c, '.', ms=3, label='measured')\n"
        "    ax.plot(result.t_s, result.predicted_c, lw=1.5, label='calibrated model (open loop)')\n"
        "    ax.axvspan(result.holdout_from_s, result.t_s[-1], color='grey', alpha=0.15, label='held out')\n"
        "    ax.set_xlabel('time (s)'); ax.set_ylabel(f'{result.sensor} (°C)'); ax.legend()\n"
        "    display(fig)"
    ),
    new_markdown_cell(
        "The calibrated profile is an ordinary board file: the simulator uses it with `--board-file` "
        "(here through `simulate`), at the ambient the fit found."
    ),
    new_code_cell(
        "if LOG is None:\n"
        "    print('skipped: no log')\n"
        "else:\n"
        "    path = OUT / 'calibrated.toml'\n"
        "    path.write_text(calibrated_profile_text(result, load_board(BOARD)), encoding='utf-8')\n"
        "    board = load_board_file(path)\n"
        "    cfg = dataclasses.replace(config(duration_s=120.0, ambient_c=round(result.ambient_c, 1)),\n"
        "                              board_file=str(path), policy='performance')\n"
        "    sim = simulate(cfg, board, OUT)\n"
        "    print(board.name, '| simulated max fused', sim.summary['max_fused_c'], '°C')\n"
        "    display(plot_runs([sim.run_dir]))"
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
