"""``thermogov doctor``: what this board has, what the profile maps to, and what is missing.

Read-only by construction: it never owns an attribute, so the tree cannot be written.  Every
value is read live and a read error is printed in place of the value (that is the point of a
doctor), never turned into a number.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from thermogov.board import builtin_board_names
from thermogov.config import Config
from thermogov.hw.devices import binding_celsius, to_celsius
from thermogov.hw.discovery import Inventory, PowerRail, Supply, discover
from thermogov.hw.fan import fan_data, fan_lines
from thermogov.hw.idle import idle_data, idle_lines
from thermogov.hw.latezones import WAITED_KINDS, looked_for, waiting_line
from thermogov.hw.limits import check_limits_in_force
from thermogov.hw.mapping import (
    BoardMap,
    SensorBinding,
    choose_board,
    family_warning,
    governed_table,
    map_board,
    renormalised_weights,
    unmatched_model,
)
from thermogov.hw.power import ONLINE_VALUES, PowerSupplyReader, battery_names, is_external, status_line
from thermogov.hw.powermode import super_mismatch
from thermogov.hw.railabsent import LOST, absent_rail, absent_rail_warning, summed_problem
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.telemetry import rail_problem, read_rail_w
from thermogov.hw.throttle import doctor_lines, doctor_values
from thermogov.hw.waitedsince import RunningWaits, running_waits, since_text
from thermogov.interfaces import ActuatorError, ConfigError, SensorError, ThermogovError

if TYPE_CHECKING:
    from thermogov.hw.daemon import Prepared


def _mhz(hz: float) -> str:
    return f"{hz / 1e6:g}"


def _table(table_hz: tuple[int, ...]) -> str:
    return " ".join(_mhz(f) for f in table_hz) + " MHz" if table_hz else "(none)"


def _live(fn: Callable[..., str], *args: object) -> str:
    try:
        return fn(*args)
    except SensorError as e:
        return f"ERROR {e}"


def _watts_text(tree: SysfsTree, rail: PowerRail) -> str:
    return f"{read_rail_w(tree, rail):.3f} W"


def _celsius_text(tree: SysfsTree, binding: SensorBinding) -> str:
    return f"{binding_celsius(tree, binding):.1f} °C"


def _rounded_celsius(tree: SysfsTree, binding: SensorBinding) -> float:
    return round(binding_celsius(tree, binding), 3)


def _temp(tree: SysfsTree, rel: str, divisor: float) -> str:
    return _live(lambda: f"{to_celsius(tree.read_int(rel), divisor, tree.show(rel)):.1f} °C")


def _text(tree: SysfsTree, rel: str) -> str:
    return tree.read_text(rel) if tree.exists(rel) else "?"


def _online(tree: SysfsTree, s: Supply) -> int | None:
    """A charger's ``online`` read now (0, 1, 2: sysfs-class-power), ``None`` when it is no such value."""
    try:
        v = tree.read_int(f"{s.rel}/online")
    except SensorError:
        return None
    return v if v in ONLINE_VALUES else None


def _hz(tree: SysfsTree, rel: str, scale: int) -> str:
    return _live(lambda: _mhz(tree.read_int(rel) * scale)) if tree.exists(rel) else "?"


