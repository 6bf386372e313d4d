"""Build a sysfs tree shaped like a real board from its profile, under any root folder.

The tree is what the board daemon expects on a Jetson or a Pi (kernel ABI: thermal zones in
m°C, battery temperature in 0.1 °C, cpufreq in kHz, devfreq in Hz; kernel Documentation/ABI/testing/sysfs-class-thermal,
sysfs-class-power, sysfs-class-devfreq and Documentation/admin-guide/pm/cpufreq.rst), so ``thermogov run --sysfs-root DIR`` can govern
an emulated board with no hardware.  The layout comes from the profile's sysfs names (data in
the core), not from the ``hw`` package: sim and hw never import each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from thermogov.board import BoardProfile, DomainProfile


@dataclass
class FakeBoardLayout:
    """Where the emulator reads caps and writes readings, root-relative."""

    temp_files: dict[str, tuple[str, float]] = field(default_factory=dict)  # sensor -> (path, scale)
    cap_files: dict[str, list[tuple[str, float]]] = field(
        default_factory=dict
    )  # domain -> [(path, Hz per unit)]
    cur_files: dict[str, list[tuple[str, float]]] = field(default_factory=dict)


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _cpufreq(root: Path, d: DomainProfile, layout: FakeBoardLayout) -> None:
    names = list(d.sysfs_names) or ["policy0"]
    per = max(d.cores // len(names), 1)
    khz = [f // 1000 for f in d.opp_hz]
    layout.cap_files[d.name] = []
    layout.cur_files[d.name] = []
    for i, pol in enumerate(names):
        base = f"sys/devices/system/cpu/cpufreq/{pol}"
        first = i * per
        cpus = " ".join(str(c) for c in range(first, first + per))
        files = {
            "related_cpus": cpus,
            "affected_cpus": cpus,
            "scaling_available_frequencies": " ".join(str(k) for k in khz) + " ",
            "cpuinfo_min_freq": str(khz[0]),
            "cpuinfo_max_freq": str(khz[-1]),
            "scaling_min_freq": str(khz[0]),
            "scaling_max_freq": str(khz[-1]),
            "scaling_cur_freq": str(khz[-1]),
            "scaling_governor": "schedutil",
            "scaling_available_governors": "performance powersave userspace schedutil",
            "scaling_driver": "thermogov-emulated",
        }
        for name, value in files.items():
            _write(root, f"{base}/{name}", value + "\n")
        layout.cap_files[d.name].append((f"{base}/scaling_max_freq", 1000.0))
        layout.cur_files[d.name].append((f"{base}/scaling_cur_freq", 1000.0))


def _devfreq(root: Path, d: DomainProfile, layout: FakeBoardLayout) -> None:
    of_node = (d.sysfs_names or ("gpu",))[0]
    base = f"sys/class/devfreq/17000000.{of_node}"
    files = {
        "available_frequencies": " ".join(str(f) for f in d.opp_hz),
        "min_freq": str(d.opp_hz[0]),
        "max_freq": str(d.opp_hz[-1]),
        "cur_freq": str(d.opp_hz[-1]),
        "target_freq": str(d.opp_hz[-1]),
        "governor": "nvhost_podgov",
        "available_governors": "nvhost_podgov userspace performance simple_ondemand",
        "device/of_node/name": of_node,
    }
    for name, value in files.items():
        _write(root, f"{base}/{name}", value + "\n")
    layout.cap_files[d.name] = [(f"{base}/max_freq", 1.0)]
    layout.cur_files[d.name] = [(f"{base}/cur_freq", 1.0), (f"{base}/target_freq", 1.0)]


def build_fake_board(board: BoardProfile, root: Path, temps_c: dict[str, float]) -> FakeBoardLayout:
    """Create (or overwrite) the tree for ``board`` under ``root`` with the given readings."""
    root.mkdir(parents=True, exist_ok=True)
    layout = FakeBoardLayout()
    model = board.dt_models[0] if board.dt_models else board.description
    _write(root, "proc/device-tree/model", model + "\0")
    zone = 0
    for s in board.sensors:
        t = temps_c[s.name]
        if s.kind == "battery":
            base = "sys/class/power_supply/BAT0"
            for name, value in {
                "type": "Battery",
                "status": "Discharging",
                "present": "1",
                "capacity": "100",
                "temp": str(round(t * 10)),
            }.items():
                _write(root, f"{base}/{name}", value + "\n")
            layout.temp_files[s.name] = (f"{base}/temp", 10.0)
        elif s.kind == "hwmon":
            base = f"sys/class/hwmon/hwmon{zone}"
            _write(root, f"{base}/name", ((s.sysfs_names or (s.name,))[0]) + "\n")
            _write(root, f"{base}/temp1_input", str(round(t * 1000)) + "\n")
            layout.temp_files[s.name] = (f"{base}/temp1_input", 1000.0)
            zone += 1
        else:
            base = f"sys/class/thermal/thermal_zone{zone}"
            _write(root, f"{base}/type", ((s.sysfs_names or (s.name,))[0]) + "\n")
            _write(root, f"{base}/temp", str(round(t * 1000)) + "\n")
            _write(root, f"{base}/mode", "enabled\n")
            layout.temp_files[s.name] = (f"{base}/temp", 1000.0)
            zone += 1
    for d in board.domains:
        if d.kind == "cpufreq":
            _cpufreq(root, d, layout)
        else:
            _devfreq(root, d, layout)
    return layout
