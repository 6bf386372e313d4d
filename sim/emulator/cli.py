"""``thermogov emulate``: a simulated board behind a fake sysfs tree (see :mod:`.emulate`)."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import signal
from pathlib import Path

import click

from thermogov.cliopts import GivenPath
from thermogov.config import Config
from thermogov.interfaces import ConfigError, ThermogovError
from thermogov.sim.emulator.emulate import MAX_SPEED, MIN_SPEED, Emulator, check_speed


@click.command("emulate")
@click.option(
    "--board",
    default="jetson-orin-nano",
    show_default=True,
    help="Board profile to emulate: a built-in name (see `thermogov boards`) or a board TOML file "
    "(e.g. from calibrate; one whose name has no tree shape gets no trip points and no rails).",
)
@click.option(
    "--sysfs-root", required=True, type=GivenPath(file_okay=False), help="Folder to build the tree in."
)
@click.option(
    "--speed",
    type=click.FloatRange(MIN_SPEED, MAX_SPEED),
    metavar="FLOAT",
    default=1.0,
    show_default=True,
    help=f"Simulated seconds per wall second, {MIN_SPEED:g} <= speed <= {MAX_SPEED:g}. 1 is real time, what a "
    "daemon on a board sees; faster runs minutes of board time in seconds (the daemon's own "
    "trace stays in wall time).",
)
@click.option(
    "--wall-duration",
    help="Wall-clock time to run (600, 10m, 1h); board time is this times --speed. Default: until Ctrl-C.",
)
@click.option("--duration", "old_duration", hidden=True, help="Deprecated name of --wall-duration.")
@click.option("--ambient", type=float, default=25.0, show_default=True, help="Ambient temperature, °C.")
@click.option(
    "--initial-temp", type=float, help="Start every node at this temperature (default: idle steady state)."
)
@click.option(
    "--warm-up",
    help="Board time to run flat out before the tree goes live (90s, 5m; 0: none, the default): start "
    "hot without waiting.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed (sensor noise, load).")
def emulate_command(
    board: str,
    sysfs_root: str,
    speed: float,
    wall_duration: str | None,
    old_duration: str | None,
    ambient: float,
    initial_temp: float | None,
    warm_up: str | None,
    seed: int,
) -> None:
    """Emulate a board behind a fake sysfs tree for `thermogov run --sysfs-root`.

    The tree is shaped like the board's own (thermal zones with their trip points, cpufreq and
    devfreq with the OPPs the kernel lists, power rails).  When the simulated board shuts down
    (critical trip, empty battery) the emulator says so in one line, marks the tree
    POWERED_OFF, removes its sensors and exits 1; a stop (Ctrl-C, --wall-duration) marks it too
    and exits 0.

    \b
    Example:
      thermogov emulate --board rpi5 --sysfs-root /tmp/pi5 &
      thermogov run --sysfs-root /tmp/pi5 --dry-run
      thermogov emulate --sysfs-root /tmp/orin --speed 10 --wall-duration 10m &
      sudo thermogov run --sysfs-root /tmp/orin --board jetson-orin-nano --duration 5m
    """
    from thermogov.cliopts import load_board_option
    from thermogov.units import parse_duration_or_zero_s, parse_duration_s

    check_speed(speed)
    for opt_name, value, lo, hi in (
        ("--ambient", ambient, -40.0, 60.0),
        ("--initial-temp", initial_temp, -40.0, 150.0),
    ):
        if value is not None and not (math.isfinite(value) and lo <= value <= hi):
            raise ConfigError(f"{opt_name}: {value:g} is out of range; give °C from {lo:g} to {hi:g}")
    # Given is judged, "" too (it ran until Ctrl-C, as with no --wall-duration: hostile 27h).
    if old_duration is not None and wall_duration is not None:
        raise ConfigError("--duration: deprecated alias of --wall-duration; give only --wall-duration")
    text, opt = (
        (wall_duration, "--wall-duration") if wall_duration is not None else (old_duration, "--duration")
    )
    wall = parse_duration_s(text, opt) if text is not None else None
    if old_duration is not None:
        click.echo("thermogov: emulate --duration is deprecated; use --wall-duration", err=True)
    # 0 in any unit is no warm-up, the default, as ``ab --cool-down 0`` is no cool-down (32h: it
    # was "must be a positive duration"); a warm-up under 1 ms is refused as every duration is.
    warm = parse_duration_or_zero_s(warm_up, "--warm-up") if warm_up is not None else 0.0
    profile = load_board_option(board)
    base = Config(board=profile.name, seed=seed)
    cfg = dataclasses.replace(
        base, sim=dataclasses.replace(base.sim, ambient_c=ambient, initial_temp_c=initial_temp)
    )
    root = Path(sysfs_root)
    try:
        emu = Emulator(profile, root, cfg, speed, warm)
    except OSError as e:
        raise ThermogovError(f"--sysfs-root: cannot build the tree in {root} ({e.strerror})") from e
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: emu.stop.set())
    click.echo(f"emulating {profile.name} under {root} at {speed:g}x; ready", err=False)
    try:
        reached = emu.run(wall)
    except OSError as e:  # the tree was removed or made unwritable under us
        why = f"cannot update {e.filename or root} ({e.strerror})"
        with contextlib.suppress(OSError):
            emu.power_off(why)
        click.echo(f"thermogov: emulator failed: {why}; the emulated board is gone", err=True)
        raise click.exceptions.Exit(1) from None
    world = emu.world
    if world.shutdown_at is not None:
        why = f"{world.shutdown_reason} after {world.shutdown_at:.1f} s of board time"
        emu.power_off(why)
        click.echo(
            f"thermogov: emulated {profile.name} powered off: {why}; {root} is marked POWERED_OFF", err=True
        )
        raise click.exceptions.Exit(1)
    emu.power_off(f"emulator stopped after {reached:.1f} s of board time")
    click.echo(f"emulated {reached:.1f} s of board time (stopped); {root} is marked POWERED_OFF")
