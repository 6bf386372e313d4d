"""``thermogov ab`` on a board: two policies in randomised alternating blocks (:mod:`thermogov.abtest`).

Every block, and every cool-down before it, is one ordinary daemon run (:func:`thermogov.hw.daemon.run`)
with its own run folder: the same validation, board lock, journal and restore on every exit
path as ``thermogov run``, so between two blocks the board is exactly as it was found and a
Ctrl-C or SIGTERM inside a block restores before ``ab`` stops.  The cool-down holds the lowest
caps (``fixed:0%``) with the workload running, so each block starts from a similar board
whatever the previous block did.  A block's throughput is its run's sustained throughput (the
steady window, by default the block's second half, so the hand-over from the previous state is
not counted); its temperature is the run's maximum fused value.

Everything a user can get wrong is checked before the first block: the policies (both must
build on this board's tables; an arm may be a variant, ``stepped+release_frontier=true``, whose
overrides meet the config file's checks: :mod:`thermogov.variant`), two arms that run the same
parameters (nothing to compare), the workload (a comparison of throughput needs one), the
numbers.  A block that ends early (a signal) ends the whole comparison: a partial A/B is not
reported as a result.  Each block's run folder records its arm's merged ``[policies.*]`` table in
``config.toml``, so ``thermogov run --config block-NN/<run>/config.toml`` reproduces the arm.

With ``config_b`` (``--config-b FILE``) arm B runs a second whole config (its ``[governor]``,
``[fan]``, ``[sensors]``, ...), checked on this board exactly as ``thermogov run --config`` would
check it (:mod:`thermogov.hw.abarms`); the cool-downs run on ``--config`` for both arms.
"""

from __future__ import annotations

import dataclasses
import io
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thermogov.abtest import AbResult, Block, block_schedule, check_confidence, check_pairs, summarise
from thermogov.config import Config
from thermogov.hw import daemon
from thermogov.hw.abarms import Arm, check_arms_differ, make_arms
from thermogov.hw.limits import note_key
from thermogov.hw.tracesafe import preflight
from thermogov.hw.unwritten import unwritable_reason
from thermogov.hw.workload import WORKLOAD_EXITED, exited_phrase, no_inference_reason, parse_workload
from thermogov.interfaces import ConfigError, RuntimeFailure
from thermogov.policies import PolicyContext
from thermogov.variant import Variant, check_same_policy, check_variant

COOL_DOWN_POLICY = "fixed:0%"
MAX_BLOCK_S = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class AbOptions:
    base: daemon.RunOptions  # board, root, workload, folders; policy and duration are set per block
    policy_a: str | None  # a policy or a variant (thermogov.variant): stepped+release_frontier=true
    policy_b: str | None  # None (with config_b): see thermogov.hw.abarms for 0 or 1 --policy
    pairs: int = 5
    block_s: float = 600.0
    cool_down_s: float = 120.0
    seed: int = 1
    confidence: float = 0.95
    config_b: Config | None = None  # arm B's whole config (--config-b); None: both on base.config


def arms(opts: AbOptions) -> tuple[Arm, Arm]:
    """The two arms as parsed (one ConfigError naming the bad one)."""
    given = [p for p in (opts.policy_a, opts.policy_b) if p is not None]
    return make_arms(given, opts.base.config, opts.config_b)


def validate(opts: AbOptions) -> None:
    """Every mistake as one ConfigError before the board is touched (see the module docstring)."""
    a, b = arms(opts)
    check_pairs(opts.pairs)
    check_confidence(opts.confidence)
    for field, value, low in (("--block", opts.block_s, 0.0), ("--cool-down", opts.cool_down_s, -1e-9)):
        if not (math.isfinite(value) and low < value <= MAX_BLOCK_S):
            raise ConfigError(f"{field}: {value!r} s is out of range; give a duration up to 24h")
    check_block_ticks(opts.block_s, (a.config, b.config))
    if opts.base.dry_run:
        raise ConfigError("--dry-run: an A/B must apply the policies' caps; run it as root without --dry-run")
    if parse_workload(opts.base.workload, opts.base.count_regex) is None:
        raise ConfigError(
            '--workload: ab compares sustained throughput, which needs a workload; give builtin or cmd:"..."'
        )
    if opts.config_b is None:
        prep = daemon.prepare(opts.base)  # side-effect free: discover, choose and map the board
        try:
            ctx = daemon.policy_context(prep)
            for arm in (a.variant, b.variant, Variant(COOL_DOWN_POLICY)):
                check_variant(arm, prep.config, lambda c: c.make_policy(ctx))
            check_same_policy(
                [a.variant, b.variant], prep.config, ctx
            )  # a key at its default is the plain arm
        finally:
            prep.tree.close()
        return
    prepared = [_check_on_board(opts, arm, cool=arm is a) for arm in (a, b)]
    check_arms_differ(a, b, prepared)


