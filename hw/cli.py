"""Click commands of the real-board backend: ``doctor``, ``run``, ``ab``, ``status``, ``restore``, ``service``.

``thermogov/cli.py`` registers these lazily, so a board only imports this world when one of
them runs.  Every user-actionable problem (config, CLI values, sysfs contents, privileges)
becomes one line on stderr and exit status 2, and is detected before anything is written.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from thermogov.abtest import MAX_PAIRS
from thermogov.cliopts import GivenPath, config_b_option, load_config_b
from thermogov.exitstatus import failure_status
from thermogov.hw import heldsignals, service
from thermogov.hw.journal import DEFAULT_LOCK_FILE, DEFAULT_STATE_DIR
from thermogov.interfaces import ConfigError, RuntimeFailure, ThermogovError
from thermogov.printable import plain_strings, printable

F = TypeVar("F", bound=Callable[..., Any])


def _one_line_errors(fn: F) -> F:
    """One line on stderr and the exit status of ``thermogov.cli.main`` (also under CliRunner).

    The mapping is :mod:`thermogov.exitstatus`, the one the root applies.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ThermogovError, RuntimeFailure) as e:
            status, line = failure_status(e)
            click.echo(f"thermogov: {line}", err=True)
            raise click.exceptions.Exit(status) from None

    return wrapper  # type: ignore[return-value]


def _config(path: str | None) -> Any:
    from thermogov.config import Config, load_config

    return load_config(path) if path else Config()


def _check_metrics_addr(metrics_port: int | None) -> None:
    """An address given without a port serves nothing: the operator meant to publish metrics and
    would find no endpoint (session 32h found it ignored in silence)."""
    ctx = click.get_current_context(silent=True)
    given = (
        ctx is not None and ctx.get_parameter_source("metrics_addr") is not click.core.ParameterSource.DEFAULT
    )
    if given and metrics_port is None:
        raise ConfigError(
            "--metrics-addr: no --metrics-port to listen on; add --metrics-port PORT or drop --metrics-addr"
        )


def _duration(text: str | None) -> float | None:
    from thermogov.units import parse_duration_s

    return None if text is None else parse_duration_s(text, "--duration")


def _check_runtime_dir(lock_dir: Path | None) -> None:
    """The runtime folder in effect (``--lock-dir``, else ``THERMOGOV_LOCK_DIR``) is a folder or
    can be made one: else bad input naming the option or the variable it came from, before
    anything is read or written (session 29i; :func:`thermogov.client.runtime_dir_problem`).
    Only the folder the command will use is judged: the variable is not, when ``--lock-dir``
    overrides it (session 30i: every runtime file follows ``--lock-dir`` now)."""
    from thermogov.client import RUNTIME_DIR_ENV, runtime_dir, runtime_dir_problem

    ctx = click.get_current_context(silent=True)
    from_env = lock_dir is None or (
        ctx is not None and ctx.get_parameter_source("lock_dir") == click.core.ParameterSource.ENVIRONMENT
    )
    if from_env and not os.environ.get(RUNTIME_DIR_ENV):
        return  # /run/thermogov: made by the daemon (root) when it is missing
    path = runtime_dir(lock_dir)  # the variable's control characters: bad input there (29h)
    name = RUNTIME_DIR_ENV if from_env else "--lock-dir"
    if why := runtime_dir_problem(path):
        fix = "pass a folder" if name.startswith("--") else "set it to a folder or unset it (/run/thermogov)"
        raise ConfigError(f"{name}: {str(path)!r} {why}; {fix}")


def _run_options(
    config: Any,
    sysfs_root: Path,
    board: str | None,
    workload: str | None,
    count_regex: str | None,
    out: Path | None,
    state_dir: Path,
    lock_file: Path,
    lock_dir: Path | None,
) -> Any:
    """The daemon's options from the flags ``run`` and ``ab`` share (duration and dry-run apart)."""
    from thermogov.hw.daemon import RunOptions

    _check_runtime_dir(lock_dir)

    return RunOptions(
        config=config,
        sysfs_root=sysfs_root,
        board=board,
        workload=workload,
        count_regex=count_regex,
        out=out,
        state_dir=state_dir,
        lock_file=lock_file,
        lock_dir=lock_dir,
    )


