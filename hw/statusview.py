"""``thermogov status``: the daemon's published state, once or as a live view.

The view reads only the state file (:func:`thermogov.client.current`): no root, no sysfs, no
lock, so it is safe to run next to the daemon as any user.  A state whose daemon is gone (pid
not running) or silent for more than five publications is shown with ``STALE`` and why, and
the command exits 1, as when there is no state at all: a script's ``thermogov status || alert``
then means "not governing".

``--watch`` redraws once a second with ``rich``'s ``Live`` display (the ``[watch]`` extra,
imported only here), rather than hand-written escape codes.  ``Live`` draws nothing while
its output is no terminal (it renders the last frame once, at the end), so a piped view
(``status --watch | head -1``) wrote nothing, never found its reader gone and ran until killed
(hostile round 28h).  On anything but a terminal each frame is printed as the plain view's
lines instead, a blank line between frames, and the view ends once its reader has gone; with
no stdout at all (``>&-``) it is a runtime failure at once, exit 1.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from thermogov.client import NoState, State, current
from thermogov.hw.waitedsince import line as waited_line
from thermogov.interfaces import ConfigError, RuntimeFailure
from thermogov.printable import plain_strings, printable

WATCH_HINT = "pip install 'thermogov[watch]'"
REFRESH_S = 1.0


def _mhz(hz: int | None) -> str:
    return "?" if hz is None else f"{hz / 1e6:.0f} MHz"


def _c(v: float | None) -> str:
    return "?" if v is None else f"{v:.1f} °C"


_ONLINE = {0: "offline", 1: "online", 2: "online (programmable)"}


def chargers_line(supplies: object) -> str | None:
    """``chargers: AC (Mains) offline, ...`` from the state's ``power.supplies`` (session 25c:
    the chargers as the daemon last read them, those that appeared after start included);
    ``None`` for a daemon before it (no key).  An entry not shaped as the daemon writes it is
    shown as ``?``, never a traceback: the state file is input."""
    if not isinstance(supplies, list):
        return None
    if not supplies:
        return "chargers: none"
    parts = []
    for x in supplies:
        if not isinstance(x, dict):
            parts.append("?")
            continue
        online = x.get("online")
        state = _ONLINE.get(online, "online unknown") if isinstance(online, int) else "online unknown"
        parts.append(f"{x.get('name', '?')} ({x.get('type', '?')}) {state}")
    return "chargers: " + ", ".join(parts)


def summary_lines(s: State, stale: str | None) -> list[str]:
    """The plain-text view (also each frame of ``--watch``)."""
    head = f"thermogov on {s.board}: pid {s.pid}, up {s.uptime_s:.0f} s, policy {s.policy} ({s.policy_state})"
    lines = [f"STALE: {stale}" if stale else "governing", head]
    sensors = ", ".join(f"{n} {_c(v)}" for n, v in s.sensors_c.items())
    lines.append(f"temperature: fused {_c(s.fused_c)}; {sensors}")
    # A daemon before session 23b publishes no "waiting": nothing to show then.
    waiting = s.raw.get("temperature_c", {}).get("waiting") or {}
    if isinstance(waiting, dict):  # each entry since when, from session 24a (hw/waitedsince.py)
        lines.extend(text for n, v in waiting.items() if (text := waited_line(str(n), v)) is not None)
    for name, cap in s.caps_hz.items():
        lines.append(f"domain {name}: cap {_mhz(cap)}, running {_mhz(s.freqs_hz.get(name))}")
    if s.mode is not None or s.load_level is not None:
        lines.append(f"mode: {s.mode or '-'}, load level: {s.load_level or '-'}")
    power = "?" if s.power_w is None else f"{s.power_w:.2f} W"
    lines.append(f"power: {power}, supply {s.power_state or 'unknown'}")
    chargers = chargers_line(s.raw.get("power", {}).get("supplies"))
    if chargers is not None:
        lines.append(chargers)
    if s.inferences_total is None:
        lines.append("throughput: not measured")
    else:
        rate = "rate not measured" if s.rate_ips is None else f"{s.rate_ips:.1f} inf/s"
        lines.append(f"throughput: {s.inferences_total} inferences, {rate}")
    # The state lists every kind the board can report from 0 (for the metrics); say the ones seen.
    throttle = ", ".join(f"{k} {v}" for k, v in s.throttle.items() if v) or "none"
    lines.append(f"throttle events: {throttle}; reloads: {s.reloads}")
    return lines


def show_once(path: Path | None, as_json: bool, echo: Any) -> int:
    """Print the state; the exit status (0 governing, 1 stale). ``NoState`` propagates (exit 1)."""
    s = current(path)
    stale = s.stale_reason()
    if as_json:
        echo(json.dumps(plain_strings({**s.raw, "stale": stale}), indent=2))
    else:
        for line in summary_lines(s, stale):
            echo(line)
    return 1 if stale else 0


def _rich() -> Any:
    try:
        import rich.live
        import rich.text
    except ImportError:
        raise ConfigError(f"--watch needs the rich library; {WATCH_HINT}") from None
    return rich


def watch(path: Path | None) -> int:
    """Redraw once a second until Ctrl-C (exit 130); the daemon going away is shown, not fatal."""
    rich = _rich()
    current(path)  # no state at all: exit 1 at once, as without --watch

    def frame() -> Any:
        try:
            s = current(path)
        except NoState as e:
            return rich.text.Text(f"no daemon state: {e}", style="bold red")
        stale = s.stale_reason()
        # Each line as the plain view prints it: a name's escape sequence drawn as text, not run.
        text = rich.text.Text("\n".join(printable(line) for line in summary_lines(s, stale)))
        text.stylize("bold red" if stale else "bold green", 0, len(text.plain.split("\n", 1)[0]))
        return text

    from thermogov.entry import reader_gone, stdout_closed

    out = sys.stdout
    if out is None or stdout_closed():  # started with stdout closed: no view can be drawn anywhere
        raise RuntimeFailure(
            "--watch: stdout is closed, so the view has nowhere to go; run it with an output"
        )
    if not out.isatty():  # Live would draw nothing until the end: frames as the plain view's lines
        return _watch_plain(path, reader_gone)
    with rich.live.Live(frame(), auto_refresh=False) as live:
        while not reader_gone():  # the view's reader went (``| head``): nothing left to draw for
            time.sleep(REFRESH_S)
            live.update(frame(), refresh=True)
    return 0


def _watch_plain(path: Path | None, reader_gone: Any) -> int:
    """``--watch`` on a pipe or a file: each frame as the plain view's lines (flushed, a blank
    line between frames) until Ctrl-C or the reader going (``| head``)."""
    first = True
    while True:
        try:
            s = current(path)
            lines = summary_lines(s, s.stale_reason())
        except NoState as e:
            lines = [f"no daemon state: {e}"]
        print("\n".join(([] if first else [""]) + [printable(line) for line in lines]), flush=True)
        first = False
        if reader_gone():
            return 0
        time.sleep(REFRESH_S)
        if reader_gone():
            return 0