def _inventory_lines(tree: SysfsTree, inv: Inventory) -> list[str]:
    out = ["thermal zones:"]
    for z in inv.zones:
        trips = ", ".join(
            f"{t.type} {t.temp_c:g}" if t.temp_c is not None else f"{t.type} ?" for t in z.trips
        )
        out.append(
            f"  {z.name:<15} {z.type:<18} {_temp(tree, z.temp_rel, 1000.0)}"
            + (f"   trips (°C): {trips}" if trips else "")
        )
    if not inv.zones:
        out.append("  (none)")
    out.append("hwmon:")
    for h in inv.hwmons:
        temps = ", ".join(_temp(tree, t, 1000.0) for t in h.temp_inputs)
        out.append(f"  {h.name:<15} {h.chip:<18} {temps or '(no temperature inputs)'}")
        for r in h.rails:
            out.append(f"    rail {r.label:<16} " + _live(_watts_text, tree, r))
    if not inv.hwmons:
        out.append("  (none)")
    out.append("power supplies:")
    for s in inv.supplies:
        line = f"  {s.name:<15} {s.type:<18}"
        if s.type.lower() == "battery":
            temp = _temp(tree, s.temp_rel, 10.0) if s.has_temp else "no temp attribute"
            cap = _live(_text, tree, f"{s.rel}/capacity")
            status = _live(_text, tree, f"{s.rel}/status")
            line += f" {temp}, capacity {cap} %, {status}"
        elif is_external(s):  # a charger's online read now (session 25c): 0, 1 or 2 (programmable)
            line += " online " + _live(_text, tree, f"{s.rel}/online")
        out.append(line)
    if not inv.supplies:
        out.append("  (none)")
    out.append("cpufreq policies:")
    for p in inv.policies:
        if p.error:
            out.append(f"  {p.name:<15} ERROR {p.error}")
            continue
        if p.not_own:  # nothing read through the link
            out.append(f"  {p.name:<15} NOT GOVERNABLE {p.not_own}")
            continue
        if p.inactive:
            out.append(f"  {p.name:<15} INACTIVE {p.inactive}")
            continue
        gov = _live(_text, tree, f"{p.rel}/scaling_governor")
        cpus = ",".join(str(c) for c in p.related_cpus) or "?"
        out.append(
            f"  {p.name:<15} cpus {cpus}  governor {gov}  limits {_hz(tree, p.min_rel, 1000)}.."
            f"{_hz(tree, p.max_rel, 1000)} MHz  cur {_hz(tree, p.cur_rel, 1000)} MHz"
        )
        out.append(f"    OPPs ({p.table_source}): {_table(p.table_hz)}")
        if p.read_only:
            out.append(f"    NOT GOVERNABLE: {p.read_only}")
    if not inv.policies:
        out.append("  (none)")
    out.append("devfreq devices:")
    for d in inv.devfreqs:
        kind = "GPU" if d.is_gpu else "other"
        if d.error:
            out.append(f"  {d.name:<15} ERROR {d.error}")
            continue
        gov = _live(_text, tree, f"{d.rel}/governor")
        out.append(
            f"  {d.name:<15} of_node {d.of_node or '?'} ({kind})  governor {gov}  limits "
            f"{_hz(tree, d.min_rel, 1)}..{_hz(tree, d.max_rel, 1)} MHz  cur {_hz(tree, d.cur_rel, 1)} MHz"
        )
        out.append(f"    OPPs: {_table(d.table_hz)}")
    if not inv.devfreqs:
        out.append("  (none)")
    return out


def _waited(bmap: BoardMap, config: Config) -> set[str]:
    """The sensors `run` would wait for (hw/latezones.py): missing now, of a kind it looks for
    again, and fused by the config (a bad ``[sensors]`` table is reported elsewhere: all then)."""
    try:
        fused = {s.name for s in config.sensor_specs(bmap.board)}
    except ConfigError:
        fused = {s.name for s in bmap.board.sensors}
    return {n for n in bmap.missing_sensors if n in fused and bmap.board.sensor(n).kind in WAITED_KINDS}