def _check_variant(variant: Any, base: Any, sysfs_root: Path, board: str | None) -> None:
    """Build ``--policy``'s variant on this board as ``ab`` does, so a bad key is one line naming
    the arm and the key (the daemon's own check would blame ``policies.NAME`` or the config file);
    ``prepare`` is side-effect free, and is what the daemon does first anyway."""
    from thermogov.hw import daemon
    from thermogov.variant import check_variant

    prep = daemon.prepare(daemon.RunOptions(config=base, sysfs_root=sysfs_root, board=board))
    try:
        ctx = daemon.policy_context(prep)
        check_variant(variant, prep.config, lambda c: c.make_policy(ctx))
    finally:
        prep.tree.close()


_root_opt = click.option(
    "--sysfs-root",
    type=GivenPath(exists=True, file_okay=False, path_type=Path),
    default=Path("/"),
    show_default=True,
    help="Root holding sys/ and proc/ (a fake tree in tests and emulation).",
)
_state_opt = click.option(
    "--state-dir",
    type=GivenPath(file_okay=False, readable=False, path_type=Path),
    default=DEFAULT_STATE_DIR,
    show_default=True,
    help="Where the restore journal is kept (it must outlive a reboot; the published state.json is "
    "in --lock-dir).",
)
_lock_opt = click.option(
    "--lock-file",
    type=GivenPath(dir_okay=False, readable=False, path_type=Path),
    default=DEFAULT_LOCK_FILE,
    show_default=True,
    help="Single-instance lock file.",
)
_lockdir_opt = click.option(
    "--lock-dir",
    type=GivenPath(path_type=Path),  # a file, a device, a FIFO: _check_runtime_dir names the source
    envvar="THERMOGOV_LOCK_DIR",
    help="The runtime folder: the per-board lock (board-<hash of the root>.lock), the caps record, and "
    "the published state.json and inferences counter unless --state-file/--inferences-file name "
    "others. Default: $THERMOGOV_LOCK_DIR, else /run/thermogov.",
)
_status_lockdir_opt = click.option(
    "--lock-dir",
    type=GivenPath(path_type=Path),  # a file, a device, a FIFO: _check_runtime_dir names the source
    envvar="THERMOGOV_LOCK_DIR",
    help="The daemon's runtime folder (its run's --lock-dir), whose state.json is read. "
    "Default: $THERMOGOV_LOCK_DIR, else /run/thermogov.",
)
_config_opt = click.option(
    "--config", "config_path", type=GivenPath(dir_okay=False), help="Config TOML (board, policy, sensors)."
)


