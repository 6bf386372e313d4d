"""Which board this is, and which of its kernel devices each profile sensor and domain is.

Board profiles name their sensors by zone type / hwmon chip / supply name and their domains
by cpufreq policy / devfreq device-tree node (``sysfs_names``).  Names drift between releases
(JetPack 5 ``CPU-therm`` vs JetPack 6 ``cpu-thermal``), so a name matches case-insensitively,
exactly first and else on the part before the first ``-``/``_`` (what jtop does).  Whatever
does not match is reported as missing with the reason, never guessed.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from thermogov.board import (
    BoardProfile,
    DomainProfile,
    SensorProfile,
    builtin_board_names,
    load_board,
)
from thermogov.cliopts import load_board_option
from thermogov.config import Config
from thermogov.fusion import SensorSpec
from thermogov.hw.discovery import CpufreqPolicy, DevfreqDevice, Inventory, PowerRail, Supply
from thermogov.hw.limits import LimitFiles

# A battery the profile does not list still takes part in fusion when the board has one (a robot
# on an AGX Orin): the product spec's battery weight and period.  Its hard limit is the Li-ion
# discharge limit, 60 °C (see thermogov.battery for the source).
FOUND_BATTERY_WEIGHT = 0.1
FOUND_BATTERY_PERIOD_MS = 200
FOUND_BATTERY_HARD_LIMIT_C = 60.0

# Board input rails (total power): Orin Nano/NX and Xavier NX call it VDD_IN, Nano POM_5V_IN.
TOTAL_POWER_RAILS = ("VDD_IN", "POM_5V_IN")

T = TypeVar("T")


def input_rails(board: BoardProfile) -> tuple[str, ...]:
    """The labels (upper case) the board's input rail may have, in the order they are tried:
    the profile's ``input_rail`` (one label or a list), none where it says the board has no
    input-rail monitor, else :data:`TOTAL_POWER_RAILS`."""
    if board.no_input_rail:
        return ()
    return tuple(r.upper() for r in board.input_rails) if board.input_rails else TOTAL_POWER_RAILS


def _stem(name: str) -> str:
    return re.split(r"[-_]", name.strip().lower(), maxsplit=1)[0]


def name_match(wanted: str, actual: str) -> int:
    """2 = same name (any case), 1 = same stem before '-'/'_' (``cpu-thermal`` ~ ``CPU-therm``), 0 = no."""
    if wanted.strip().lower() == actual.strip().lower():
        return 2
    return 1 if _stem(wanted) and _stem(wanted) == _stem(actual) else 0


def best_match(wanted: Sequence[str], candidates: Iterable[tuple[str, T]]) -> T | None:
    """The first candidate with the best match level against any wanted name."""
    best: T | None = None
    level = 0
    for actual, item in candidates:
        lv = max((name_match(w, actual) for w in wanted), default=0)
        if lv > level:
            best, level = item, lv
    return best


def best_matches(wanted: Sequence[str], candidates: Iterable[tuple[str, T]]) -> list[T]:
    """Every candidate at the best match level, in order: zone types need not be unique (only
    ``thermal_zoneN`` is), and a twin whose sensor is off (a fixed -40 °C floor, a disabled
    zone) must not be the one bound while the live one goes unread."""
    found: list[T] = []
    level = 0
    for actual, item in candidates:
        lv = max((name_match(w, actual) for w in wanted), default=0)
        if lv > level:
            found, level = [item], lv
        elif lv == level and lv > 0:
            found.append(item)
    return found


@dataclass(frozen=True, slots=True)
class SensorBinding:
    sensor: SensorProfile
    rel: str  # the value file
    divisor: float  # file units per °C: 1000 (m°C) or 10 (power_supply 0.1 °C)
    source: str  # human description, e.g. "thermal_zone0 (CPU-therm)"
    twins: tuple[str, ...] = ()  # value files of other zones with the same name (read: the hottest)


@dataclass(frozen=True, slots=True)
class DomainBinding:
    domain: DomainProfile
    files: tuple[LimitFiles, ...]
    hw_table_hz: tuple[int, ...]  # OPPs every member offers (intersection)
    source: str
    skipped: tuple[str, ...] = ()  # why listed members are left alone (a read-only policy)
    # Listed policies inactive at start (every CPU offline): governed once they come back online
    # (hw/lateclusters.py).
    inactive: tuple[str, ...] = ()
    # What the profile names that the tree lacks at start, governed once it appears
    # (hw/lateclusters.py, hw/latedevfreq.py): listed cpufreq policies without a folder, or, for a
    # devfreq domain bound to nothing, the names a device must have to be adopted.
    absent: tuple[str, ...] = ()
    # Session 28r: the profile's only cpufreq domain (it takes the policies no domain names,
    # :func:`unnamed_policies`): the policy folders there were at start.  A ``policyN`` folder not
    # among them that appears mid-run (its CPU hotplugged back on a kernel that removes the
    # folder, a cpufreq driver loaded late) is judged as an unnamed policy at start is
    # (hw/lateclusters.py).  ``None``: the domain takes only what it names.
    known: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class BoardMap:
    board: BoardProfile
    sensors: tuple[SensorBinding, ...]
    domains: tuple[DomainBinding, ...]
    missing_sensors: dict[str, str] = field(default_factory=dict)
    missing_domains: dict[str, str] = field(default_factory=dict)
    power: PowerRail | None = None
    # A board with no input-rail monitor (``input_rail = "none"``): the profile's
    # ``summed_rails``, all of them found with an input, whose sum is the power read instead
    # (hw/railsum.py); empty when any is missing (``run`` says which, hw/railabsent.py).
    summed: tuple[PowerRail, ...] = ()
    found_sensors: tuple[str, ...] = ()  # sensors the board has that the profile does not list
    supplies: tuple[Supply, ...] = ()  # power_supply devices (the power state is read from them)
    # Domains with nothing to write at start that the daemon governs once something appears: a
    # cpufreq domain every listed policy of which is inactive (all CPUs offline) or absent, with
    # at least one inactive (hw/lateclusters.py); a devfreq domain whose device is not there
    # (its driver not probed yet, hw/latedevfreq.py).  Also in ``missing_domains`` (nothing of
    # them can be read now).  No files; the profile's OPPs as the table.
    offline: tuple[DomainBinding, ...] = ()
    # Session 30r: under two or more cpufreq domains, a policy no domain names whose OPP table is
    # no domain's alone (:func:`by_table`): one line each, said once at start; never written.
    unowned: tuple[str, ...] = ()


# -- board -------------------------------------------------------------------------------------
def detect_board(
    model: str, compatible: Sequence[str], profiles: Sequence[BoardProfile]
) -> tuple[BoardProfile | None, str]:
    """The profile whose ``dt_models`` entry occurs in the DT model/compatible; longest wins.

    Longest wins because "Raspberry Pi 4" is a substring of "Raspberry Pi 400 Rev 1.0".
    """
    hay = [h.lower() for h in (model, *compatible) if h]
    best: tuple[BoardProfile | None, str] = (None, "")
    for p in profiles:
        for pat in p.dt_models:
            if pat and any(pat.lower() in h for h in hay) and len(pat) > len(best[1]):
                best = (p, pat)
    return best


@functools.cache
def builtin_profiles() -> tuple[BoardProfile, ...]:
    """The packaged profiles, parsed once per process: board choice asks for them up to four
    times at start (model, family step, its refusal and its warning), and they cannot change
    under a running process (frozen dataclasses from the installed package's files)."""
    return tuple(load_board(n) for n in builtin_board_names())


@dataclass(frozen=True, slots=True)
class FamilyMatch:
    """The profiles that claim a board's SoC/module family (``dt_socs``), for the weaker step."""

    family: str  # the claimed family as the profile writes it ("" when no profile claims one)
    compatible: str  # the board's compatible entry that decided ("" when none)
    candidates: tuple[BoardProfile, ...] = ()


def _claims(family: str, compatible: str) -> bool:
    """``nvidia,p3767`` claims ``nvidia,p3767`` and every module of it (``nvidia,p3767-0000``)."""
    fam, comp = family.lower(), compatible.lower()
    return comp == fam or comp.startswith(fam + "-")


def family_match(compatible: Sequence[str], profiles: Sequence[BoardProfile]) -> FamilyMatch:
    """The profiles claiming the most specific family in ``compatible`` that any profile claims.

    A device tree lists ``compatible`` from the most specific entry to the most general (the
    Devicetree Specification, "compatible"): an Orin NX reads ``nvidia,p3768-0000+p3767-0000``,
    ``nvidia,p3767-0000``, ``nvidia,tegra234``.  So the module family decides before the SoC,
    and a SoC two profiles claim (``nvidia,tegra234``: Orin Nano and AGX Orin) decides nothing
    alone: that is an ambiguity, named, never a pick.
    """
    for comp in compatible:
        claims = [(p, f) for p in profiles for f in p.dt_socs if _claims(f, comp)]
        if claims:
            by_name = {p.name: p for p, _ in claims}
            family = claims[0][1] if len(by_name) == 1 else comp
            return FamilyMatch(family, comp, tuple(by_name.values()))
    return FamilyMatch("", "")


def _family_step(board_opt: str | None, config: Config, inv: Inventory) -> FamilyMatch | None:
    """The SoC-family step's result when it is the one that decides, else None.

    It decides only when nothing else does: no board chosen (``--board``, ``board_file``,
    ``[run] board``), a device-tree model (a tree without one keeps the config's board), and no
    profile's ``dt_models`` matching it.
    """
    if board_opt or config.board_file or config.board_given or not inv.model:
        return None
    profiles = builtin_profiles()
    if detect_board(inv.model, inv.compatible, profiles)[0] is not None:
        return None
    return family_match(inv.compatible, profiles)


def choose_board(board_opt: str | None, config: Config, inv: Inventory) -> tuple[BoardProfile, str]:
    """``--board`` > the config's ``board_file`` > device-tree model > ``[run] board`` > the
    one profile claiming the board's SoC family > the config's default board."""
    if board_opt:  # what --board accepts is decided in one place for every command
        return load_board_option(board_opt), f"--board {board_opt}"
    if config.board_file:
        return config.load_board(), f"board_file {config.board_file}"
    found, pat = detect_board(inv.model, inv.compatible, builtin_profiles())
    if found is not None:
        return found, f"device-tree model matches {pat!r}"
    fam = _family_step(board_opt, config, inv)
    if fam is not None and len(fam.candidates) == 1:
        return fam.candidates[0], f"no profile for device-tree model {inv.model!r}; SoC family {fam.family!r}"
    why = "no device-tree model" if not inv.model else f"device-tree model {inv.model!r} matches no profile"
    return config.load_board(), f"{why}; using the config's board (pass --board to choose)"


def unmatched_model(board_opt: str | None, config: Config, inv: Inventory) -> str:
    """Why this board may not be governed with a profile picked for it ("" when it may).

    A device-tree model that matches no profile names a board thermogov has no profile for (a
    Raspberry Pi 3 B+, an Orin NX): falling back to the config's default board would govern it
    with another board's OPP floor, sensors and limits, a guess.  A profile the user chose
    (``--board``, ``board_file``, ``[run] board``) stands in for it, and so does the one
    profile that claims the board's SoC/module family (``dt_socs``; :func:`family_warning`
    says so).  A family two profiles claim is refused, naming them.  A tree without a model
    (a listing, a bare fake tree) keeps the config's board: there is nothing to contradict.
    """
    fam = _family_step(board_opt, config, inv)
    if fam is None or len(fam.candidates) == 1:
        return ""
    choose = (
        "choose the nearest with --board NAME or [run] board in the config (`thermogov boards` "
        "lists them), or write one (docs/calibration.md)"
    )
    if fam.candidates:
        names = " and ".join(p.name for p in fam.candidates)
        return (
            f"device-tree model {inv.model!r} (/proc/device-tree/model) matches no board profile and "
            f"its SoC family {fam.family!r} is claimed by {names}; choose one with --board NAME or "
            "[run] board in the config"
        )
    return f"device-tree model {inv.model!r} (/proc/device-tree/model) matches no board profile; {choose}"


def family_warning(board_opt: str | None, config: Config, inv: Inventory) -> str:
    """The one line a board governed by its SoC family's profile gets ("" for any other board).

    The profile's OPPs, sensors and limits are another board's of the same SoC or module
    family; the daemon binds what this board's tree lists, but the limits and the model are a
    stand-in, so the user is told once, at ``doctor`` and at ``run`` start.
    """
    fam = _family_step(board_opt, config, inv)
    if fam is None or len(fam.candidates) != 1:
        return ""
    return (
        f"device-tree model {inv.model!r} has no profile; governing with {fam.candidates[0].name}, "
        f"the profile of its SoC family {fam.family!r}; choose with --board NAME or [run] board"
    )


# -- sensors -----------------------------------------------------------------------------------
def _bind_sensor(s: SensorProfile, inv: Inventory) -> SensorBinding | str:
    if s.kind == "thermal_zone":
        if not s.sysfs_names:
            return "profile lists no sysfs_names for this zone"
        zones = best_matches(s.sysfs_names, ((z.type, z) for z in inv.zones))
        if not zones:
            types = ", ".join(z.type for z in inv.zones) or "none"
            unread = [p for p in inv.problems if "/thermal_zone" in p]
            # A zone whose ``type`` failed to read (EIO) may be the one wanted: name it (session 21c).
            also = f"; {len(unread)} unreadable, the first: {unread[0]}" if unread else ""
            return f"no thermal zone named {'/'.join(s.sysfs_names)} (zones: {types}{also})"
        z, twins = zones[0], zones[1:]
        source = f"{z.name} ({z.type})"
        if twins:
            source += " + " + ", ".join(t.name for t in twins) + ", the hottest"
        return SensorBinding(s, z.temp_rel, 1000.0, source, tuple(t.temp_rel for t in twins))
    if s.kind == "hwmon":
        h = best_match(s.sysfs_names, ((h.chip, h) for h in inv.hwmons if h.temp_inputs))
        if h is None:
            return f"no hwmon chip named {'/'.join(s.sysfs_names) or '?'} with a temp*_input"
        return SensorBinding(s, h.temp_inputs[0], 1000.0, f"{h.name} ({h.chip})")
    batteries = [p for p in inv.supplies if p.type.lower() == "battery"]
    if s.sysfs_names:
        batteries = [p for p in batteries if any(name_match(w, p.name) for w in s.sysfs_names)]
    if not batteries:
        return "no power_supply of type Battery"
    with_temp = [p for p in batteries if p.has_temp]
    if not with_temp:
        return f"battery {batteries[0].name} reports no temp attribute"
    b = with_temp[0]
    return SensorBinding(s, b.temp_rel, 10.0, f"{b.name} (power_supply)")


# -- domains -----------------------------------------------------------------------------------
def _bind_cpufreq(
    d: DomainProfile,
    inv: Inventory,
    unnamed: tuple[CpufreqPolicy, ...] = (),
    *,
    takes_unnamed: bool = False,
) -> DomainBinding | str:
    """``unnamed``: the board's policies no cpufreq domain of the profile names, taken by this,
    the profile's only cpufreq domain (:func:`unnamed_policies`) where they share its caps.
    ``takes_unnamed``: this is that domain (:func:`takes_unnamed_policies`), so a policy that
    appears mid-run is judged by the same rule (``DomainBinding.known``)."""
    wanted = {n.lower() for n in d.sysfs_names}
    pols: list[CpufreqPolicy] = [p for p in inv.policies if not wanted or p.name.lower() in wanted]
    if not pols:
        have = ", ".join(p.name for p in inv.policies) or "none"
        return f"no cpufreq policy {'/'.join(d.sysfs_names) or '*'} (policies: {have})"
    # A cluster whose CPUs are all offline (inactive) has no limits to read or write: it is
    # left alone and the others are governed, as a read-only one is below.
    inactive = tuple(p.inactive for p in pols if p.inactive)
    later = tuple(p.name for p in pols if p.inactive)
    pols = [p for p in pols if not p.inactive]
    if not pols:
        return inactive[0]
    broken = [p for p in pols if p.error]
    if broken:
        return broken[0].error
    # A read-only cluster cannot be capped by anyone: it is left as it is and the others are
    # governed (leaving them all free would run a hot board's other clusters at full clock).
    # So is one whose folder is not its own (a link no kernel makes: discovery's _other_policy_folder).
    read_only = tuple(p.read_only or p.not_own for p in pols if p.read_only or p.not_own)
    pols = [p for p in pols if not (p.read_only or p.not_own)]
    if not pols:
        return read_only[0]
    skipped = inactive + read_only
    common = offered_caps(pols[0], d)
    for p in pols[1:]:
        common &= offered_caps(p, d)
    for p in unnamed:
        if p.inactive:
            # Session 27r: every CPU of it offline now (no table reads): waited for as a named
            # policy inactive at start is, and joined only if it then shares an OPP
            # (hw/lateclusters.py ``_join``).  Before, it was left ungoverned for the run: its
            # CPUs brought online on a hot board ran at full clock.
            later += (p.name,)
            skipped += (
                f"{p.name}, named by no domain of the profile: {p.inactive}; joined if it comes online",
            )
            continue
        why = p.error or p.read_only or p.not_own
        caps = common & offered_caps(p, d) if not why else set()
        if caps:
            pols.append(p)
            common = caps
        else:
            skipped += (
                f"{p.name} (cpus {','.join(map(str, p.related_cpus)) or '?'}), named by no domain of the "
                f"profile, is left ungoverned ({why or 'it shares no OPP with ' + d.name})",
            )
    if not common:
        # Clusters with tables of their own (big.LITTLE) that share no OPP: one cap cannot be
        # an OPP of all of them, so the domain is not governed rather than governed off-table.
        tables = "; ".join(f"{p.name} {_mhz_span(p.table_hz)}" for p in pols)
        return (
            f"{'+'.join(p.name for p in pols)} share no OPP ({tables}); the profile's domain "
            f"{d.name} does not fit this board: pass --board with a profile that lists them apart"
        )
    files = tuple(LimitFiles(p.name, p.min_rel, p.max_rel, p.cur_rel, 1000) for p in pols)
    source = "+".join(p.name for p in pols)
    known = tuple(p.name for p in inv.policies) if takes_unnamed else None
    return DomainBinding(
        d, files, tuple(sorted(common)), source, skipped, later, absent_policies(d, inv), known
    )


def unnamed_policies(board_domains: tuple[DomainProfile, ...], inv: Inventory) -> tuple[CpufreqPolicy, ...]:
    """The board's policies that no cpufreq domain of the profile names, when it has one only.

    A profile names its clusters by policy (``policy0``, ``policy4``: tegra194-cpufreq's one
    policy per cluster).  A kernel that gives each CPU a policy of its own (cppc_cpufreq on an
    SBSA/ACPI layout, a cpufreq-dt table without ``opp-shared``), a board chosen with
    ``--board`` for one no profile describes, or a cluster the profile's module lacks leaves
    policies no name matches: left out, their CPUs would run at full clock on a hot board.  The
    profile's only cpufreq domain is "the CPU", so it takes them where they share its caps
    (:func:`offered_caps`); one that does not is said and left alone.  A profile with two
    cpufreq domains (big.LITTLE described apart) keeps only what it names."""
    cpufreq = [d for d in board_domains if d.kind == "cpufreq"]
    if len(cpufreq) != 1 or not cpufreq[0].sysfs_names:
        return ()
    named = {n.lower() for n in cpufreq[0].sysfs_names}
    return tuple(p for p in inv.policies if p.name.lower() not in named)


def table_owners(
    table_hz: Sequence[int], bindings: Sequence[T], table_of: Callable[[T], Sequence[int]]
) -> list[T]:
    """The bindings whose hardware OPP table ``table_hz`` is exactly (session 29r's rule for a
    policy no domain names under a profile with two or more cpufreq domains, at start and mid-run
    alike): an equal table is one cluster's silicon (cpufreq-dt builds a policy's table from its
    CPUs' ``operating-points-v2`` node, shared by one cluster's CPUs:
    Documentation/devicetree/bindings/opp/opp-v2.yaml, drivers/cpufreq/cpufreq-dt.c), while a
    shared OPP proves nothing there (big and little tables overlap)."""
    mine = tuple(sorted(table_hz))
    return [b for b in bindings if mine and tuple(sorted(table_of(b))) == mine]


def unowned_line(name: str, table_hz: Sequence[int], matched: Sequence[str]) -> str:
    """Why a policy no domain names is left at the kernel's limits (none or several matched)."""
    mine = tuple(sorted(table_hz))
    which = (
        f"matches domains {' and '.join(matched)} alike" if matched else "matches no cpufreq domain's exactly"
    )
    table = f"{mine[0] / 1e6:g}..{mine[-1] / 1e6:g} MHz" if mine else "no OPP"
    return (
        f"no domain of this profile names {name}, and its OPP table ({len(mine)} OPPs, {table}) "
        f"{which}; its CPUs run at the kernel's limits (name it in the profile's sysfs_names)"
    )


def by_table(
    board_domains: Sequence[DomainProfile], inv: Inventory, bound: list[DomainBinding]
) -> tuple[list[DomainBinding], tuple[str, ...]]:
    """Session 30r: ``bound`` with the policies no cpufreq domain names, present at start, joined
    to the one domain whose hardware OPP table each offers exactly (:func:`table_owners`), under
    a profile with two or more cpufreq domains, every one of them naming its policies; and the
    lines of those none or several domains match (said once, never written).

    Session 29r took such a folder appearing mid-run by this rule (hw/lateclusters.py) while the
    same folder present at start was left alone: a per-CPU kernel's policies (cpufreq-dt without
    ``opp-shared``) that the profile does not name ran at full clock on a hot board for the run.
    A policy every CPU of which is offline at start (no table reads) is waited for in the first
    cpufreq domain's ``inactive`` and judged by the same rule when it comes online
    (hw/lateclusters.py ``_owner``).  A table is compared with the domain's members' common OPPs
    as bound from the named policies alone, so the order of the policies changes nothing."""
    cpufreq = [d for d in board_domains if d.kind == "cpufreq"]
    if len(cpufreq) < 2 or not all(d.sysfs_names for d in cpufreq):
        return bound, ()
    named = {n.lower() for d in cpufreq for n in d.sysfs_names}
    governed = [b for b in bound if b.domain.kind == "cpufreq"]
    if not governed:
        return bound, ()
    joined: dict[str, list[CpufreqPolicy]] = {}
    waiting: list[CpufreqPolicy] = []
    lines: list[str] = []
    for p in inv.policies:
        if p.name.lower() in named:
            continue
        if p.inactive:
            waiting.append(p)
            continue
        if p.error or p.read_only or p.not_own:
            lines.append(
                f"{p.name}, named by no domain of the profile, is left ungoverned ({p.error or p.read_only or p.not_own})"
            )
            continue
        owners = table_owners(p.table_hz, governed, lambda b: b.hw_table_hz)
        if len(owners) == 1:
            joined.setdefault(owners[0].domain.name, []).append(p)
        else:
            lines.append(unowned_line(p.name, p.table_hz, [b.domain.name for b in owners]))
    out = []
    for b in bound:
        if b.domain.kind == "cpufreq" and b is governed[0] and waiting:
            b = dataclasses.replace(
                b,
                inactive=b.inactive + tuple(p.name for p in waiting),
                skipped=b.skipped
                + tuple(
                    f"{p.name}, named by no domain of the profile: {p.inactive}; joins the domain whose "
                    "OPP table it offers exactly if it comes online"
                    for p in waiting
                ),
            )
        more = joined.get(b.domain.name, []) if b.domain.kind == "cpufreq" else []
        if more:
            files = b.files + tuple(LimitFiles(p.name, p.min_rel, p.max_rel, p.cur_rel, 1000) for p in more)
            b = dataclasses.replace(b, files=files, source="+".join(f.label for f in files))
        out.append(b)
    return out, tuple(lines)


def takes_unnamed_policies(board_domains: tuple[DomainProfile, ...]) -> bool:
    """Whether the profile's cpufreq domain takes every policy no domain names (one cpufreq domain
    only: :func:`unnamed_policies`; one with no ``sysfs_names`` takes every policy anyway)."""
    return sum(d.kind == "cpufreq" for d in board_domains) == 1


def absent_policies(d: DomainProfile, inv: Inventory) -> tuple[str, ...]:
    """The policies a cpufreq domain lists by name (``policyN``) that have no folder at start.

    A cpufreq driver loaded as a module after the unit started, or a kernel that removes a
    policy's folder with its last CPU, leaves them out of the tree: they are looked at once a
    second and governed when they appear (hw/lateclusters.py).  Only ``policyN`` names: they are
    path components."""
    have = {p.name.lower() for p in inv.policies}
    return tuple(n for n in d.sysfs_names if _POLICY.fullmatch(n) and n.lower() not in have)


_POLICY = re.compile(r"policy\d+")


def offline_binding(d: DomainProfile, inv: Inventory) -> DomainBinding | None:
    """The binding of a domain with nothing to write at start that is governed later, else None.

    A cpufreq domain whose every listed policy is inactive or absent, at least one inactive:
    nothing of such a policy reads (EBUSY), not even its OPP table, so the domain's table is
    the profile's OPPs until a policy joins; a policy joins only if it shares one of them
    (:func:`offered_caps`, the rule for any late cluster).  A domain whose every policy is
    absent is not one: no cpufreq folder the profile names is a wrong profile or root more often
    than a driver still loading, and a board none of whose domains exists stays refused.
    A devfreq domain the profile names (``sysfs_names``) whose device is not in the tree: its
    driver may probe after the unit started (a Jetson GPU), and it is adopted then by those
    names only (hw/latedevfreq.py); one with a device present but broken stays missing."""
    if d.kind != "cpufreq":
        if not d.sysfs_names or _devfreq_matches(d, inv):
            return None
        names = tuple(d.sysfs_names)
        return DomainBinding(d, (), tuple(sorted(d.opp_hz)), f"{'/'.join(names)} (absent)", absent=names)
    wanted = {n.lower() for n in d.sysfs_names}
    pols = [p for p in inv.policies if not wanted or p.name.lower() in wanted]
    if not pols or not all(p.inactive for p in pols):
        return None
    names = tuple(p.name for p in pols)
    gone = absent_policies(d, inv)
    return DomainBinding(d, (), tuple(sorted(d.opp_hz)), f"{'+'.join(names)} (offline)", (), names, gone)


def offered_caps(p: CpufreqPolicy, d: DomainProfile) -> set[int]:
    """The caps a policy takes: its OPP table, or, for a driver that lists none (only
    ``cpuinfo_min_freq``/``cpuinfo_max_freq``: intel_pstate, CPPC), the profile's OPPs between
    the two as well.  Such a policy takes any ``scaling_max_freq`` in that range (the cpufreq
    core turns it into a frequency QoS request; Documentation/admin-guide/pm/cpufreq.rst), and
    with its two ends alone a profile floor above ``cpuinfo_min_freq`` left one cap, the top:
    a hot board could not be capped at all (session 16)."""
    if p.table_source != "cpuinfo_min/max" or not p.table_hz:
        return set(p.table_hz)
    lo, hi = p.table_hz[0], p.table_hz[-1]
    return {lo, hi} | {f for f in d.opp_hz if lo <= f <= hi}


def _mhz_span(table_hz: Sequence[int]) -> str:
    return (
        f"{table_hz[0] / 1e6:g}..{table_hz[-1] / 1e6:g} MHz, {len(table_hz)} OPPs" if table_hz else "no OPP"
    )


def _devfreq_names(dev: DevfreqDevice) -> list[str]:
    names = [dev.name, dev.name.split(".", 1)[-1]]
    if dev.of_node:
        names.insert(0, dev.of_node)
    return names


def devfreq_named(d: DomainProfile, dev: DevfreqDevice) -> bool:
    """Whether a devfreq device is one the profile's domain names (its name, the part after the
    unit address, or its device-tree node); a device of another name is never bound."""
    wanted = {n.lower() for n in d.sysfs_names}
    return any(n.lower() in wanted for n in _devfreq_names(dev))


def _devfreq_matches(d: DomainProfile, inv: Inventory) -> list[DevfreqDevice]:
    if d.sysfs_names:
        return [x for x in inv.devfreqs if devfreq_named(d, x)]
    return [x for x in inv.devfreqs if x.is_gpu]


def _bind_devfreq(d: DomainProfile, inv: Inventory) -> DomainBinding | str:
    devs = _devfreq_matches(d, inv)
    if not devs:
        have = ", ".join(f"{x.name} (of_node {x.of_node or '?'})" for x in inv.devfreqs) or "none"
        return f"no devfreq device {'/'.join(d.sysfs_names) or 'GPU'} (devfreq: {have})"
    dev = devs[0]
    if dev.error:
        return dev.error
    files = (LimitFiles(dev.name, dev.min_rel, dev.max_rel, dev.cur_rel, 1),)
    return DomainBinding(d, files, dev.table_hz, f"{dev.name} (of_node {dev.of_node or '?'})")


def with_found_battery(board: BoardProfile, inv: Inventory) -> BoardProfile:
    """The profile plus a ``battery`` sensor when the board has a Battery supply it does not list.

    Only a battery that reports ``temp`` is added (a mains-only board, or a fuel gauge without a
    thermistor, keeps the profile as it is).  The simulator-side node is the rest-of-board node,
    where the carrier and its pack sit in the thermal network, so the trip-hold check can
    weigh it like the other sensors.
    """
    if any(s.kind == "battery" or s.name == "battery" for s in board.sensors):
        return board
    if not any(p.type.lower() == "battery" and p.has_temp for p in inv.supplies):
        return board
    node = board.thermal.rest_of_board_node or board.thermal.nodes[-1].name
    found = SensorProfile(
        name="battery",
        weight=FOUND_BATTERY_WEIGHT,
        period_ms=FOUND_BATTERY_PERIOD_MS,
        hard_limit_c=FOUND_BATTERY_HARD_LIMIT_C,
        node=node,
        kind="battery",
    )
    return dataclasses.replace(board, sensors=(*board.sensors, found))


def map_board(inv: Inventory, board: BoardProfile) -> BoardMap:
    """Bind the profile (plus a found battery, :func:`with_found_battery`) to this tree."""
    listed = {s.name for s in board.sensors}
    board = with_found_battery(board, inv)
    found = tuple(s.name for s in board.sensors if s.name not in listed)
    sensors, missing_s = [], {}
    for s in board.sensors:
        b = _bind_sensor(s, inv)
        if isinstance(b, str):
            missing_s[s.name] = b
        else:
            sensors.append(b)
    domains, missing_d, offline = [], {}, []
    unnamed = unnamed_policies(tuple(board.domains), inv)
    takes = takes_unnamed_policies(tuple(board.domains))
    for d in board.domains:
        db = (
            _bind_cpufreq(d, inv, unnamed, takes_unnamed=takes)
            if d.kind == "cpufreq"
            else _bind_devfreq(d, inv)
        )
        if isinstance(db, str):
            missing_d[d.name] = db
            later = offline_binding(d, inv)
            if later is not None:
                offline.append(later)
        else:
            domains.append(db)
    domains, unowned = by_table(tuple(board.domains), inv, domains)
    power = None
    rails = (*(r for h in inv.hwmons for r in h.rails), *inv.iio_rails)
    for label in input_rails(board):  # the profile's order: the first label found wins
        power = power or next((r for r in rails if r.label.upper() == label and _has_input(r)), None)
    return BoardMap(
        board,
        tuple(sensors),
        tuple(domains),
        missing_s,
        missing_d,
        power,
        _summed(board, rails),
        found,
        tuple(inv.supplies),
        tuple(offline),
        unowned,
    )


def _has_input(r: PowerRail) -> bool:
    return bool(r.power_rel or (r.volt_rel and r.curr_rel))


def _summed(board: BoardProfile, rails: Sequence[PowerRail]) -> tuple[PowerRail, ...]:
    """The profile's ``summed_rails`` bound in its order (first of each label with an input),
    or none at all if any is absent: a partial sum is no board's power."""
    if not board.no_input_rail:
        return ()
    found = [
        next((r for r in rails if r.label.upper() == label.upper() and _has_input(r)), None)
        for label in board.summed_rails
    ]
    return tuple(r for r in found if r is not None) if all(found) else ()


def governed_table(hw_table_hz: Sequence[int], floor_hz: int, ceiling_hz: int | None) -> tuple[int, ...]:
    """The caps thermogov may set: hardware OPPs from the profile's floor up to the limit in force.

    The floor is the profile's lowest OPP: below it clocks are fake (a Pi 5 lists 1.0 GHz but
    runs 1.5 GHz) or pointless.  The ceiling is the max found at start, so thermogov only ever
    lowers what nvpmodel / jetson_clocks / the administrator allowed, never raises it.  If the
    profile floor is above every OPP, the whole hardware table is used (doctor shows it).
    """
    top = ceiling_hz if ceiling_hz is not None else max(hw_table_hz, default=0)
    table = tuple(f for f in hw_table_hz if floor_hz <= f <= top)
    if not table:
        table = tuple(f for f in hw_table_hz if f <= top) or tuple(hw_table_hz)
    return table


def renormalised_weights(specs: Sequence[SensorSpec], present: Iterable[str]) -> dict[str, float]:
    """Fusion weights once the missing sensors drop out (what fusion does at every tick)."""
    have = set(present)
    used = [s for s in specs if s.name in have]
    total = sum(s.weight for s in used)
    return {s.name: (s.weight / total if total else 0.0) for s in used}