def _mapping_lines(
    tree: SysfsTree, bmap: BoardMap, config: Config, inv: Inventory, live: RunningWaits | None
) -> list[str]:
    out = [f"mapping of profile {bmap.board.name}:"]
    bound = {b.sensor.name: b for b in bmap.sensors}
    waited = _waited(bmap, config)
    for s in bmap.board.sensors:
        b = bound.get(s.name)
        if b is None:
            out.append(f"  sensor {s.name:<8} MISSING: {bmap.missing_sensors[s.name]}")
            if s.name in waited:
                out.append(f"    {waiting_line(s)}: `thermogov run` fuses it once it appears")
                if live is not None and s.name in live.waits:  # since when (session 24a)
                    out.append(
                        f"    the running daemon (pid {live.pid}) waits for it{since_text(live.waits[s.name])}"
                    )
        else:
            note = "  (found on the board; not in the profile)" if s.name in bmap.found_sensors else ""
            now = _live(_celsius_text, tree, b)
            out.append(f"  sensor {s.name:<8} -> {b.source:<28} {now}{note}")
    for d in bmap.board.domains:
        db = next((x for x in bmap.domains if x.domain.name == d.name), None)
        if db is None:
            out.append(
                f"  domain {d.name:<8} MISSING: {bmap.missing_domains[d.name]}{later_note(bmap, d.name)}"
            )
            continue
        ceilings = []
        for f in db.files:
            with contextlib.suppress(SensorError):
                ceilings.append(tree.read_int(f.max_rel) * f.scale_hz)
        caps = governed_table(db.hw_table_hz, d.opp_hz[0], max(ceilings) if ceilings else None)
        out.append(f"  domain {d.name:<8} -> {db.source}; caps thermogov may set: {_table(caps)}")
        if db.absent:
            out.append(f"    {', '.join(db.absent)}: not here; `thermogov run` governs it if it appears")
    try:
        specs = config.sensor_specs(bmap.board)
    except ConfigError as e:  # a bad [sensors] override: show it, the rest is still useful
        out.append(f"fusion: cannot resolve sensors from the config ({e})")
        return out
    full = ", ".join(f"{s.name} {s.weight:g}" for s in specs)
    renormalised = renormalised_weights(specs, bound)
    missing = [s.name for s in specs if s.name not in bound]
    if missing:
        after = ", ".join(f"{k} {v:.3f}" for k, v in renormalised.items()) or "none: nothing to govern on"
        out.append(f"fusion weights: {full} -> without {', '.join(missing)}: {after}")
    else:
        out.append(f"fusion weights: {full} (all sensors present)")
    out.append(status_line(PowerSupplyReader(tree, inv.supplies, prefer=battery_names(bmap.board)).read()))
    if bmap.power is not None:
        out.append(f"board power: rail {bmap.power.label} on {bmap.power.hwmon}")
    elif bmap.summed:  # the profile's sum is the run's power_w (hw/railsum.py) while it reads
        tail = f"; {LOST} stay empty while it reads so" if summed_problem(tree, inv, bmap.board) else ""
        out.append(f"board power: {absent_rail(tree, inv, bmap.board)}{tail}")
    else:
        out.append(f"board power: {absent_rail(tree, inv, bmap.board)}; {LOST} will be empty")
    return out


def _waited_since(live: RunningWaits | None, name: str) -> dict[str, object]:
    """``doctor --json``'s since when a running daemon waits for ``name`` (session 24a)."""
    if live is None or name not in live.waits:
        return {}
    w = live.waits[name]
    return {"waited_by_pid": live.pid, "waited_s": w.waited_s, "waiting_since_unix": w.since_unix}


def later_note(bmap: BoardMap, name: str) -> str:
    """What `run` does with a missing domain it governs later ("" for one it does not govern):
    the doctor describes the tree as it is, and says so beside it."""
    b = next((x for x in bmap.offline if x.domain.name == name), None)
    if b is None or b.inactive:  # an inactive policy's own reason says it already
        return ""
    return f"; `thermogov run` governs it once a device named {'/'.join(b.absent)} appears"


def doctor_report(
    tree: SysfsTree, config: Config, board_opt: str | None = None, state: Path | None = None
) -> list[str]:
    """The text report; ``state``: a running daemon's state file (None: the default one), read
    for since when it waits for a sensor the board lacks (hw/waitedsince.py)."""
    inv = discover(tree)
    lines = [f"sysfs root: {tree.root}", f"board model: {inv.model or '(no device-tree model)'}"]
    board, reason = choose_board(board_opt, config, inv)
    lines.append(f"profile: {board.name} ({reason})")
    lines.extend(_inventory_lines(tree, inv))
    said: list[str] = []
    live = running_waits(state, board.name, said)
    lines.extend(_mapping_lines(tree, map_board(inv, board), config, inv, live))
    lines.extend(said)  # a state file there but not read: one line (session 25l)
    lines.extend(doctor_lines(tree, inv.zones))
    lines.extend(fan_lines(tree))
    lines.extend(idle_lines(tree))
    if inv.problems:
        lines.append("problems:")
        lines.extend(f"  {p}" for p in inv.problems)
    return lines