def _given_board(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An empty ``--board ''`` (an unset variable) is no request to detect: ``run`` detected
    and ``doctor`` said "is a folder" (``Path("")``), session 31h.  Refused as empty."""
    if value is not None and not value.strip():
        raise ConfigError("--board: empty; give a board name or TOML file, or leave --board out to detect")
    return value


_board_opt = click.option(
    "--board",
    callback=_given_board,
    help="Board profile name or TOML file; default: detect from the device tree.",
)


@click.command("doctor")
@_config_opt
@_board_opt
@_root_opt
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--state",
    "state_path",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="A running daemon's state file, read for since when it waits for a sensor. "
    "Default: state.json in --lock-dir.",
)
@_status_lockdir_opt
@_one_line_errors
def doctor_command(
    config_path: str | None,
    board: str | None,
    sysfs_root: Path,
    as_json: bool,
    state_path: Path | None,
    lock_dir: Path | None,
) -> None:
    """Show the board's sensors and frequency domains and what the profile maps them to.

    No root needed; exits 1 when the root holds no board (nothing to read or to govern), 2
    after the report when `run` would refuse the config on this board (its one line), and 2
    before it when the runtime folder whose state.json is read (--lock-dir, else
    $THERMOGOV_LOCK_DIR) is no folder.

    \b
    Example:
      thermogov doctor --config /etc/thermogov/thermogov.toml
    """
    from thermogov.hw.doctor import config_refusal, doctor_checks, doctor_data, doctor_report
    from thermogov.hw.sysfs import SysfsTree

    given_state = state_path
    if state_path is None:
        # The one runtime-folder rule of run, ab, restore and status (session 30i): --lock-dir,
        # else THERMOGOV_LOCK_DIR, else /run/thermogov, judged before anything is read (30l).
        from thermogov.client import default_state_path

        _check_runtime_dir(lock_dir)
        state_path = default_state_path(lock_dir)
    tree, cfg = SysfsTree(sysfs_root), _config(config_path)
    if board is not None:  # a bad --board is bad input whatever the root holds (no board: exit 1)
        from thermogov.cliopts import load_board_option

        load_board_option(board)
    no_board, warnings = doctor_checks(tree, cfg, board)
    # A --state given is judged as `status --state` judges it (28h): the report still says why
    # it was not read ("state file not read: ..."), and the status is then 2 with that line.
    state_refusal = None
    if given_state is not None:
        from thermogov.hw.waitedsince import check_state_option

        state_refusal = check_state_option(given_state)
    # Only a config the user names is checked as `run` would check it (the example config says
    # to check a change with `doctor --config`); plain `doctor` reports and warns, exit 0.
    refusal = config_refusal(tree, cfg, board) if no_board is None and config_path is not None else None
    if refusal is not None:  # its line comes last, once: not also as a warning
        warnings = [w for w in warnings if str(refusal) not in w]
    if as_json:
        data = doctor_data(tree, cfg, board, state_path)
        data["warnings"] = warnings
        data["no_board"] = no_board
        data["config_error"] = None if refusal is None else str(refusal)
        click.echo(json.dumps(plain_strings(data), indent=2))  # a folder name that is not UTF-8
    elif no_board is None:
        for line in doctor_report(tree, cfg, board, state_path):
            click.echo(printable(line))  # a zone's type, a model string: the board's files
    for warning in warnings:
        click.echo(printable(warning), err=True)
    if no_board is not None:
        if state_refusal is not None:  # bad input first, as a bad --board (27h)
            raise state_refusal
        click.echo(f"thermogov: {printable(no_board)}", err=True)
        sys.exit(1)
    if refusal is not None:  # the report is still useful; the status says `run` would refuse
        raise refusal
    if state_refusal is not None:
        raise state_refusal


@click.command("run")
@_config_opt
@click.option(
    "--policy",
    help="Policy name, overriding the config's [run] policy (stepped, hysteresis, ...), or a variant "
    "setting its [policies.NAME] keys: stepped+release_frontier=true.",
)
@click.option("--duration", help="Stop after this long (2s, 10m, 1h); default: until SIGTERM/SIGINT.")
@click.option(
    "--workload",
    help='builtin (numpy stand-in), cmd:"python infer.py" (one inference per stdout line) or none.',
)
@click.option("--count-regex", help="With cmd:, count only stdout lines matching this regex.")
@click.option("--out", type=GivenPath(file_okay=False, path_type=Path), help="Folder for run folders.")
@_board_opt
@_root_opt
@_state_opt
@_lock_opt
@_lockdir_opt
@click.option("--dry-run", is_flag=True, help="Read sensors and decide, but write nothing (no root needed).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option(
    "--state-file",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="Publish the state here once a second. Default: state.json in --lock-dir (/run/thermogov).",
)
@click.option(
    "--inferences-file",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="Counter file the application adds its inferences to (without --workload). "
    "Default: inferences in --lock-dir (/run/thermogov).",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    help="Serve Prometheus metrics on this port (0: any free one); needs thermogov[metrics].",
)
@click.option(
    "--metrics-addr", default="127.0.0.1", show_default=True, help="Address --metrics-port listens on."
)
@click.option(
    "--metrics-textfile",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="Write node_exporter's textfile-collector file (*.prom) once a second.",
)
@_one_line_errors
@heldsignals.holding  # a stop before or after the daemon's own handlers is not fatal
def run_command(
    config_path: str | None,
    policy: str | None,
    duration: str | None,
    workload: str | None,
    count_regex: str | None,
    out: Path | None,
    board: str | None,
    sysfs_root: Path,
    state_dir: Path,
    lock_file: Path,
    lock_dir: Path | None,
    dry_run: bool,
    as_json: bool,
    state_file: Path | None,
    inferences_file: Path | None,
    metrics_port: int | None,
    metrics_addr: str,
    metrics_textfile: Path | None,
) -> None:
    """Govern the real board (root), restoring every limit on exit.

    SIGHUP (systemctl reload thermogov) re-reads --config: policy, [policies.*] and [power]
    change at the next tick; anything else needs a restart.

    \b
    Example:
      thermogov run --dry-run --duration 1m        # no root: read and decide, write nothing
      sudo thermogov run --config /etc/thermogov/thermogov.toml --metrics-port 9101
    """
    from thermogov.hw.daemon import check_privileges, run
    from thermogov.hw.publish import PublishOptions

    _check_metrics_addr(metrics_port)
    check_privileges(dry_run)
    from thermogov.variant import policy_or_variant

    # A variant (stepped+release_frontier=true, e.g. the arm an A/B picked) merges its keys into
    # [policies.NAME] as `ab` does, again on every reload; a plain name is replace(c, policy=name).
    variant = None if policy is None else policy_or_variant(policy, "--policy")

    def load() -> Any:
        """The config as given (re-read on SIGHUP), with the command line's --policy on top."""
        c = _config(config_path)
        return variant.apply(c) if variant is not None else c

    cfg = load()
    if variant is not None and variant.overrides:
        _check_variant(variant, _config(config_path), sysfs_root, board)
    # The start's advisory lines (hw/startlines.py) are computed and said by the daemon from its
    # own discovery, once the run's input (output folders, workload, port) is known to be good,
    # so that bad input stays the command's only line.
    opts = dataclasses.replace(
        _run_options(cfg, sysfs_root, board, workload, count_regex, out, state_dir, lock_file, lock_dir),
        duration_s=_duration(duration),
        dry_run=dry_run,
        reload_config=load if config_path else None,
        config_source=config_path or "",
        publish=PublishOptions(state_file, inferences_file, metrics_port, metrics_addr, metrics_textfile),
        start_lines=True,
    )
    summary = run(opts)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        _judge_caps(summary)
        _judge_workload(summary)
        return
    thr = summary.get("sustained_throughput_ips")
    thr_text = "not measured" if thr is None else f"{thr} inf/s"
    closed = summary.get("workload_stream_closed_after_s")
    if thr is None and closed is not None and summary.get("inferences_total"):
        # Its output ended mid-run (session 30i): what it counted before is still a figure.
        thr_text += (
            f" (the workload's output ended after {closed:g} s, having counted "
            f"{summary.get('inferences_total')} inference(s))"
        )
    click.echo(
        f"run {summary.get('run_id')}: {summary.get('duration_s')} s, max fused "
        f"{summary.get('max_fused_c')} °C, sustained throughput {thr_text}, tick p99 "
        f"{summary.get('tick_ms_p99')} ms"
    )
    from thermogov.mitigationrows import mitigation_rows

    for label, text in mitigation_rows(summary):
        click.echo(f"  {label or '':<20} {text}")
    _judge_caps(summary)
    _judge_workload(summary)


def _judge_caps(summary: dict[str, Any]) -> None:
    """A run that ended with a domain's latest cap write failed did not govern it: a runtime
    failure (exit 1), said after the summary (hw/unwritten.py)."""
    from thermogov.hw.unwritten import unwritable_reason

    if why := unwritable_reason(summary):
        done = "a dry run: nothing was written" if summary.get("dry_run") else "the limits were restored"
        raise RuntimeFailure(f"{why}; {done}")


def _judge_workload(summary: dict[str, Any]) -> None:
    """A run whose workload counted no inference is a runtime failure (exit 1), said after its
    summary (hostile round 29h: ``run --workload cmd:true`` reported 0.0 inf/s, exit 0).  Judged
    when the run lasted its duration or the workload exited: a stop after a moment is no verdict."""
    from thermogov.hw.workload import no_inference_reason, workload_exit

    done = "a dry run: nothing was written" if summary.get("dry_run") else "the limits were restored"
    # The workload exited mid-run (session 29i): the run ended there; one line says it, on
    # stderr (stdout keeps the summary, or the JSON), exit 1 when the workload failed.
    if (exited := workload_exit(summary)) is not None:
        failed, line = exited
        if failed:
            raise RuntimeFailure(f"{line}; {done}")
        click.echo(printable(f"thermogov: {line}; {done}"), err=True)
        return
    ran = (
        summary.get("stopped_by", "duration") == "duration" or summary.get("workload_exit_status") is not None
    )
    if ran and (why := no_inference_reason(summary)):
        raise RuntimeFailure(f"{why}; {done}")


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the state document as JSON.")
@click.option("--watch", is_flag=True, help="A live view, redrawn once a second (needs thermogov[watch]).")
@click.option(
    "--state",
    "state_path",
    type=GivenPath(dir_okay=False, path_type=Path),
    help="The daemon's state file. Default: state.json in --lock-dir.",
)
@_status_lockdir_opt
@_one_line_errors
def status_command(as_json: bool, watch: bool, state_path: Path | None, lock_dir: Path | None) -> None:
    """Show what the running daemon publishes: temperatures, caps, clocks, policy, power.

    Exits 0 while a daemon governs, 1 when there is no state or it is stale (the daemon died
    or stopped publishing). No root needed.

    \b
    Example:
      thermogov status
      thermogov status --watch
    """
    from thermogov.hw import statusview

    if watch and as_json:
        raise ThermogovError("--watch and --json: choose one (--json prints the state once)")
    if state_path is None:
        # The folder the state is looked for in, judged as run's (session 30i: a file, a FIFO or
        # /proc/self there said "no thermogov state", exit 1, as if no daemon ran).
        from thermogov.client import default_state_path

        _check_runtime_dir(lock_dir)
        state_path = default_state_path(lock_dir)
    if watch:
        statusview.watch(state_path)
    # JSON escapes control characters itself (and is many lines); the summary lines are escaped.
    sys.exit(
        statusview.show_once(
            state_path, as_json, lambda line: click.echo(line if as_json else printable(line))
        )
    )


@click.command("ab")
@_config_opt
@click.option(
    "--policy",
    "policies",
    multiple=True,
    help="An arm to compare: give exactly two (--policy stepped --policy power_allocator). An arm may "
    "set the policy's [policies.NAME] keys: NAME+key=value[+key=value], e.g. stepped+release_frontier=true. "
    "With --config-b: none (each config's own policy), one (on both) or two (A's, then B's).",
)
@config_b_option(
    "Arm B runs this whole config (A runs --config, or the defaults): e.g. two [sensors] fusion "
    "weightings, or [fan] or [governor] settings; checked on this board as run --config checks it.",
)
@click.option(
    "--pairs",
    type=click.IntRange(2, MAX_PAIRS),  # one range in every message, 10^20 included (31h)
    default=5,
    show_default=True,
    help="Pairs of blocks (each AB or BA at random).",
)
@click.option("--block", "block", default="10m", show_default=True, help="Length of each policy's block.")
@click.option(
    "--cool-down",
    "cool_down",
    default="2m",
    show_default=True,
    help="Lowest caps before every block (0: none).",
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 1.0, max_open=True),  # nan's message names the range too (31h)
    default=0.95,
    show_default=True,
    help="Level of the interval.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the block order and bootstrap.")
