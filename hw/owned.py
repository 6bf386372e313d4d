"""The allow-list: the only sysfs attributes thermogov may write, and the values each may take.

A journal is data on disk; ``restore`` must not write whatever it names.  An entry is written
back only if

* its attributes are of an owned kind (:data:`OWNED_KINDS`: cpufreq ``scaling_min_freq`` /
  ``scaling_max_freq``, devfreq ``min_freq`` / ``max_freq``; later kinds are added here and
  nowhere else: the ``cur_state`` of an idle-injection cooling device, :func:`check_idle_state`);
* they belong to a cpufreq policy or devfreq device that discovery finds on the board now,
  with the file unit that kind has (kHz for cpufreq, Hz for devfreq);
* the values lie in that device's own hardware range: ``cpuinfo_min_freq..cpuinfo_max_freq``
  for a policy (the driver's limits, Documentation/admin-guide/pm/cpufreq.rst; when those
  files do not read as a range, its OPP list, and with no list the window is not written, the
  bad file named: :func:`thermogov.hw.hwrange.policy_range`), the lowest to
  highest of ``available_frequencies`` for a devfreq device (its OPP table,
  Documentation/ABI/testing/sysfs-class-devfreq), with ``min <= max``; or, where the journal
  recorded the range the window had when it was written, in that recorded range, which must
  overlap today's (another agent, nvpmodel, may shrink a table while thermogov runs: such a
  value is written clamped into today's range, :func:`clamp_to_hardware`).

A fan attribute (``cur_state`` of the ``pwm-fan`` cooling device, ``pwm1`` / ``pwm1_enable``
of the ``pwmfan`` hwmon, ``target_pwm`` / ``temp_control`` of L4T 32's ``/sys/devices/pwm-fan``)
is written back only if it belongs to the fan discovery finds now
(:func:`thermogov.hw.fan.discover_fan`) and the value lies in its range (0..``max_state``,
0..255, 0..3, 0..255, 0..1).

Anything else is refused with the reason, before a single write.  A window whose device is not
on the board now is not written either, but that is reported as a restore left incomplete
(the device may come back: a CPU cluster brought online, a driver loaded), not as tampering.
"""

from __future__ import annotations

from dataclasses import dataclass

from thermogov.hw.boostrule import boost_off_top
from thermogov.hw.discovery import Inventory
from thermogov.hw.fan import discover_fan, fan_attribute_range
from thermogov.hw.hwrange import policy_range
from thermogov.hw.idle import is_idle_type
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

CPUFREQ_KIND = "cpufreq"
DEVFREQ_KIND = "devfreq"

# attribute name -> (device kind, which end of the window, file unit in Hz)
OWNED_KINDS: dict[str, tuple[str, str, int]] = {
    "scaling_min_freq": (CPUFREQ_KIND, "min", 1000),
    "scaling_max_freq": (CPUFREQ_KIND, "max", 1000),
    "min_freq": (DEVFREQ_KIND, "min", 1),
    "max_freq": (DEVFREQ_KIND, "max", 1),
}


@dataclass(frozen=True, slots=True)
class OwnedWindow:
    """A validated [min, max] pair of one device, with its hardware range (file units)."""

    device: str  # policy0, 17000000.ga10b
    min_rel: str
    max_rel: str
    scale_hz: int
    lo_limit: int
    hi_limit: int
    # Why hi_limit is under the hardware's top, for a restore's note ("": it is the top).
    capped_by: str = ""


def attribute_kind(rel: str) -> tuple[str, str, int] | None:
    """(device kind, "min"/"max", Hz per unit) of an owned attribute, None for any other."""
    return OWNED_KINDS.get(rel.rstrip("/").rsplit("/", 1)[-1])


class OwnedWindows(dict[tuple[str, str], OwnedWindow]):
    """Every writable window found now, keyed by (min_rel, max_rel); and, apart, the windows on
    the board whose hardware range cannot be known, with why (``unknown_range``): a restore
    says that reason for them rather than judging their values against a range that is a bad
    file's, or calling the device absent."""

    def __init__(self) -> None:
        super().__init__()
        self.unknown_range: dict[tuple[str, str], str] = {}