# -- no board, and the machine-readable form ---------------------------------------------------
def no_board_reason(tree: SysfsTree, inv: Inventory) -> str | None:
    """Why this root is not a board (nothing to read or nothing to govern), or None."""
    from thermogov.hw.discovery import CPUFREQ, DEVFREQ, HWMON, THERMAL

    temps = inv.zones or any(h.temp_inputs for h in inv.hwmons)
    clocks = inv.policies or inv.devfreqs
    if temps and clocks:
        return None
    looked = []
    if not temps:
        looked.append(
            f"no thermal zone ({tree.root / THERMAL}/thermal_zone*) nor hwmon temperature ({tree.root / HWMON})"
        )
    if not clocks:
        looked.append(
            f"no cpufreq policy ({tree.root / CPUFREQ}/policy*) nor devfreq device ({tree.root / DEVFREQ})"
        )
    # Zones and hwmon chips whose ``type``/``name`` failed to read (a zone answering EIO): "no
    # board" alone hid the file that is the cause (session 21c).
    unread = [p for p in inv.problems if "/thermal_zone" in p or ("/hwmon" in p and "/name:" in p)]
    if unread and not temps:
        return (
            f"no board here: found {' and '.join(looked)} that could be read; {len(unread)} "
            f"entr{'y' if len(unread) == 1 else 'ies'} could not, the first: {unread[0]}"
        )
    return (
        f"no board here: found {' and '.join(looked)}; run it on the Jetson or Pi itself, or try it without "
        "a board: `thermogov emulate --sysfs-root DIR`, then `thermogov doctor --sysfs-root DIR`"
    )


def _value(fn: Callable[..., float | str], *args: object) -> float | str | dict[str, str]:
    try:
        return fn(*args)
    except SensorError as e:
        return {"error": str(e)}


def _mhz_of(tree: SysfsTree, rel: str, scale: int) -> float | str | dict[str, str] | None:
    return _value(lambda: tree.read_int(rel) * scale / 1e6) if tree.exists(rel) else None