@click.option("--workload", help='builtin or cmd:"python infer.py": the load whose throughput is compared.')
@click.option("--count-regex", help="With cmd:, count only stdout lines matching this regex.")
@click.option(
    "--out", type=GivenPath(file_okay=False, path_type=Path), help="Folder for the blocks' run folders."
)
@_board_opt
@_root_opt
@_state_opt
@_lock_opt
@_lockdir_opt
@click.option("--json", "as_json", is_flag=True, help="Print the blocks and the result as JSON.")
@_one_line_errors
@heldsignals.holding  # a stop before or after the daemon's own handlers is not fatal
def ab_command(
    config_path: str | None,
    policies: tuple[str, ...],
    config_b_path: str | None,
    pairs: int,
    block: str,
    cool_down: str,
    confidence: float,
    seed: int,
    workload: str | None,
    count_regex: str | None,
    out: Path | None,
    board: str | None,
    sysfs_root: Path,
    state_dir: Path,
    lock_file: Path,
    lock_dir: Path | None,
    as_json: bool,
) -> None:
    """A/B two policies on this board: randomised alternating blocks, a cool-down before each.

    Reports the difference in sustained throughput (A - B) with a bootstrap interval over the
    pairs, and the temperatures each reached.  Every block is a daemon run: limits restored
    after each, and on any stop.  An arm may be the same policy with some parameters set
    (NAME+key=value, checked as the config file's [policies.NAME] table); each block's
    config.toml records the parameters it ran.  --config-b compares two whole configs (arm A
    --config, arm B the second file), each checked as run --config checks it.

    \b
    Examples:
      sudo thermogov ab --policy stepped --policy power_allocator --workload builtin --pairs 5 --block 10m
      sudo thermogov ab --policy stepped --policy stepped+release_frontier=true --workload builtin
      sudo thermogov ab --config a.toml --config-b b.toml --workload builtin
    """
    from thermogov.hw.ab import AbOptions, arms, run_ab
    from thermogov.hw.abarms import check_count
    from thermogov.hw.daemon import check_privileges
    from thermogov.units import parse_duration_or_zero_s, parse_duration_s

    check_count(len(policies), config_b_path is not None)
    check_privileges(False)
    # 0 (no cool-down) in any unit and digits, by the durations' one rule (29i, 31h: 0ms too).
    cool_s = parse_duration_or_zero_s(cool_down, "--cool-down")
    base = _run_options(
        _config(config_path), sysfs_root, board, workload, count_regex, out, state_dir, lock_file, lock_dir
    )
    config_b = None if config_b_path is None else load_config_b(config_b_path)
    given = (*policies, None, None)
    opts = AbOptions(
        base,
        given[0],
        given[1],
        pairs,
        parse_duration_s(block, "--block"),
        cool_s,
        seed,
        confidence,
        config_b,
    )
    result, blocks = run_ab(opts, log=lambda msg: click.echo(msg, err=True))
    if as_json:
        doc = {
            # each arm by its label: the policy, the keys it set over the config's table, the config file
            "arms": {
                arm.label: {
                    "policy": arm.variant.spec,
                    "overrides": dict(arm.variant.overrides),
                    "config": arm.config_file,
                }
                for arm in arms(opts)
            },
            "blocks": [dataclasses.asdict(b) for b in blocks],
            "result": {**dataclasses.asdict(result), "diff_pct": result.diff_pct, "verdict": result.verdict},
        }
        click.echo(json.dumps(doc, indent=2))
        return
    width = max([24, *(len(b.policy) for b in blocks)])  # a variant's label is longer than a name
    for b in blocks:
        click.echo(
            f"block {b.index + 1:>3} {b.policy:<{width}} {b.throughput_ips:9.3f} inf/s  max {b.max_fused_c} °C"
        )
    pct = result.ci_pct
    click.echo(
        f"{result.a} - {result.b}: {result.diff_ips:+.3f} inf/s "
        f"({'' if result.diff_pct is None else f'{result.diff_pct:+.2f} %, '}"
        f"{100 * result.confidence:g} % interval {result.ci_low_ips:+.3f} .. {result.ci_high_ips:+.3f}"
        f"{'' if pct is None else f' = {pct[0]:+.2f} .. {pct[1]:+.2f} %'}) over {result.pairs} pairs; "
        f"max fused {result.max_fused_a_c} / {result.max_fused_b_c} °C; {result.verdict}"
    )


