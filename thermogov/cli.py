"""``thermogov`` command line: the one composition root.

Each command imports the world it needs inside itself (``thermogov sim`` pulls in SimPy,
``thermogov run`` the sysfs backend), so ``thermogov run`` on a Pi never loads the simulator,
pandas or matplotlib.  Commands that live in ``sim``/``hw`` are registered lazily by dotted
path.  :func:`main` holds the exit-status contract of every command (see its docstring).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, NoReturn

import click

from thermogov.clinumbers import harden
from thermogov.exitstatus import INTERRUPTED, failure_status, one_line
from thermogov.interfaces import RuntimeFailure, ThermogovError

LAZY_COMMANDS = {
    "sim": ("thermogov.sim.cli", "sim_command"),
    "run": ("thermogov.hw.cli", "run_command"),
    "ab": ("thermogov.hw.cli", "ab_command"),
    "doctor": ("thermogov.hw.cli", "doctor_command"),
    "restore": ("thermogov.hw.cli", "restore_command"),
    "status": ("thermogov.hw.cli", "status_command"),
    "service": ("thermogov.hw.cli", "service_command"),
    "emulate": ("thermogov.sim.emulator.cli", "emulate_command"),
    "compare": ("thermogov.sim.compare.cli", "compare_command"),
    "sweep": ("thermogov.sim.sweep.cli", "sweep_command"),
    "plot": ("thermogov.plotting.cli", "plot_command"),
    "import": ("thermogov.importers.cli", "import_command"),
    "calibrate": ("thermogov.sim.calibration.cli", "calibrate_command"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        for name, (mod, _attr) in LAZY_COMMANDS.items():
            if importlib.util.find_spec(mod) is not None:
                names.add(name)
        return sorted(names)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = self._get_command(ctx, name)
        return harden(cmd) if cmd is not None else None

    def _get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in LAZY_COMMANDS:
            return cmd
        mod, attr = LAZY_COMMANDS[name]
        try:
            module = importlib.import_module(mod)
        except ModuleNotFoundError:
            return None
        return getattr(module, attr, None)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="""\b
Example:
  thermogov sim --board rpi5 --duration 10m
  thermogov plot traces/<run folder>""",
)
@click.version_option(package_name="thermogov")
def cli() -> None:
    """Thermal- and power-aware DVFS governor for edge AI boards.

    The same governor runs against a simulated board (`thermogov sim`) and a real one
    (`sudo thermogov run`); both record the same run folder.
    """


@cli.command(
    "boards",
    epilog="""\b
Example:
  thermogov boards --json""",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def boards_command(as_json: bool) -> None:
    """List the built-in board profiles with their sensors, domains and OPPs."""
    from thermogov.board import builtin_board_names, load_board

    rows: list[dict[str, Any]] = []
    for name in builtin_board_names():
        b = load_board(name)
        rows.append(
            {
                "name": b.name,
                "description": b.description,
                "sensors": [
                    {
                        "name": s.name,
                        "weight": s.weight,
                        "period_ms": s.period_ms,
                        "hard_limit_c": s.hard_limit_c,
                    }
                    for s in b.sensors
                ],
                "domains": [
                    {"name": d.name, "kind": d.kind, "opp_mhz": [round(f / 1e6, 1) for f in d.opp_hz]}
                    for d in b.domains
                ],
                "protections": [p.source or p.kind for p in b.protections],
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        click.echo(f"{r['name']}: {r['description']}")
        for s in r["sensors"]:
            click.echo(
                f"  sensor {s['name']:<8} weight {s['weight']:<4g} every {s['period_ms']} ms, "
                f"hard limit {s['hard_limit_c']:g} °C"
            )
        for d in r["domains"]:
            opps = ", ".join(f"{f:g}" for f in d["opp_mhz"])
            click.echo(f"  domain {d['name']:<8} {d['kind']:<8} OPPs (MHz): {opps}")
        for p in r["protections"]:
            click.echo(f"  protection: {p}")


def main(argv: list[str] | None = None) -> NoReturn:
    """Run one command and exit with the status contract of every command.

    0 done; 2 bad input or usage (:class:`ThermogovError` or a click usage error, one line);
    1 a runtime failure (:class:`RuntimeFailure`, or an unexpected exception, one line);
    130 interrupted (Ctrl-C).  Never a traceback unless ``THERMOGOV_DEBUG=1``.
    """
    sys.exit(run_main(argv))


def run_main(argv: list[str] | None = None) -> int:
    """The exit status of one command; every failure is reported as one line on stderr."""
    try:
        rv = cli.main(args=argv, prog_name="thermogov", standalone_mode=False)
    except (ThermogovError, RuntimeFailure) as e:
        status, line = failure_status(e)
        return _fail(e, line, status)
    except (click.exceptions.Abort, KeyboardInterrupt) as e:
        return _fail(e, "interrupted", INTERRUPTED)
    except click.ClickException as e:
        return _fail(e, f"error: {usage_line(e)}", 2 if e.exit_code in (1, 2) else e.exit_code)
    except click.exceptions.Exit as e:
        return int(e.exit_code or 0)
    except OSError as e:
        # The environment failed under a command (disk full, I/O error): a runtime failure.
        named = _named_cause(e)
        where = f"{named.filename}: " if named is not None else ""
        return _fail(e, f"error: {where}{e.strerror or e}; check the disk and the path", 1)
    except Exception as e:
        # A bug: still one line and exit 1 (the daemon's ExitStack has restored the board by now).
        return _fail(
            e, f"internal error: {type(e).__name__}: {e}; rerun with THERMOGOV_DEBUG=1 and report it", 1
        )
    # click returns Exit codes in non-standalone mode instead of raising them.
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


def _named_cause(e: BaseException) -> OSError | None:
    """The first OSError naming a file in ``e``'s chain: SimPy re-raises a process's exception
    as a new one built from its ``args``, which drop the ``filename`` the writer put there."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, OSError) and cur.filename:
            return cur
        cur = cur.__cause__ or cur.__context__
    return None


def debug_enabled() -> bool:
    return os.environ.get("THERMOGOV_DEBUG", "") not in ("", "0")


def _fail(exc: BaseException, line: str, code: int) -> int:
    if debug_enabled():
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    # A stderr that cannot take the line (``2>/dev/full``, a log on a full disk) changes nothing
    # but what is read: the status says it.  Session 28r: the echo's OSError escaped here as a
    # traceback (exit 120 after the daemon had restored every limit).
    with contextlib.suppress(OSError, ValueError):
        click.echo(f"thermogov: {one_line(line)}", err=True)
    return code


def usage_line(e: click.ClickException) -> str:
    """A click usage error as one line naming the option: ``--duration: ...; see thermogov run -h``."""
    msg = e.format_message().rstrip(".")
    param = getattr(e, "param", None)
    # A missing argument (click's MissingParameter) has no message of its own: its formatted one
    # names it ("Missing argument 'RUNS...'"); main said "runs: ; see ..." (hostile round 28h).
    if isinstance(e, click.BadParameter) and param is not None and e.message:
        name = param.opts[0] if getattr(param, "opts", None) else (e.param_hint or param.name)
        msg = f"{name}: {e.message.rstrip('.')}"
    ctx = getattr(e, "ctx", None)
    if ctx is not None:
        msg += f"; see `{ctx.command_path} --help`"
    return msg


if __name__ == "__main__":  # pragma: no cover
    main()


__all__ = ["Path", "cli", "main"]