def check_block_ticks(block_s: float, configs: tuple[Config, ...]) -> None:
    """A block must span two control ticks of each arm, or it measures no rate at all.

    A block's throughput is the count's change over its steady window, between two of its
    ticks; a block shorter than two control periods (``--block 50ms`` against 100 ms ticks)
    has one tick, so block 1 ended the comparison with "the workload reported no inferences;
    check it runs on this board", exit 1, blaming a workload that ran fine (session 31h).
    It is the block's length that cannot measure: bad input, said before the board is
    touched."""
    period_s = max(c.governor.control_period_ms for c in configs) / 1000.0
    if block_s < 2 * period_s:
        raise ConfigError(
            f"--block: {block_s:g} s is shorter than two control periods ({period_s * 1000:g} ms each), "
            f"so a block would hold one tick and measure no throughput; give at least "
            f"{2 * period_s * 1000:g}ms, e.g. 10m"
        )


def _check_on_board(opts: AbOptions, arm: Arm, *, cool: bool) -> tuple[Config, PolicyContext]:
    """``arm``'s whole config checked on the board as ``run --config`` would (its file named in
    any error), its policy built there; with ``cool`` the cool-down's policy too."""
    prep = daemon.prepare(dataclasses.replace(opts.base, config=arm.config))
    try:
        ctx = daemon.policy_context(prep)
        for variant in (arm.variant, *([Variant(COOL_DOWN_POLICY)] if cool else [])):
            check_variant(variant, prep.config, lambda c: c.make_policy(ctx))
        return prep.config, ctx
    finally:
        prep.tree.close()


def _block_opts(opts: AbOptions, config: Config, seconds: float, out: Path) -> daemon.RunOptions:
    return dataclasses.replace(opts.base, config=config, duration_s=seconds, out=out)


def run_ab(
    opts: AbOptions,
    *,
    log: Callable[[str], None] = lambda msg: None,
    run_block: Callable[..., dict[str, Any]] = daemon.run,
) -> tuple[AbResult, list[Block]]:
    """Validate, then run the schedule; returns the comparison and every block."""
    validate(opts)
    a, b = arms(opts)
    by_label = {a.label: a, b.label: b}
    out = opts.base.out if opts.base.out is not None else Path(opts.base.config.out)
    if run_block is daemon.run:
        # The blocks' folder and the journal's, judged as `run` judges them, before block 1
        # (hostile round 28h: an --out through a file, under /proc or a link loop, a
        # --state-dir that is a file, said "block 1/4: ..." and then refused).  A block
        # runner given instead (the tests') writes nothing there.
        preflight(out, opts.base.state_dir)
    schedule = block_schedule(a.label, b.label, opts.pairs, opts.seed)
    cool = Variant(COOL_DOWN_POLICY).apply(opts.base.config)  # the same for both arms
    blocks: list[Block] = []
    noted = _RestoreNotes(log)
    for i, policy in enumerate(schedule):
        if opts.cool_down_s > 0:
            log(f"block {i + 1}/{len(schedule)}: cool-down {opts.cool_down_s:g} s at the lowest caps")
            where = f"cool-down before block {i + 1}"
            c = _run(
                run_block,
                _block_opts(opts, cool, opts.cool_down_s, out / "cool-down"),
                i,
                where,
                measured=False,  # its throughput is not compared (its exit still stops it)
            )
            # A workload that exits having counted nothing (cmd:true) is said at the first
            # cool-down: no block after it can measure anything (hostile round 29h).  One that
            # is only slow to start is judged by the block, which is what is measured.
            if c.get("workload_exit_status") is not None and (why := no_inference_reason(c)):
                raise RuntimeFailure(f"{where}: {why}; nothing was compared")
            noted.add(where, c)
        log(f"block {i + 1}/{len(schedule)}: {policy} for {opts.block_s:g} s")
        arm_config = by_label[policy].run_config()
        s = _run(
            run_block,
            _block_opts(opts, arm_config, opts.block_s, out / f"block-{i + 1:02d}"),
            i,
            f"block {i + 1} ({policy})",
        )
        thr = s.get("sustained_throughput_ips")
        # A block at no throughput ends the comparison there (session 29h: cmd:true ran every
        # block at 0 inf/s and reported "no difference resolved", exit 0).
        if thr is None or not (isinstance(thr, (int, float)) and math.isfinite(thr) and thr > 0):
            why = no_inference_reason(s) or (
                "the workload reported no inferences; check it runs on this board"
                if thr is None or not s.get("inferences_total")
                else f"the workload counted {s.get('inferences_total')} inference(s) in all but none in "
                f"the block's steady window ({thr} inf/s); give a workload that runs for the whole block"
            )
            raise RuntimeFailure(f"block {i + 1} ({policy}): {why}; nothing was compared")
        noted.add(f"block {i + 1} ({policy})", s)
        blocks.append(
            Block(i, policy, float(thr), s.get("max_fused_c"), str(s.get("run_id", "")), noted.take())
        )
        log(f"block {i + 1}: {policy} {thr:g} inf/s, max fused {s.get('max_fused_c')} °C")
    return summarise(blocks, a.label, b.label, opts.confidence, opts.seed), blocks