@click.command("restore")
@_root_opt
@_state_opt
@_lock_opt
@_lockdir_opt
@_one_line_errors
@heldsignals.holding  # a stop before or after the daemon's own handlers is not fatal
def restore_command(sysfs_root: Path, state_dir: Path, lock_file: Path, lock_dir: Path | None) -> None:
    """Write back the limits journaled by a daemon that did not exit cleanly (root).

    \b
    Example:
      sudo thermogov restore
    """
    from thermogov.hw.boardlock import BoardLock
    from thermogov.hw.journal import Journal, recover
    from thermogov.hw.lastcaps import last_caps_path
    from thermogov.hw.sysfs import SysfsTree

    _check_runtime_dir(lock_dir)  # a file, a device, a FIFO: bad input before the lock (29i)

    if os.geteuid() != 0:
        raise ThermogovError("restore: writing cpufreq/devfreq limits back needs root; use sudo")

    with BoardLock(sysfs_root, lock_dir, lock_file, state_dir) as lock:
        msg = recover(SysfsTree(sysfs_root), Journal(state_dir), last_caps_path(lock.path))
    # The journal's labels and paths are in the line: one line, whatever they hold.
    click.echo(f"thermogov: {printable(msg)}" if msg else "thermogov: nothing to restore (no journal)")


