"""User configuration: TOML -> frozen dataclasses, strictly validated.

One file describes a run on either world: which board, which policy and its parameters, the
governor's timing, per-sensor overrides of the board profile, and (for the simulator) the
scenario.  Unknown keys and out-of-range values are rejected with one line naming the key;
nothing touches hardware before the whole configuration has validated.  The resolved form
(:meth:`Config.to_dict`) is written into every run folder, so ``--config run/config.toml``
reproduces the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from thermogov import tomlread
from thermogov.board import BoardProfile, load_board, load_board_file
from thermogov.fanconfig import FanConfig, parse_fan
from thermogov.fusion import SensorSpec
from thermogov.interfaces import ConfigError
from thermogov.lever import LeverConfig, parse_lever
from thermogov.modes import ModesConfig, default_modes, parse_modes
from thermogov.policies import DEFAULT_POLICY, Policy, PolicyContext, check_policy_name, configured_policy
from thermogov.powerconfig import PowerConfig, parse_power
from thermogov.tomlcheck import Table
from thermogov.units import MAX_DURATION_S, parse_duration_s

DEFAULT_BOARD = "jetson-orin-nano"

# Stated ranges of the numbers that decide when the failsafe fires.  They are the bounds of a
# sane setting, not tuned values: losing every sensor must reach the lowest caps within seconds,
# so freshness may span at most 100 sensor periods and the unknown-temperature grace 10 s.
MAX_STALE_PERIODS = 100.0
MAX_UNKNOWN_GRACE_MS = 10_000
MAX_STUCK_AFTER_S = 3600.0
MAX_WRITE_FAILURES = 100
MAX_SEED = 2**32 - 1  # numpy's legacy seeding and most PRNGs take 32 bits
MAX_SENSOR_WEIGHT = 1000.0


@dataclass(frozen=True, slots=True)
class SensorOverride:
    weight: float | None = None
    period_ms: int | None = None
    hard_limit_c: float | None = None
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class WorkloadConfig:
    """Inference arrivals: ``saturating`` (a frame always waiting), ``poisson`` or ``bursty``."""

    kind: str = "saturating"
    rate_ips: float = 100.0  # mean arrival rate for poisson/bursty
    burst_factor: float = 3.0  # bursty: rate multiplier during bursts
    burst_period_s: float = 20.0  # bursty: one burst per period
    burst_duty: float = 0.3  # bursty: fraction of the period in burst
    batch_size: int = 1
    max_wait_ms: float = 0.0  # batching: dispatch a partial batch after this wait
    queue_limit: int = 64  # frames beyond this wait are dropped (a camera does not queue forever)
    batching: str = "static"  # "static" (fixed batch_size) or "dynamic" (size from queue depth)
    service_spread: str = "measured"  # per-request service-time spread: "measured" or "none"
    service_cv: float | None = None  # override the spread's coefficient of variation
    service_tail_prob: float | None = None  # override the slow mode's share of requests
    service_tail_factor: float | None = None  # override how much slower the slow mode is


EVENT_KINDS = (
    "ambient",
    "ambient_link",
    "sensor_dropout",
    "sensor_stuck",
    "sensor_spike",
    "plugged",
    "unplugged",
    "on_the_move",
    "fan_stall",
)
SUPPLY_EVENTS = ("plugged", "unplugged", "on_the_move")  # need no target; the board's battery


@dataclass(frozen=True, slots=True)
class SimEvent:
    """Something that happens to the simulated world mid-run (what-if and fault scenarios).

    ``ambient``: ambient becomes ``value`` °C.  ``ambient_link``: node ``target``'s conductance
    to ambient is multiplied by ``value`` (a fan failing: < 1).  ``sensor_dropout``: sensor
    ``target`` fails every read for ``duration_s``.  ``sensor_stuck``: it repeats its last value
    for ``duration_s``.  ``sensor_spike``: its next read is off by ``value`` °C, once.
    Charging schedules (boards with a battery): ``plugged``: a charger of ``value`` W (0: big
    enough) powers the board and charges the pack; ``unplugged``: the pack powers the board;
    ``on_the_move``: unplugged, and ``value`` W more (motors) drawn from the same pack.
    ``fan_stall``: the board's fan stops moving air (it still reads back its level).
    """

    at_s: float
    kind: str
    target: str = ""
    value: float = 0.0
    duration_s: float = 0.0


@dataclass(frozen=True, slots=True)
class SimConfig:
    duration_s: float = 600.0
    ambient_c: float = 25.0
    steady_fraction: float = 0.5  # sustained throughput = last fraction of the run
    workload: WorkloadConfig = field(default_factory=WorkloadConfig)
    scenario: str = ""
    initial_temp_c: float | None = None  # start every node here (default: at ambient)
    initial_soc: float | None = None  # battery state of charge at start, 0..1 (default: the profile's)
    events: tuple[SimEvent, ...] = ()


@dataclass(frozen=True, slots=True)
class GovernorConfig:
    control_period_ms: int = 100
    stale_periods: float = 3.0
    unknown_grace_ms: int = 0
    max_write_failures: int = 3
    stuck_after_s: float = 60.0  # a sensor frozen this long while clocks/load change has failed


@dataclass(frozen=True, slots=True)
class Config:
    board: str = DEFAULT_BOARD
    board_file: str = ""
    policy: str = DEFAULT_POLICY
    seed: int = 1
    out: str = "traces"
    governor: GovernorConfig = field(default_factory=GovernorConfig)
    sensors: dict[str, SensorOverride] = field(default_factory=dict)
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)  # policy name -> params
    sim: SimConfig = field(default_factory=SimConfig)
    power: PowerConfig = field(default_factory=PowerConfig)  # budgets, Li-ion limits
    modes: ModesConfig = field(default_factory=default_modes)  # inference modes (thermogov.modes)
    lever: LeverConfig = field(default_factory=LeverConfig)  # load below the lowest clock
    fan: FanConfig = field(default_factory=FanConfig)  # [run] fan + [fan]: who drives the fan
    # The file this config was read from ("" when built in code): errors found later, when the
    # policy is built against the board, name it as load-time errors do.  Not part of the
    # config's value (equality, to_dict): the same settings from another file are the same run.
    source: str = field(default="", compare=False)
    # Whether the file named ``[run] board`` itself (not the default): only a board the user
    # chose stands in for a device-tree model that matches no profile (hw/mapping.py,
    # ``unmatched_model``).  Not part of the config's value either.
    board_given: bool = field(default=False, compare=False)

    # -- resolution against the board -------------------------------------------------------
    def load_board(self) -> BoardProfile:
        if self.board_file:
            return load_board_file(Path(self.board_file))
        try:
            return load_board(self.board)
        except ConfigError as e:  # "board: unknown board ...": say which file and key set it
            if not self.source:
                raise
            raise ConfigError(f"{self.source}: run.{e}") from e

    def sensor_specs(self, board: BoardProfile) -> tuple[SensorSpec, ...]:
        # Checked only once the board is known (at run time): name the file, as a load-time error does.
        where = f"{self.source}: " if self.source else ""
        for name in self.sensors:
            if name not in {s.name for s in board.sensors}:
                known = ", ".join(s.name for s in board.sensors)
                raise ConfigError(
                    f"{where}sensors.{name}: board {board.name} has no such sensor; known: {known}"
                    " (rename or remove the table)"
                )
        specs = []
        for s in board.sensors:
            o = self.sensors.get(s.name, SensorOverride())
            if not o.enabled:
                continue
            specs.append(
                SensorSpec(
                    name=s.name,
                    weight=o.weight if o.weight is not None else s.weight,
                    period_ms=o.period_ms if o.period_ms is not None else s.period_ms,
                    hard_limit_c=o.hard_limit_c if o.hard_limit_c is not None else s.hard_limit_c,
                    stale_periods=self.governor.stale_periods,
                    kind=s.kind,
                )
            )
        if not specs:
            raise ConfigError(f"{where}sensors: every sensor is disabled; enable at least one")
        return tuple(specs)

    def policy_params(self, policy: str | None = None) -> Table:
        name = (policy or self.policy).partition(":")[0]
        return Table(dict(self.policies.get(name, {})), self.policy_where(name))

    def make_policy(self, ctx: PolicyContext, spec: str | None = None) -> Policy:
        """``configured_policy`` of ``spec`` (default: the run's policy) over this config's
        ``[policies.*]`` sections; a parameter's error names the file they came from."""
        try:
            return configured_policy(spec or self.policy, self.policies, ctx)
        except ConfigError as e:
            if not self.source or str(e).startswith(f"{self.source}: "):
                raise
            raise ConfigError(f"{self.source}: {e}") from e

    def policy_where(self, name: str) -> str:
        """How a policy's parameter table is named in errors: with the file it came from, so
        ``thermogov run``'s late check of a parameter says which file to edit."""
        return f"{self.source}: policies.{name}" if self.source else f"policies.{name}"

    def to_dict(self) -> dict[str, Any]:
        w = self.sim.workload
        d: dict[str, Any] = {
            "run": {
                "board": self.board,
                "board_file": self.board_file,
                "policy": self.policy,
                "seed": self.seed,
                "out": self.out,
                **({"fan": self.fan.owner} if self.fan.governed else {}),
            },
            "governor": {
                "control_period_ms": self.governor.control_period_ms,
                "stale_periods": self.governor.stale_periods,
                "unknown_grace_ms": self.governor.unknown_grace_ms,
                "max_write_failures": self.governor.max_write_failures,
                "stuck_after_s": self.governor.stuck_after_s,
            },
            "sim": {
                "duration_s": self.sim.duration_s,
                "ambient_c": self.sim.ambient_c,
                "steady_fraction": self.sim.steady_fraction,
                "scenario": self.sim.scenario,
                **(
                    {"initial_temp_c": self.sim.initial_temp_c} if self.sim.initial_temp_c is not None else {}
                ),
                **({"initial_soc": self.sim.initial_soc} if self.sim.initial_soc is not None else {}),
                "workload": {
                    "kind": w.kind,
                    "rate_ips": w.rate_ips,
                    "burst_factor": w.burst_factor,
                    "burst_period_s": w.burst_period_s,
                    "burst_duty": w.burst_duty,
                    "batch_size": w.batch_size,
                    "max_wait_ms": w.max_wait_ms,
                    "queue_limit": w.queue_limit,
                    "batching": w.batching,
                    "service_spread": w.service_spread,
                    **{
                        k: v
                        for k, v in (
                            ("service_cv", w.service_cv),
                            ("service_tail_prob", w.service_tail_prob),
                            ("service_tail_factor", w.service_tail_factor),
                        )
                        if v is not None
                    },
                },
            },
        }
        d["power"] = self.power.to_dict()
        d["modes"] = self.modes.to_dict()
        d["lever"] = self.lever.to_dict()
        if self.fan.governed:
            d["fan"] = self.fan.to_dict()
        if self.sim.events:
            d["sim"]["events"] = [
                {
                    "at_s": e.at_s,
                    "kind": e.kind,
                    "target": e.target,
                    "value": e.value,
                    "duration_s": e.duration_s,
                }
                for e in self.sim.events
            ]
        sensors = {}
        for name, o in self.sensors.items():
            s: dict[str, Any] = {"enabled": o.enabled}
            if o.weight is not None:
                s["weight"] = o.weight
            if o.period_ms is not None:
                s["period_ms"] = o.period_ms
            if o.hard_limit_c is not None:
                s["hard_limit_c"] = o.hard_limit_c
            sensors[name] = s
        if sensors:
            d["sensors"] = sensors
        if self.policies:
            d["policies"] = {k: dict(v) for k, v in self.policies.items()}
        return d

    def with_absolute_paths(self) -> Config:
        """The same config with a relative ``board_file`` / ``out`` made absolute from the working
        folder, where they were used: the run folder's ``config.toml`` is read back relative to
        that folder (:func:`load_config`), and must name the same files."""
        return replace(
            self,
            board_file=os.path.abspath(self.board_file) if self.board_file else "",
            out=os.path.abspath(self.out) if self.out else self.out,
        )

    def resolved(self, board: BoardProfile) -> Config:
        """The same config with every sensor's effective values written out explicitly."""
        specs = {s.name: s for s in self.sensor_specs(board)}
        sensors = {}
        for s in board.sensors:
            if s.name in specs:
                sp = specs[s.name]
                sensors[s.name] = SensorOverride(sp.weight, sp.period_ms, sp.hard_limit_c, True)
            else:
                sensors[s.name] = SensorOverride(enabled=False)
        return replace(self, sensors=sensors)


def _workload(t: Table) -> WorkloadConfig:
    d = WorkloadConfig()
    w = WorkloadConfig(
        kind=t.choice("kind", ("saturating", "poisson", "bursty"), d.kind),
        rate_ips=t.number("rate_ips", d.rate_ips, minimum=0.0, exclusive_min=True, maximum=1e6),
        burst_factor=t.number("burst_factor", d.burst_factor, minimum=1.0, maximum=1000.0),
        burst_period_s=t.number(
            "burst_period_s", d.burst_period_s, minimum=0.0, exclusive_min=True, maximum=MAX_DURATION_S
        ),
        burst_duty=t.number("burst_duty", d.burst_duty, minimum=0.0, maximum=1.0),
        batch_size=t.integer("batch_size", d.batch_size, minimum=1, maximum=256),
        max_wait_ms=t.number("max_wait_ms", d.max_wait_ms, minimum=0.0, maximum=3_600_000.0),
        queue_limit=t.integer("queue_limit", d.queue_limit, minimum=1, maximum=1_000_000),
        batching=t.choice("batching", ("static", "dynamic"), d.batching),
        service_spread=t.choice("service_spread", ("measured", "none"), d.service_spread),
        service_cv=t.number("service_cv", minimum=0.0, maximum=2.0) if t.has("service_cv") else None,
        service_tail_prob=t.number("service_tail_prob", minimum=0.0, maximum=0.5)
        if t.has("service_tail_prob")
        else None,
        service_tail_factor=t.number("service_tail_factor", minimum=1.0, maximum=100.0)
        if t.has("service_tail_factor")
        else None,
    )
    t.done()
    return w


def _event(t: Table) -> SimEvent:
    e = SimEvent(
        at_s=t.number("at_s", minimum=0.0, maximum=MAX_DURATION_S),
        kind=t.choice("kind", EVENT_KINDS),
        target=t.string("target", ""),
        value=t.number("value", 0.0, minimum=-1000.0, maximum=1000.0),  # °C or a conductance factor
        duration_s=t.number("duration_s", 0.0, minimum=0.0, maximum=MAX_DURATION_S),
    )
    if e.kind not in ("ambient", "fan_stall") and e.kind not in SUPPLY_EVENTS and not e.target:
        raise ConfigError(f"{t.where}.target: a {e.kind} event needs a target (node or sensor name)")
    t.done()
    return e


def parse_config(data: dict[str, Any], where: str = "config") -> Config:
    top = Table(data, "")
    d = Config()
    run = top.table("run", {})
    board = run.string("board", d.board)
    if not board.strip():  # `run` took it as no board (detect) and `sim` as "unknown board ''" (32h)
        raise ConfigError("run.board: empty; give a board name (see `thermogov boards`) or leave the key out")
    board_file = run.string("board_file", d.board_file)
    if any(ord(c) < 32 or ord(c) == 127 for c in board_file):  # a NUL was an internal error at open
        raise ConfigError(
            f"run.board_file: {board_file!r} holds a control character (NUL, newline, tab ...); "
            "give the path of a board TOML file"
        )
    policy = run.string("policy", d.policy)
    check_policy_name(policy, "run.policy")
    seed = run.integer("seed", d.seed, minimum=0, maximum=MAX_SEED)
    out = run.string("out", d.out)
    fan_owner = run.string("fan", d.fan.owner)
    run.done()
    fan = parse_fan(fan_owner, top.table("fan", {}))

    g = top.table("governor", {})
    gov = GovernorConfig(
        control_period_ms=g.integer("control_period_ms", 100, minimum=1, maximum=60_000),
        stale_periods=g.number("stale_periods", 3.0, minimum=1.0, maximum=MAX_STALE_PERIODS),
        unknown_grace_ms=g.integer("unknown_grace_ms", 0, minimum=0, maximum=MAX_UNKNOWN_GRACE_MS),
        max_write_failures=g.integer("max_write_failures", 3, minimum=1, maximum=MAX_WRITE_FAILURES),
        stuck_after_s=g.number("stuck_after_s", 60.0, minimum=1.0, maximum=MAX_STUCK_AFTER_S),
    )
    g.done()

    sensors = {}
    for name, t in top.tables("sensors"):
        sensors[name] = SensorOverride(
            weight=t.number("weight", minimum=0.0, exclusive_min=True, maximum=MAX_SENSOR_WEIGHT)
            if t.has("weight")
            else None,
            period_ms=t.integer("period_ms", minimum=1, maximum=60_000) if t.has("period_ms") else None,
            hard_limit_c=t.number("hard_limit_c", minimum=-40.0, maximum=150.0)
            if t.has("hard_limit_c")
            else None,
            enabled=t.boolean("enabled", True),
        )
        t.done()

    policies = {name: dict(t._data) for name, t in top.tables("policies")}

    power = parse_power(top.table("power", {}))
    modes = parse_modes(top.table("modes", {}))
    lever = parse_lever(top.table("lever", {}))

    s = top.table("sim", {})
    sd = SimConfig()
    duration = parse_duration_s(s.raw("duration_s", sd.duration_s), "sim.duration_s")
    sim = SimConfig(
        duration_s=duration,
        ambient_c=s.number("ambient_c", sd.ambient_c, minimum=-40.0, maximum=85.0),
        steady_fraction=s.number(
            "steady_fraction", sd.steady_fraction, minimum=0.0, maximum=1.0, exclusive_min=True
        ),
        scenario=s.string("scenario", ""),
        workload=_workload(s.table("workload", {})),
        initial_temp_c=s.number("initial_temp_c", minimum=-40.0, maximum=150.0)
        if s.has("initial_temp_c")
        else None,
        initial_soc=s.number("initial_soc", minimum=0.0, maximum=1.0, exclusive_min=True)
        if s.has("initial_soc")
        else None,
        events=tuple(_event(t) for t in s.table_list("events")),
    )
    s.done()
    top.done()
    return Config(
        board=board,
        board_given=run.has("board"),
        board_file=board_file,
        policy=policy,
        seed=seed,
        out=out,
        governor=gov,
        sensors=sensors,
        policies=policies,
        sim=sim,
        power=power,
        modes=modes,
        lever=lever,
        fan=fan,
    )


# Keys of a config file that hold a path.  A relative one is read relative to the folder of the
# file that names it, as git (``include.path``), systemd (``.d/`` drop-ins) and nginx's
# ``include`` read theirs, so a config works from any working folder (systemd starts the daemon
# in /var/lib/thermogov; a user runs ``thermogov sim --config ~/exp/a.toml`` from anywhere).
# An absolute path, or a key the file does not set, is left as it is; ``~`` is the home folder.
PATH_KEYS = (("run", "board_file"), ("run", "out"))


def _paths_from(data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``data`` with each relative path of :data:`PATH_KEYS` made absolute from ``folder``.

    Absolute, not merely joined: the resolved config is written into each run folder, and
    ``--config run/config.toml`` must find the same files from wherever it is read.
    """
    out = dict(data)
    for table, key in PATH_KEYS:
        t = out.get(table)
        if not isinstance(t, dict) or not isinstance(t.get(key), str) or not t[key]:
            continue  # absent, or a wrong type parse_config names
        path = os.path.expanduser(t[key])  # "~/runs" names a home folder, never a folder "~"
        if not Path(path).is_absolute():
            path = os.path.abspath(folder / path)
        out[table] = {**t, key: path}
    return out


def load_config(path: Path | str) -> Config:
    """The config in ``path``; its relative paths are relative to it (:data:`PATH_KEYS`)."""
    p = Path(path)
    data = tomlread.load_file(p, "config")
    try:
        cfg = parse_config(_paths_from(data, p.parent), str(p))
    except ConfigError as e:
        raise ConfigError(f"{p}: {e}") from e
    return replace(cfg, source=str(p))