def owned_windows(tree: SysfsTree, inv: Inventory) -> OwnedWindows:
    """Every writable window discovery finds now, keyed by its (min_rel, max_rel)."""
    out = OwnedWindows()
    for p in inv.policies:
        if p.not_own:  # a link to another folder (discovery): its range and files are that folder's
            out.unknown_range[(p.min_rel, p.max_rel)] = p.not_own
            continue
        try:
            lo, hi, _source = policy_range(tree, p.rel, p.table_hz, p.table_source)
        except SensorError as e:
            if p.table_hz:  # a policy discovery governs: its range is the file's fault
                out.unknown_range[(p.min_rel, p.max_rel)] = str(e)
            continue  # no known hardware range: nothing may be written there
        # Boost off: cpuinfo_max_freq may still read the boost OPP (the kernel leaves it), but a
        # restore must not put a boost limit back over the switch (hw/boostrule.py).
        top = boost_off_top(tree, p.rel)
        why = ""
        if top is not None and lo <= top < hi:
            hi, why = top, f"the kernel's boost switch is off: its limits hold at most the listed top {top}"
        out[(p.min_rel, p.max_rel)] = OwnedWindow(p.name, p.min_rel, p.max_rel, 1000, lo, hi, why)
    for d in inv.devfreqs:
        if d.not_own:  # a class link to another folder or out of sys/devices: no range of its own
            out.unknown_range[(d.min_rel, d.max_rel)] = d.not_own
        elif d.table_hz:
            out[(d.min_rel, d.max_rel)] = OwnedWindow(
                d.name, d.min_rel, d.max_rel, 1, d.table_hz[0], d.table_hz[-1]
            )
    return out


def check_window(
    windows: dict[tuple[str, str], OwnedWindow],
    min_rel: str,
    max_rel: str,
    scale_hz: int,
    lo: int,
    hi: int,
    recorded: tuple[int, int] | None = None,
) -> tuple[str, bool]:
    """Why this journaled window may not be written ("" when it may), and whether the only
    reason is that its device is not on the board now (a runtime condition, not tampering).

    ``recorded`` is the hardware range the journal says the window had when it was written.
    Without it the values are judged against today's range.  With it they are judged against
    the recorded range, which must itself look like this device's: a range (two positive
    ints, low to high) sharing some frequency with today's.  A value inside it but outside
    today's range (another agent shrank or moved the table since) is then the caller's to
    clamp with :func:`clamp_to_hardware`.
    """
    for rel, end in ((min_rel, "min"), (max_rel, "max")):
        kind = attribute_kind(rel)
        if kind is None:
            return f"{rel} is not an attribute thermogov owns ({', '.join(OWNED_KINDS)})", False
        if kind[1] != end:
            return f"{rel} is not a {end} limit", False
        if kind[2] != scale_hz:
            return f"{rel}: unit {scale_hz} Hz does not match the attribute's {kind[2]} Hz", False
    why = _shape_problem(min_rel, max_rel)
    if why:
        return why, False
    w = windows.get((min_rel, max_rel))
    unknown = windows.unknown_range if isinstance(windows, OwnedWindows) else {}
    if w is None and (min_rel, max_rel) in unknown:
        return unknown[(min_rel, max_rel)], True  # the board's file, not the journal: skipped, said
    if w is None:
        return f"{min_rel}, {max_rel}: no such cpufreq policy or devfreq device on this board now", True
    span, what = (w.lo_limit, w.hi_limit), "its hardware range"
    if recorded is not None:
        why = _recorded_range_problem(w, recorded)
        if why:
            return why, False
        span, what = recorded, "the hardware range it recorded"
    for name, v in (("min", lo), ("max", hi)):
        if not _is_int(v) or not span[0] <= v <= span[1]:
            return f"{w.device}: {name} {v!r} is outside {what} {span[0]}..{span[1]}", False
    if lo > hi:
        return f"{w.device}: min {lo} is above max {hi}", False
    return "", False