def _run_steps(plan: Callable[[], list[service.Step]]) -> None:
    """Bad input (a ThermogovError) goes to the CLI's one-line exit 2; a failure on the way is exit 1."""
    steps = plan()
    try:
        service.apply(steps, click.echo)
    except OSError as e:
        raise RuntimeFailure(f"{e.filename}: {e.strerror}; check --root and permissions") from e


_install_root_opt = click.option(
    "--root",
    type=GivenPath(path_type=Path),
    default=Path("/"),
    show_default=True,
    help="Install into this folder instead of the live system (an image, a test).",
)
_unit_config_opt = click.option(
    "--config",
    "config",
    type=GivenPath(path_type=Path),
    default=service.DEFAULT_CONFIG,
    show_default=True,
    help="Config path on the board; the unit passes it to `thermogov run --config`.",
)


@click.group("service")
def service_command() -> None:
    """Install or remove the systemd unit and the example config.

    \b
    Example (thermogov installed in the venv /opt/thermogov):
      sudo /opt/thermogov/bin/thermogov service install --enable
    """


@service_command.command("install")
@_install_root_opt
@click.option(
    "--venv",
    type=GivenPath(path_type=Path),
    help="The venv holding thermogov (ExecStart=<venv>/bin/thermogov). Default: the one running this command.",
)
@_unit_config_opt
@click.option(
    "--enable", is_flag=True, help="Also run systemctl daemon-reload and enable --now (only with --root /)."
)
@_one_line_errors
def install_command(root: Path, venv: Path | None, config: Path, enable: bool) -> None:
    """Write the unit (pointing at this venv's thermogov) and, if none exists, the example config.

    \b
    Example:
      sudo /opt/thermogov/bin/thermogov service install
      thermogov service install --root /tmp/image --venv /opt/thermogov
    """

    def plan() -> list[service.Step]:
        exe = service.venv_exe(venv, root) if venv is not None else service.running_exe()
        return service.plan_install(root, exe, config, enable)

    _run_steps(plan)


@service_command.command("uninstall")
@_install_root_opt
@_unit_config_opt
@_one_line_errors
def uninstall_command(root: Path, config: Path) -> None:
    """Remove the unit and the config if `service install` wrote them and they are unedited.

    \b
    Example:
      sudo /opt/thermogov/bin/thermogov service uninstall
    """
    _run_steps(lambda: service.plan_uninstall(root, config))
