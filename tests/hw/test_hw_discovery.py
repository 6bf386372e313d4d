"""Discovery and profile mapping on trees shaped like real boards (and on real listings)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.fakesys import DATA, FakeTree, real_file, tree_from_grep_dump
from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import choose_board, detect_board, governed_table, map_board, name_match
from thermogov.hw.sysfs import SysfsTree


def _inv(t: FakeTree):  # type: ignore[no-untyped-def]
    return discover(SysfsTree(t.root))


@pytest.mark.parametrize("board", sorted(fakesys.BOARDS))
def test_each_board_tree_is_detected_and_fully_mapped(tmp_path: Path, board: str) -> None:
    t = fakesys.BOARDS[board](tmp_path)
    inv = _inv(t)
    chosen, reason = choose_board(None, Config(), inv)
    assert chosen.name == board, reason
    bmap = map_board(inv, chosen)
    assert {d.domain.name for d in bmap.domains} == {d.name for d in chosen.domains}
    present = {s.sensor.name for s in bmap.sensors}
    assert present | set(bmap.missing_sensors) == {s.name for s in chosen.sensors}
    assert present >= {"cpu"}


def test_orin_jp5_zones_trips_units_and_gpu(tmp_path: Path) -> None:
    inv = _inv(fakesys.orin_nano(tmp_path, jetpack=5))
    cpu = inv.zones[0]
    assert (cpu.name, cpu.type) == ("thermal_zone0", "CPU-therm")
    assert [(tp.type, tp.temp_c) for tp in cpu.trips] == [("passive", 99.0), ("critical", 104.5)]
    gpu = next(d for d in inv.devfreqs if d.is_gpu)
    assert (gpu.name, gpu.of_node) == ("17000000.ga10b", "ga10b")
    assert gpu.table_hz == fakesys.ORIN_NANO_GPU_HZ
    assert not next(d for d in inv.devfreqs if d.name == "15340000.vic").is_gpu
    pol = inv.policies[0]
    assert pol.table_hz[0] == 115_200_000 and pol.table_hz[-1] == 1_510_400_000  # kHz -> Hz
    assert [p.related_cpus for p in inv.policies] == [(0, 1, 2, 3), (4, 5)]
    assert [r.label for r in inv.hwmons[0].rails] == ["VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"]


def test_orin_jp6_names_and_gpu_path_map_to_the_same_profile(tmp_path: Path) -> None:
    inv = _inv(fakesys.orin_nano(tmp_path, jetpack=6))
    assert inv.zones[0].type == "cpu-thermal"
    gpu = next(d for d in inv.devfreqs if d.is_gpu)
    assert (gpu.name, gpu.of_node) == ("17000000.gpu", "gpu")
    real = SysfsTree(tmp_path).resolve(gpu.rel)
    assert real.endswith("sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu")
    bmap = map_board(inv, load_board("jetson-orin-nano"))
    assert [b.source for b in bmap.sensors] == ["thermal_zone0 (cpu-thermal)", "thermal_zone1 (gpu-thermal)"]
    assert bmap.domains[1].source.startswith("17000000.gpu")


def test_jp5_gpu_devfreq_lives_under_the_device(tmp_path: Path) -> None:
    inv = _inv(fakesys.orin_nano(tmp_path, jetpack=5))
    gpu = next(d for d in inv.devfreqs if d.is_gpu)
    assert SysfsTree(tmp_path).resolve(gpu.rel).endswith("sys/devices/17000000.ga10b/devfreq/17000000.ga10b")


@pytest.mark.parametrize(
    ("wanted", "actual", "level"),
    [
        ("cpu-thermal", "CPU-therm", 1),
        ("CPU-therm", "cpu-therm", 2),
        ("gpu-thermal", "GPU-therm", 1),
        ("cpu-thermal", "BCPU-therm", 0),
        ("tj-thermal", "tj-therm", 1),
        ("cpu-thermal", "cv0-thermal", 0),
    ],
)
def test_zone_names_match_across_jetpack_styles(wanted: str, actual: str, level: int) -> None:
    assert name_match(wanted, actual) == level


def test_exact_name_beats_stem_match(tmp_path: Path) -> None:
    t = FakeTree(tmp_path)
    t.zone(0, "CPU-therm", 40000)
    t.zone(1, "cpu-thermal", 41000)
    bmap = map_board(_inv(t), load_board("rpi5"))
    assert bmap.sensors[0].source == "thermal_zone1 (cpu-thermal)"


def test_agx_orin_three_policies_form_one_domain_and_no_total_rail(tmp_path: Path) -> None:
    bmap = map_board(_inv(fakesys.agx_orin(tmp_path)), load_board("jetson-agx-orin"))
    cpu = bmap.domains[0]
    assert [f.label for f in cpu.files] == ["policy0", "policy4", "policy8"]
    assert cpu.hw_table_hz[-1] == 2_201_600_000
    assert bmap.power is None  # VDD_GPU_SOC / VDD_CPU_CV / VIN_SYS_5V0 but no board input rail


def test_missing_battery_is_reported_with_its_reason(tmp_path: Path) -> None:
    bmap = map_board(_inv(fakesys.orin_nano(tmp_path)), load_board("jetson-orin-nano"))
    assert bmap.missing_sensors == {"battery": "no power_supply of type Battery"}


def test_battery_temp_in_tenths_is_found(tmp_path: Path) -> None:
    bmap = map_board(_inv(fakesys.orin_nano(tmp_path, battery_decic=312)), load_board("jetson-orin-nano"))
    bat = next(b for b in bmap.sensors if b.sensor.name == "battery")
    assert bat.divisor == 10.0 and bat.rel.endswith("power_supply/BAT0/temp")


def test_thinkpad_battery_without_temp_and_mains_supply(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    t.supply("BAT0", (DATA / "procfs_thinkpad_bat0_uevent.txt").read_text())
    t.supply("AC", (DATA / "procfs_thinkpad_ac_uevent.txt").read_text())
    inv = _inv(t)
    assert {(s.name, s.type, s.has_temp) for s in inv.supplies} == {
        ("AC", "Mains", False),
        ("BAT0", "Battery", False),
    }
    bmap = map_board(inv, load_board("jetson-orin-nano"))
    assert bmap.missing_sensors["battery"] == "battery BAT0 reports no temp attribute"


@pytest.mark.parametrize(
    "name",
    [
        "sysfs_laptop-dell_bat0_uevent_charging_fastfetch118.txt",
        "sysfs_laptop-lenovo_bat0_uevent_charging_i3status288.txt",
        "sysfs_chromebook_batc_uevent_discharging_brunch117.txt",
    ],
)
def test_laptop_and_chromebook_battery_uevents(tmp_path: Path, name: str) -> None:
    text = real_file(name).read_text()
    supply = re.search(r"POWER_SUPPLY_NAME=(\w+)", text)
    assert supply
    t = fakesys.orin_nano(tmp_path)
    t.supply(supply.group(1), text, kind="Battery", temp_decic=295)
    bmap = map_board(_inv(t), load_board("jetson-orin-nano"))
    bat = next(b for b in bmap.sensors if b.sensor.name == "battery")
    assert supply.group(1) in bat.source
    assert t.read(f"sys/class/power_supply/{supply.group(1)}/capacity").isdigit()


# -- board detection -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "compat", "expected"),
    [
        ("NVIDIA Orin Nano Developer Kit", ("nvidia,p3768-0000+p3767-0005",), "jetson-orin-nano"),
        ("NVIDIA Jetson Orin Nano Developer Kit", (), "jetson-orin-nano"),
        ("NVIDIA Jetson Nano Developer Kit", ("nvidia,jetson-nano",), "jetson-nano"),
        ("Raspberry Pi 400 Rev 1.0", (), "rpi4"),
        ("Raspberry Pi 5 Model B Rev 1.0", (), "rpi5"),
        ("Raspberry Pi Compute Module 4 Rev 1.0", (), "rpi4"),
        ("NVIDIA Jetson AGX Orin Developer Kit", (), "jetson-agx-orin"),
    ],
)
def test_detect_board_from_dt_model(model: str, compat: tuple[str, ...], expected: str) -> None:
    from thermogov.hw.mapping import builtin_profiles

    found, _ = detect_board(model, compat, builtin_profiles())
    assert found is not None and found.name == expected


def test_board_option_overrides_detection_and_unknown_model_falls_back(tmp_path: Path) -> None:
    inv = _inv(fakesys.rpi5(tmp_path))
    assert choose_board("rpi4", Config(), inv)[0].name == "rpi4"
    t = FakeTree(tmp_path / "x")
    t.model("Some Other Board")
    board, reason = choose_board(None, Config(), _inv(t))
    assert board.name == Config().board and "matches no profile" in reason


def test_broken_opp_table_is_kept_with_its_error(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path)
    t.write("sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies", "garbage\n")
    inv = _inv(t)
    assert "not" in inv.policies[0].error or "expected" in inv.policies[0].error
    bmap = map_board(inv, load_board("rpi5"))
    assert "scaling_available_frequencies" in bmap.missing_domains["cpu"]


def test_cpuinfo_min_max_when_the_driver_lists_no_table(tmp_path: Path) -> None:
    t = FakeTree(tmp_path)
    t.policy(0, [0, 1], (800000, 3000000), listed=False)
    p = _inv(t).policies[0]
    assert p.table_source == "cpuinfo_min/max" and p.table_hz == (800_000_000, 3_000_000_000)


# -- governed tables ---------------------------------------------------------------------------
def test_governed_table_respects_profile_floor_and_limit_in_force() -> None:
    hw = tuple(f * 100_000_000 for f in range(10, 25))  # 1.0 .. 2.4 GHz like the Pi 5 issue listing
    assert governed_table(hw, 1_500_000_000, 2_400_000_000)[0] == 1_500_000_000
    assert governed_table(hw, 1_500_000_000, 2_000_000_000)[-1] == 2_000_000_000  # never above nvpmodel
    assert governed_table(hw, 3_000_000_000, None) == hw  # floor above all OPPs: keep the hardware table


# -- fakesys presets agree with the copied BSD listings ------------------------------------------
def _mhz_list(path: Path, start: int = 0, stop: int | None = None) -> list[int]:
    lines = path.read_text().splitlines()[start:stop]
    return sorted(int(m.group(1)) for line in lines if (m := re.match(r"Cpufreq OPP:\s+(\d+)", line)))


@pytest.mark.parametrize(
    ("excerpt", "table_khz"),
    [
        ("sbcbench_orin-nano_4vgu_excerpt.txt", fakesys.ORIN_NANO_CPU_KHZ),
        ("sbcbench_agx-orin_4ax9_excerpt.txt", fakesys.AGX_ORIN_CPU_KHZ),
        ("sbcbench_jetson-nano_4rLX_excerpt.txt", fakesys.NANO_CPU_KHZ),
        ("sbcbench_xavier-nx_3YWp_excerpt.txt", fakesys.XAVIER_NX_CPU_KHZ),
        ("sbcbench_rpi5_8-NK_excerpt.txt", fakesys.RPI5_CPU_KHZ),
    ],
)
def test_fakesys_cpu_tables_match_sbcbench_to_the_mhz(excerpt: str, table_khz: tuple[int, ...]) -> None:
    assert _mhz_list(DATA / excerpt) == [int(k / 1000) for k in table_khz]


def test_fakesys_orin_nano_gpu_rails_and_topology_match_sbcbench() -> None:
    text = (DATA / "sbcbench_orin-nano_4vgu_excerpt.txt").read_text()
    opps = re.search(r"17000000\.ga10b: .*/ ([\d ]+)\)", text)
    assert opps and [int(x) for x in opps.group(1).split()] == [
        f // 1_000_000 for f in fakesys.ORIN_NANO_GPU_HZ
    ]
    assert "thermal_zone7/ (SOC2-therm)" in text  # the JP5 zone order fakesys uses for AGX
    assert fakesys.ORIN_JP5_ZONES[7] == "SOC2-therm"
    for label, mv, _ma in fakesys.ORIN_NANO_RAILS:
        assert re.search(rf"{label}:\s+{mv / 1000:.2f} V", text)
    assert "curr1:                 968.00 mA" in text and fakesys.ORIN_NANO_RAILS[0][2] == 968
    assert "nvidia,p3768-0000+p3767-0005" in text


def test_pi4_firmware_with_two_opps_still_governs(tmp_path: Path) -> None:
    khz = [k * 1000 for k in _mhz_list(DATA / "sbcbench_rpi4b_1MFf_excerpt.txt")]
    assert khz == [600000, 1500000]
    bmap = map_board(_inv(fakesys.rpi4(tmp_path, table_khz=khz)), load_board("rpi4"))
    assert bmap.domains[0].hw_table_hz == (600_000_000, 1_500_000_000)


# -- real listings read in place (licence: not copied) --------------------------------------------
def test_real_nano_zone_types_map_cpu_and_gpu(tmp_path: Path) -> None:
    lines = real_file("sysfs_jetson-nano2gb_thermal_zone_types.txt").read_text().splitlines()
    types = [ln.split(": ", 1)[1].strip() for ln in lines if ": " in ln]
    assert tuple(types) == fakesys.NANO_ZONE_TYPES
    bmap = map_board(_inv(fakesys.jetson_nano(tmp_path, zone_types=types)), load_board("jetson-nano"))
    assert [b.source for b in bmap.sensors] == ["thermal_zone1 (CPU-therm)", "thermal_zone2 (GPU-therm)"]


def test_real_nano_gpu_devfreq_table(tmp_path: Path) -> None:
    path_line, values = (
        real_file("sysfs_jetson-nano_gpu_devfreq_available_frequencies.txt").read_text().split("\n")[:2]
    )
    assert path_line.startswith("/sys/devices/57000000.gpu/devfreq/57000000.gpu/")
    table = tuple(int(v) for v in values.split())
    assert table == fakesys.NANO_GPU_HZ
    inv = _inv(fakesys.jetson_nano(tmp_path, gpu_table_hz=table))
    assert next(d for d in inv.devfreqs if d.is_gpu).table_hz == table


def test_real_pi4_gpiofan_dump_materialises_into_a_discoverable_zone(tmp_path: Path) -> None:
    t = tree_from_grep_dump(
        tmp_path, real_file("sysfs_rpi4_thermal_gpiofan_throttle_issue135.txt").read_text()
    )
    inv = _inv(t)
    z = next(z for z in inv.zones if z.name == "thermal_zone0")
    assert z.type == "cpu-thermal"
    assert [(tp.type, tp.temp_c, tp.hyst_c) for tp in z.trips] == [("active", 70.0, 10.0)]
    bmap = map_board(inv, load_board("rpi4"))
    assert bmap.sensors[0].source == "thermal_zone0 (cpu-thermal)"
    assert SysfsTree(t.root).read_int(bmap.sensors[0].rel) == 74010


def test_real_cm4_trip_dump(tmp_path: Path) -> None:
    t = tree_from_grep_dump(tmp_path, real_file("sysfs_rpi-cm4_thermal_zone_trips_issue19.txt").read_text())
    t.write("sys/class/thermal/thermal_zone0/type", "cpu-thermal\n")  # type is not in the excerpt
    z = _inv(t).zones[0]
    assert [(tp.type, tp.temp_c, tp.hyst_c) for tp in z.trips] == [
        ("active", 75.0, 2.0),
        ("active", 50.0, 2.0),
    ]


def test_real_pi5_listing_below_the_floor_is_never_a_cap(tmp_path: Path) -> None:
    lines = real_file("sysfs_rpi5_cpufreq_available_vs_actual.txt").read_text().splitlines()
    table = [int(v) for v in lines[1].split()]
    assert table[0] == 1_000_000  # cpufreq lists 1.0 GHz, the clock stays at 1.5 GHz (same issue)
    bmap = map_board(_inv(fakesys.rpi5(tmp_path, table_khz=table)), load_board("rpi5"))
    caps = governed_table(bmap.domains[0].hw_table_hz, bmap.board.domains[0].opp_hz[0], 2_400_000_000)
    assert caps[0] == 1_500_000_000 and len(caps) == 10


def test_real_orin_jp5_journal_zone_numbers_match_fakesys() -> None:
    found: dict[int, str] = {}
    for name in (
        "sysfs_agx-orin_jp5_jtop_journal_issue608.txt",
        "sysfs_agx-orin_jp5_jtop_journal_issue381.txt",
    ):
        for m in re.finditer(r'Found thermal "(\w+)" in thermal_zone(\d+)', real_file(name).read_text()):
            found[int(m.group(2))] = m.group(1)
    for idx, stem in found.items():
        assert fakesys.ORIN_JP5_ZONES[idx].split("-")[0].split("_")[0] == stem


def test_real_orin_jp6_gpu_path_matches_fakesys(tmp_path: Path) -> None:
    text = real_file("sysfs_agx-orin32gb_jp6_jtop_journal_issue668.txt").read_text()
    m = re.search(r"frq in (/sys/\S+)", text)
    assert m
    fakesys.agx_orin(tmp_path, jetpack=6)
    gpu = next(d for d in _inv(FakeTree(tmp_path)).devfreqs if d.is_gpu)
    assert SysfsTree(tmp_path).resolve(gpu.rel).endswith(m.group(1).lstrip("/"))
