"""The harness of bench/board_shapes.py: a tree with two other agents excuses each one's files.

Before, the second agent's shape replaced the first one's file, so the first agent's own
write (a rival's limit) was reported as the daemon's: false ``not-restored`` and
``wrote-outside-owned`` findings (seed 3).
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType

from tests.hw import fakesys

REPO = Path(__file__).resolve().parents[2]
P0_MAX = "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
P4_MAX = "sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("board_shapes", REPO / "bench" / "board_shapes.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("board_shapes", mod)
    spec.loader.exec_module(mod)
    return mod


class Scripted(random.Random):
    """``choice`` picks the given items in turn (the shapes' draws, made explicit)."""

    def __new__(cls, *picks: str) -> Scripted:  # Python 3.10's Random.__new__ takes one seed at most
        return super().__new__(cls, 0)

    def __init__(self, *picks: str) -> None:
        super().__init__(0)
        self._picks = list(picks)

    def choice(self, seq):  # type: ignore[override]
        want = self._picks.pop(0)
        return next(x for x in seq if x == want or str(x).endswith(want))


def test_a_rival_and_an_nvpmodel_agent_on_one_tree_each_have_their_files_excused(tmp_path: Path) -> None:
    bs = _bench()
    t = fakesys.orin_nano(tmp_path / "root")
    tr = bs.Trial("jetson-orin-nano", governed_policies={"policy0", "policy4"})
    bs.rival_agent(t, Scripted(P0_MAX), tr)
    bs.other_agent(t, Scripted("17000000.ga10b/max_freq", "nvpmodel-table-shrunk"), tr)
    gpu = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"
    assert len(tr.agents) == 2
    for own_file in (P0_MAX, f"{gpu}/max_freq", f"{gpu}/available_frequencies"):
        assert bs._agent_file(own_file, tr), own_file
    assert not bs._agent_file(P4_MAX, tr)  # nobody's but the daemon's
    assert not bs._agent_file("sys/devices/system/cpu/cpufreq/policy4/scaling_available_frequencies", tr)


def test_the_modechange_check_flags_a_max_above_or_below_the_modes_and_excuses_the_window(
    tmp_path: Path,
) -> None:
    """A window at the mode's max (its min moved under it) is excused; above it the mode was
    undone (apart when the mode wrote the very value thermogov had: unseen), below it thermogov's
    cap was left."""
    bench = _bench()
    runner = bench.Runner(None)
    p0_min = P0_MAX.replace("max", "min")
    p4_min = P4_MAX.replace("max", "min")
    before = {P0_MAX: (b"1510400\n", 0o644), p0_min: (b"729600\n", 0o644), P4_MAX: (b"1510400\n", 0o644)}
    before[p4_min] = (b"729600\n", 0o644)
    after = {P0_MAX: (b"652800\n", 0o644), p0_min: (b"652800\n", 0o644), P4_MAX: (b"1510400\n", 0o644)}
    after[p4_min] = (b"729600\n", 0o644)
    mode = {P0_MAX: (652800, 729600), P4_MAX: (1113600, 729600)}
    diff = runner._check_mode_kept("w", mode, before, after, [P0_MAX, p0_min, P4_MAX])
    assert diff == []
    assert [f.split(" [")[0] for f in runner.findings] == ["mode-undone"]
    runner = bench.Runner(None)
    after[P4_MAX] = (b"729600\n", 0o644)
    runner._check_mode_kept("w", {**mode, P0_MAX: (652800, 652800)}, before, after, [P4_MAX])
    assert [f.split(" [")[0] for f in runner.findings] == ["mode-cap-left"]
    runner = bench.Runner(None)
    after[P0_MAX] = (b"1510400\n", 0o644)
    runner._check_mode_kept("w", {P0_MAX: (652800, 652800)}, before, after, [P0_MAX])
    assert [f.split(" [")[0] for f in runner.findings] == ["mode-undone-unseen"]


def test_hotplug_never_takes_a_cluster_whose_max_another_agent_raises_and_still_flags_a_lost_cap(
    tmp_path: Path,
) -> None:
    """Sessions 15-17's ``cap-lost-after-online`` on Pi trees was a jetson_clocks storm's own value
    on the very file the hotplug path took offline (the rule lets that agent win after three
    re-caps).  Such a folder is no hotplug target now; a cap really lost is still a finding."""
    bs = _bench()
    pi = fakesys.rpi5(tmp_path / "pi")
    tr = bs.Trial("rpi5", governed_policies={"policy0"})
    bs.other_agent(pi, Scripted(P0_MAX, "jetson-clocks-storm"), tr)
    assert bs.hotplug_targets({P0_MAX, P0_MAX.replace("max", "min")}, tr) == []
    orin = fakesys.orin_nano(tmp_path / "orin")
    tr = bs.Trial("jetson-orin-nano", governed_policies={"policy0", "policy4"})
    bs.other_agent(orin, Scripted(P0_MAX, "jetson-clocks-storm"), tr)
    assert bs.hotplug_targets({P0_MAX, P4_MAX}, tr) == ["sys/devices/system/cpu/cpufreq/policy4"]
    tr = bs.Trial("jetson-orin-nano", governed_policies={"policy0", "policy4"})
    bs.other_agent(orin, Scripted(P0_MAX, "governor-changed"), tr)
    assert len(bs.hotplug_targets({P0_MAX, P4_MAX}, tr)) == 2, "a governor string moves no limit"
    assert bs.cap_lost("1500000\n", "2400000\n", "2400000\n")
    assert not bs.cap_lost("1500000\n", "2400000\n", "1500000\n")  # capped again
    assert not bs.cap_lost("2400000\n", "2400000\n", "2400000\n")  # the cap was the top: nothing lost


def test_the_online_path_takes_a_later_cluster_or_a_jetsons_whole_cpu_domain_and_judges_the_journal(
    tmp_path: Path,
) -> None:
    bs = _bench()
    runner = bs.Runner(tmp_path / "shim")  # only its presence matters to the plan
    orin = fakesys.orin_nano(tmp_path / "orin")
    tr = bs.Trial("jetson-orin-nano", governed_policies={"policy0", "policy4"})
    assert runner._plan_online(orin, tr, Scripted("cluster", "policy4")) == [
        "sys/devices/system/cpu/cpufreq/policy4"
    ]
    both = ["sys/devices/system/cpu/cpufreq/policy0", "sys/devices/system/cpu/cpufreq/policy4"]
    assert runner._plan_online(orin, tr, Scripted("domain")) == both
    bs.rival_agent(orin, Scripted(P4_MAX), tr)
    assert runner._plan_online(orin, tr, Scripted("cluster")) == [], (
        "policy4 is the rival's; policy0 stays up"
    )
    pi = fakesys.rpi5(tmp_path / "pi")
    # a one-policy board: a CPU under its one policy instead (session 23, the ``cpu`` variant)
    pi_trial = bs.Trial("rpi5", governed_policies={"policy0"})
    assert runner._plan_online(pi, pi_trial, Scripted("domain")) == ["sys/devices/system/cpu/cpufreq/policy0"]
    assert runner._online_variant == "cpu"
    journal = tmp_path / "journal.json"
    entry = {
        "label": "policy4",
        "min_rel": P4_MAX.replace("max", "min"),
        "max_rel": P4_MAX,
        "min": 115200,
        "max": 1510400,
    }
    journal.write_text(json.dumps({"entries": [entry]}))
    assert bs.journal_problem(journal, P4_MAX, 1510400) == ""
    assert "journaled max 1510400" in bs.journal_problem(journal, P4_MAX, 1728000)
    assert "does not name it" in bs.journal_problem(journal, P0_MAX, 1510400)
    journal.write_text('{"entries": [')
    assert "unreadable" in bs.journal_problem(journal, P4_MAX, 1510400)