class _RestoreNotes:
    """What each run's restore left to another writer (the daemon's race rule, hw/limits.py
    ``RaceRule``: a max another writer set below the value of before is left as it reads).

    Before (session 32r) a block's restore followed the rule without a word in the comparison's
    output: a block run on a board another agent also limits (nvpmodel, a user's ``echo``) was
    ranked as if it had the board to itself.  Now each distinct note is said once on the log,
    and each block carries the notes of its cool-down and its own restore (its JSON's
    ``restore_notes``).

    Session 33r: said once per file and kind of act (:func:`thermogov.hw.limits.note_key`), not
    per text.  The same writer's limit at two values made two full lines, read as two writers;
    now a later value is one short line naming every value seen on that file, and a value seen
    before says nothing (the block's JSON keeps every note whole, as before)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self._log = log
        self._said: set[str] = set()
        self._values: dict[tuple[str, str], list[int]] = {}  # per (file, kind): the max values seen
        self._pending: list[str] = []

    def add(self, where: str, summary: dict[str, Any]) -> None:
        for note in summary.get("restore_left_to_others") or ():
            self._pending.append(f"{where}: {note}")
            key = note_key(note)
            if key is None:  # no note of the race rule's: said once per text
                if note not in self._said:
                    self._said.add(note)
                    self._log(f"{where}: the restore met another writer's limit: {note}")
                continue
            label, kind, value, unit = key
            seen = self._values.setdefault((label, kind), [])
            if value in seen:
                continue
            seen.append(value)
            if len(seen) == 1:
                self._log(f"{where}: the restore met another writer's limit: {note}")
            else:
                values = ", ".join(map(str, seen))
                self._log(
                    f"{where}: the restore met another writer's limit on {label} again ({kind}), now "
                    f"{value} {unit}; values seen on {label} in this comparison: {values} {unit}"
                )

    def take(self) -> tuple[str, ...]:
        taken, self._pending = tuple(self._pending), []
        return taken


def _run(
    run_block: Callable[..., dict[str, Any]],
    ropts: daemon.RunOptions,
    i: int,
    where: str,
    *,
    measured: bool = True,
) -> dict[str, Any]:
    """One daemon run, quiet; a block stopped by a signal stops the comparison (after its restore).

    A workload that exits mid-block or mid-cool-down (the run ends there, session 29i) stops the
    comparison too, in any block: that block measured less than its length (or nothing), and
    every later one would start a workload the user's program may no longer be fit to run."""
    summary = run_block(ropts, out=io.StringIO(), err=sys.stderr)
    stopped = summary.get("stopped_by", "duration")
    closed = summary.get("workload_stream_closed_after_s")
    if measured and closed is not None:
        # Its output ended mid-block while it ran on (session 30i): the count stood still from
        # there, so the block's throughput is no measurement of the arm; `run` says the same
        # ("not measured") and governs on, a comparison cannot rank it.
        why = no_inference_reason(summary) or (
            f"--workload: {summary.get('workload')} closed its stdout after {closed:g} s of "
            f"{ropts.duration_s:g} s, so what it counted ({summary.get('inferences_total')} "
            "inference(s)) is no measurement; give a program that writes a line per inference "
            "for the whole comparison"
        )
        raise RuntimeFailure(f"{where}: {why}; the limits were restored and nothing was compared")
    if stopped == WORKLOAD_EXITED:
        why = no_inference_reason(summary) or (
            f"--workload: {exited_phrase(summary)} of {ropts.duration_s:g} s, so what it counted "
            f"({summary.get('inferences_total')} inference(s)) is no measurement; give a program that "
            "runs for the whole comparison"
        )
        raise RuntimeFailure(f"{where}: {why}; the limits were restored and nothing was compared")
    if stopped != "duration":
        raise KeyboardInterrupt(f"block {i + 1} stopped by {stopped}; limits restored")
    if unwritten := unwritable_reason(summary):
        # A block (or cool-down) whose domain could not be capped ran another policy than its
        # arm's: nothing after it can be compared either (session 30, hw/unwritten.py).
        raise RuntimeFailure(f"{where}: {unwritten}; the limits were restored and nothing was compared")
    return summary


__all__ = ["COOL_DOWN_POLICY", "AbOptions", "arms", "run_ab", "validate"]