def doctor_data(
    tree: SysfsTree, config: Config, board_opt: str | None = None, state: Path | None = None
) -> dict[str, object]:
    """What ``doctor --json`` prints: the same facts as the text report, as values."""
    inv = discover(tree)
    board, reason = choose_board(board_opt, config, inv)
    bmap = map_board(inv, board)
    said: list[str] = []
    live = running_waits(state, board.name, said)

    def temp(rel: str, divisor: float) -> float | str | dict[str, str]:
        return _value(lambda: round(to_celsius(tree.read_int(rel), divisor, tree.show(rel)), 3))

    bound = {b.sensor.name: b for b in bmap.sensors}
    waited = _waited(bmap, config)
    sensors: list[dict[str, object]] = []
    for s in bmap.board.sensors:
        b = bound.get(s.name)
        sensors.append(
            {
                "name": s.name,
                "missing": bmap.missing_sensors[s.name],
                **({"waiting_for": looked_for(s)} if s.name in waited else {}),
                **(_waited_since(live, s.name) if s.name in waited else {}),
            }
            if b is None
            else {
                "name": s.name,
                "source": b.source,
                "temp_c": _value(_rounded_celsius, tree, b),
            }
        )
    domains: list[dict[str, object]] = []
    for d in board.domains:
        db = next((x for x in bmap.domains if x.domain.name == d.name), None)
        domains.append(
            {"name": d.name, "missing": bmap.missing_domains[d.name], "later": bool(later_note(bmap, d.name))}
            if db is None
            else {
                "name": d.name,
                "source": db.source,
                "hw_opps_mhz": [f / 1e6 for f in db.hw_table_hz],
                "absent": list(db.absent),
            }
        )
    return {
        "sysfs_root": str(tree.root),
        "board_found": no_board_reason(tree, inv) is None,
        "model": inv.model,
        "profile": {"name": board.name, "reason": reason},
        "thermal_zones": [
            {
                "name": z.name,
                "type": z.type,
                "temp_c": temp(z.temp_rel, 1000.0),
                "trips": [{"type": t.type, "temp_c": t.temp_c} for t in z.trips],
            }
            for z in inv.zones
        ],
        "hwmon": [
            {
                "name": h.name,
                "chip": h.chip,
                "temps_c": [temp(t, 1000.0) for t in h.temp_inputs],
                "rails": [{"label": r.label, "power_w": _value(read_rail_w, tree, r)} for r in h.rails],
            }
            for h in inv.hwmons
        ],
        "power_supplies": [
            {"name": s.name, "type": s.type, **({"online": _online(tree, s)} if is_external(s) else {})}
            for s in inv.supplies
        ],
        "power_state": None
        if (ps := PowerSupplyReader(tree, inv.supplies, prefer=battery_names(bmap.board)).read()) is None
        else ps._asdict(),
        "found_sensors": list(bmap.found_sensors),
        "cpufreq": [
            {
                "name": p.name,
                "error": p.error,
                "read_only": p.read_only,
                "not_own": p.not_own,
                "inactive": p.inactive,
                "cpus": list(p.related_cpus),
                "opps_mhz": [f / 1e6 for f in p.table_hz],
                "min_mhz": _mhz_of(tree, p.min_rel, 1000),
                "max_mhz": _mhz_of(tree, p.max_rel, 1000),
                "cur_mhz": _mhz_of(tree, p.cur_rel, 1000),
            }
            for p in inv.policies
        ],
        "devfreq": [
            {
                "name": d.name,
                "error": d.error,
                "of_node": d.of_node,
                "gpu": d.is_gpu,
                "opps_mhz": [f / 1e6 for f in d.table_hz],
                "min_mhz": _mhz_of(tree, d.min_rel, 1),
                "max_mhz": _mhz_of(tree, d.max_rel, 1),
                "cur_mhz": _mhz_of(tree, d.cur_rel, 1),
            }
            for d in inv.devfreqs
        ],
        "mapping": {"sensors": sensors, "domains": domains},
        "board_power": None if bmap.power is None else {"rail": bmap.power.label, "hwmon": bmap.power.hwmon},
        "throttle_sources": doctor_values(tree, inv.zones),
        "fan": fan_data(tree),
        "idle_injection": idle_data(tree),
        "problems": list(inv.problems),
        **({"state_file": said[0]} if said else {}),  # a state file there but not read (25l)
    }


def doctor_checks(tree: SysfsTree, config: Config, board_opt: str | None) -> tuple[str | None, list[str]]:
    """(why this is no board, or None; the warnings: sensors reading like whole degrees, the trip hold)."""
    from thermogov.hw.holdcheck import hold_warning
    from thermogov.hw.unitcheck import unit_warnings

    inv = discover(tree)
    no_board = no_board_reason(tree, inv)
    if no_board is not None:
        return no_board, []
    unmatched = unmatched_model(board_opt, config, inv)
    if unmatched:  # the profile shown is only the config's default: `run` refuses it
        return None, [f"warning: {unmatched}; `thermogov run` refuses to start until then"]
    family = family_warning(board_opt, config, inv)
    hold = hold_warning(tree, config, board_opt)
    bmap = map_board(inv, choose_board(board_opt, config, inv)[0])
    return None, [
        *([f"warning: {family}"] if family else []),
        *(f"warning: `thermogov run` refuses this board: {why}" for why in limits_refusals(tree, bmap)),
        *clock_warnings(tree, bmap),
        *power_warnings(tree, bmap),
        *unit_warnings(tree, config, board_opt),
        *([hold] if hold else []),
        *([f"warning: {sm}"] if (sm := super_mismatch(tree, bmap.board.name, builtin_board_names())) else []),
    ]