def _shape_problem(min_rel: str, max_rel: str) -> str:
    """Why two paths cannot be a window thermogov journaled ("" when they can be one): a
    journal's two limits of a window are one device's files, in one folder.  Two devices' limits
    as one window name no device of any board, so it is tampering or another program's journal,
    not a device gone since (which only skips the window): the whole journal is refused before a
    write, where before the other windows were written and the restore ended "incomplete".
    (The paths' own shape is checked when the journal is read, :mod:`thermogov.hw.journalfields`.)
    """
    if min_rel.rsplit("/", 1)[0] != max_rel.rsplit("/", 1)[0]:
        return f"{min_rel} and {max_rel} are not one device's two limits"
    return ""


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _recorded_range_problem(w: OwnedWindow, recorded: tuple[int, int]) -> str:
    """Why a journal's recorded range cannot be this device's ("" when it can).

    A table another agent changed still overlaps the one it replaced (nvpmodel drops the top
    OPPs of a mode, it does not swap the device); a range that shares no frequency with
    today's is some other device's or an edit, so its values are not clamped into today's.
    """
    r_lo, r_hi = recorded
    if not (_is_int(r_lo) and _is_int(r_hi)) or not 0 < r_lo <= r_hi:
        return f"{w.device}: recorded hardware range {r_lo!r}..{r_hi!r} is not a range"
    if r_hi < w.lo_limit or r_lo > w.hi_limit:
        return (
            f"{w.device}: recorded hardware range {r_lo}..{r_hi} shares no frequency with "
            f"today's {w.lo_limit}..{w.hi_limit}: not this device's"
        )
    return ""


def clamp_to_hardware(w: OwnedWindow, lo: int, hi: int) -> tuple[int, int]:
    """The window moved into today's hardware range: each end to the nearest value in it.

    The nearest in-range value of one outside is an end of the range, and for a devfreq
    device both ends are OPPs of today's table (its lowest and highest), so the written value
    is one the device lists; for a cpufreq policy they are ``cpuinfo_min_freq`` /
    ``cpuinfo_max_freq``.  Clamping both ends keeps ``min <= max``.
    """
    return min(max(lo, w.lo_limit), w.hi_limit), min(max(hi, w.lo_limit), w.hi_limit)


def check_idle_state(tree: SysfsTree, rel: str, value: int) -> str:
    """Why this journaled cooling-device state may not be written ("" when it may).

    Only ``sys/class/thermal/cooling_deviceN/cur_state`` of a device whose ``type`` is an
    idle-injection type now (:mod:`thermogov.hw.idle`), with ``0 <= value <= max_state``.
    """
    parts = rel.split("/")
    if len(parts) != 5 or parts[:3] != ["sys", "class", "thermal"] or parts[4] != "cur_state":
        return f"{rel} is not the cur_state of a thermal cooling device"
    if not parts[3].startswith("cooling_device") or not parts[3][len("cooling_device") :].isdigit():
        return f"{rel} is not the cur_state of a thermal cooling device"
    base = "/".join(parts[:4])
    try:
        kind = tree.read_text(f"{base}/type")
        top = tree.read_int(f"{base}/max_state")
    except SensorError as e:
        return f"{base}: cannot read its type and max_state ({e})"
    if not is_idle_type(kind):
        return f"{base} is a {kind!r} cooling device, not idle injection; thermogov owns only those"
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        return f"{base}: state {value!r} is outside 0..{top}"
    return ""


FAN_ATTRIBUTES = ("cur_state", "pwm1", "pwm1_enable", "target_pwm", "temp_control")


def check_fan_attribute(tree: SysfsTree, rel: str, value: object) -> tuple[str, bool]:
    """Why this journaled fan attribute may not be written ("" when it may), and whether the
    only reason is that the fan is not on the board now (see :func:`check_window`)."""
    if rel.rstrip("/").rsplit("/", 1)[-1] not in FAN_ATTRIBUTES:
        return f"{rel} is not a fan attribute thermogov owns ({', '.join(FAN_ATTRIBUTES)})", False
    dev = discover_fan(tree)
    if dev is None:
        return f"{rel}: no pwm-fan on this board now", True
    span = fan_attribute_range(tree, dev, rel)
    if span is None:
        return f"{rel} is not an attribute of the fan found now ({dev.describe(tree)})", False
    if isinstance(value, bool) or not isinstance(value, int) or not span[0] <= value <= span[1]:
        return f"{rel}: {value!r} is outside its range {span[0]}..{span[1]}", False
    return "", False