def limits_refusals(tree: SysfsTree, bmap: BoardMap) -> list[str]:
    """Why ``run`` would refuse the limits in force, one line per limit pair of every mapped
    domain it would refuse (none when it would start).

    The report shows an unreadable limit as "?" or not at all (a devfreq ``max_freq``), so a
    tree whose limit reads ``nan`` or is linked outside the root passed ``doctor`` with
    nothing said while ``run`` refused it: the same reads and check as the run's start
    (:func:`~thermogov.hw.limits.check_limits_in_force`: no min above the max, nothing outside
    the device's hardware range) and the same test of a file it could not own (a link, a path
    out of the root: :meth:`~thermogov.hw.sysfs.SysfsTree.unownable`, the words ``own`` refuses
    with), so each line is the one ``run`` stops at.  Every pair is named, not only the first:
    ``run`` stops at one, and a board with two bad policies took two rounds of fixing.
    """
    out = []
    for db in bmap.domains:
        for f in db.files:
            try:
                lo = tree.read_int(f.min_rel, ActuatorError)
                hi = tree.read_int(f.max_rel, ActuatorError)
                check_limits_in_force(tree, f, lo, hi)
            except ThermogovError as e:
                out.append(str(e))
                continue
            why = tree.unownable(f.min_rel) or tree.unownable(f.max_rel)
            if why:
                out.append(why)
    return out


def clock_warnings(tree: SysfsTree, bmap: BoardMap) -> list[str]:
    """One warning per mapped domain whose effective clock (``scaling_cur_freq``/``cur_freq``)
    cannot be read: the governor reads it every tick and records nothing when it fails, so a
    clock file reading ``nan`` or linked outside the root left the trace's clock column empty
    with nothing said.  Advisory: the caps are written and read back through the limit files."""
    out = []
    for db in bmap.domains:
        for f in db.files:
            try:
                value = tree.read_int(f.cur_rel, ActuatorError)
                why = "" if value > 0 else f"{tree.show(f.cur_rel)}: {value} {f.unit} is no clock"
            except ThermogovError as e:
                why = str(e)
            if why:
                out.append(
                    f"warning: domain {db.domain.name}: its clock is unreadable ({why}); the trace's "
                    f"{db.domain.name}_freq_hz is not the clock, the caps still apply"
                )
                break
    return out


def power_warnings(tree: SysfsTree, bmap: BoardMap) -> list[str]:
    """One warning when the board's input rail (the trace's ``power_w``, a power-aware policy's
    input) gives no usable power: garbage, 0, a negative or more than the board class can draw
    read as unknown every tick (``hw/telemetry.py``), which left ``power_w`` empty unsaid."""
    if bmap.power is None:
        return []
    why = rail_problem(tree, bmap.power)
    if not why:
        return []
    return [f"warning: board power is unreadable ({why}); the trace's power_w is empty while it reads so"]


def start_warnings(tree: SysfsTree, config: Config, board_opt: str | None) -> list[str]:
    """:func:`clock_warnings` and :func:`power_warnings` for ``run``'s start, on the board ``run`` maps (nothing if it
    cannot map one: the run reports that itself), and the input rail's absence where the board shows
    a power monitor (``hw/railabsent.py``, the phrase ``doctor``'s "board power:" line uses)."""
    from thermogov.hw.daemon import RunOptions, prepare

    try:
        prep = prepare(RunOptions(config=config, sysfs_root=tree.root, board=board_opt), tree)
    except ThermogovError:
        return []
    return prepared_start_warnings(prep)


def prepared_start_warnings(prep: Prepared) -> list[str]:
    """:func:`start_warnings` on a board already prepared: the rail phrase from the discovery
    ``prepare`` made (session 21 discovered the board once more for it)."""
    return [
        *clock_warnings(prep.tree, prep.bmap),
        *power_warnings(prep.tree, prep.bmap),
        *absent_rail_warning(prep.tree, prep.inventory, prep.bmap),
    ]


def config_refusal(tree: SysfsTree, config: Config, board_opt: str | None) -> ConfigError | None:
    """The error ``thermogov run`` would stop at for this config on this board, or None.

    Load-time checks see only the file; a ``[sensors.X]`` the board lacks and a bad
    ``[policies.*]`` parameter are found against the mapped board.  The example config tells the
    user to check a change with ``doctor --config``, so doctor runs run's own checks (the same
    ``prepare`` and policy build) and exits 2 with run's line instead of passing the file.
    """
    from thermogov.hw.daemon import RunOptions, policy_context, prepare

    try:
        prep = prepare(RunOptions(config=config, sysfs_root=tree.root, board=board_opt), tree)
        prep.config.make_policy(policy_context(prep))
    except ConfigError as e:
        return e
    return None
