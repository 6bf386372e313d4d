"""NVIDIA's fan service of JetPack 5/6 (``nvfancontrol``) and its ``/etc/nvfancontrol.conf``.

Why: on JetPack 5/6 the Orin's fan is mainline pwm-fan's hwmon ``pwm1``, and its owner is not
the kernel but the ``nvfancontrol`` service, which rewrites ``pwm1`` every ``POLLING_INTERVAL``
from a fan profile (NVIDIA Jetson Linux Developer Guide, "Fan Profile Control", in the Orin and
Xavier "Platform Power and Performance" pages, e.g.
https://docs.nvidia.com/jetson/archives/r35.2.1/DeveloperGuide/text/SD/PlatformPowerAndPerformance/JetsonXavierNxSeriesAndJetsonAgxXavierSeries.html).
Its configuration (format as NVIDIA's BSP file header gives it, also in NVIDIA's
``jetson-customize-fan`` skill, https://github.com/nvidia/skills):

    POLLING_INTERVAL <s>
    <FAN 1>
        TMARGIN ENABLED
        FAN_GOVERNOR pid { STEP_SIZE 10 }      (a block per line in the file)
        FAN_CONTROL close_loop { RPM_TOLERANCE 100 }
        FAN_PROFILE quiet { <TEMP HYST PWM RPM> rows }   (one block per profile: quiet, cool, ...)
        THERMAL_GROUP 0 { GROUP_MAX_TEMP 105; <zone> <coeffs> <max-temp> rows }
        FAN_DEFAULT_CONTROL open_loop
        FAN_DEFAULT_PROFILE quiet
        FAN_DEFAULT_GOVERNOR pid
        KICKSTART_PWM 40

nvfancontrol refuses to start when ``FAN_DEFAULT_PROFILE`` names no ``FAN_PROFILE`` of its fan.

What thermogov does with it: the service is the fan's owner, and thermogov never stops or
starts another service (a root daemon writes only the sysfs attributes it owns).  Running, it
is refused at start as before (:func:`thermogov.hw.fan.require_fan`), now with the profile it
plays named; enabled but stopped (the operator stopped it for thermogov), the start says once
that it takes the fan back when it starts again (then the rival rule of :mod:`thermogov.hw.fan`
leaves the fan to it).  ``doctor`` shows the profile: the one the service's status file says it
plays when that file is there and readable (a profile chosen with ``nvfancontrol -p`` since;
:mod:`thermogov.hw.nvfanstatus`, session 24c), else ``FAN_DEFAULT_PROFILE``.  A file that cannot be read as the above
(``fan = "governor"`` with the service enabled or running) is bad input: a one-line error naming
the file and the line, exit 2, nothing written.  Read through the sysfs root, never written.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from thermogov.hw.nvfanstatus import STATUS_REL, running_profile
from thermogov.hw.nvpmodelconf import ConfError, read_conf_text
from thermogov.hw.sysfs import SysfsTree

CONF_REL = "etc/nvfancontrol.conf"
SERVICE = "nvfancontrol"
WANTS = "etc/systemd/system/multi-user.target.wants/nvfancontrol.service"
PWM_MAX = 255
# ASCII digits, at most 12 (as nvpmodelconf's): ``\d`` took any Unicode digit, which
# nvfancontrol's C parser does not, and a row of 5 000 digits ended in int()'s ValueError (the
# 4300-digit limit of Python 3.11+), a traceback instead of the file's line (session 24).
_FAN = re.compile(r"<FAN ([0-9]{1,12})>")
_INT = re.compile(r"-?[0-9]{1,12}")


@dataclass
class FanProfiles:
    """One ``<FAN N>`` section: its profiles' (TEMP, HYST, PWM) rows and its defaults."""

    profiles: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    default: str = ""
    kickstart: int | None = None
    control: str = ""

    def describe(self, playing: str = "") -> str:
        """The profile played (``playing``, the status file's; else ``FAN_DEFAULT_PROFILE``)."""
        name = playing or self.default
        rows = self.profiles[name]
        duty = f"pwm {min(r[2] for r in rows)}..{max(r[2] for r in rows)}" if rows else "no rows"
        kick = f", kickstart pwm {self.kickstart}" if self.kickstart is not None else ""
        others = sorted(set(self.profiles) - {name})
        also = f" (also {', '.join(others)})" if others else ""
        return f"profile {name} ({duty}{kick}){also}"


def parse_fan_conf(text: str) -> dict[int, FanProfiles]:
    """Every ``<FAN N>`` of the file, or :class:`ConfError` ("line N: what") for a bad one."""
    fans: dict[int, FanProfiles] = {}
    fan: FanProfiles | None = None
    block: list[tuple[int, int, int]] | None = None  # the FAN_PROFILE being read
    depth = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if (m := _FAN.fullmatch(line)) is not None:
            if depth:
                raise ConfError(f"line {number}: {line} inside a block (a '}}' is missing)")
            fan = fans.setdefault(int(m.group(1)), FanProfiles())
        elif line.startswith("<FAN"):
            raise ConfError(f"line {number}: '{_short(line)}' is no '<FAN N>' header (N a whole number)")
        elif words[-1] == "{":
            if depth or fan is None or len(words) != 3:
                raise ConfError(f"line {number}: '{line}' is no '<KIND> <name> {{' block of a <FAN N>")
            depth = 1
            block = fan.profiles.setdefault(words[1], []) if words[0] == "FAN_PROFILE" else None
        elif line == "}":
            if not depth:
                raise ConfError(f"line {number}: '}}' closes no block")
            depth, block = 0, None
        elif block is not None:
            block.append(_row(words, number))
        elif not depth and (words[0].startswith("FAN_DEFAULT_") or words[0] == "KICKSTART_PWM"):
            _default(fan, words, number)
    if depth:
        raise ConfError("the last block is not closed (a '}' is missing)")
    if not fans:
        raise ConfError("no <FAN N> section")
    for n, fan in fans.items():
        if not fan.default:
            raise ConfError(f"<FAN {n}> has no FAN_DEFAULT_PROFILE")
        if fan.default not in fan.profiles:
            raise ConfError(f"FAN_DEFAULT_PROFILE {fan.default} of <FAN {n}> names no FAN_PROFILE")
    return fans


def _short(text: str) -> str:
    """At most 40 characters of a file's word for the one-line error (a 5 000-digit value)."""
    return text if len(text) <= 40 else text[:40] + "..."


def _row(words: list[str], number: int) -> tuple[int, int, int]:
    if len(words) not in (3, 4) or not all(_INT.fullmatch(w) for w in words):
        raise ConfError(f"line {number}: a profile row is TEMP HYST PWM [RPM], whole numbers")
    temp, hyst, pwm = (int(w) for w in words[:3])
    if not 0 <= pwm <= PWM_MAX:
        raise ConfError(f"line {number}: PWM {pwm} is outside 0..{PWM_MAX}")
    return temp, hyst, pwm


def _default(fan: FanProfiles | None, words: list[str], number: int) -> None:
    if fan is None or len(words) != 2:
        raise ConfError(f"line {number}: '{' '.join(words)}' is no '<KEY> <value>' of a <FAN N>")
    key, value = words
    if key == "KICKSTART_PWM":
        if not _INT.fullmatch(value) or not 0 <= int(value) <= PWM_MAX:
            raise ConfError(f"line {number}: KICKSTART_PWM {_short(value)} is no duty 0..{PWM_MAX}")
        fan.kickstart = int(value)
    elif key == "FAN_DEFAULT_PROFILE":
        fan.default = value
    elif key == "FAN_DEFAULT_CONTROL":
        fan.control = value


def service_enabled(tree: SysfsTree) -> bool:
    """``nvfancontrol.service`` enabled under the root (its ``multi-user.target.wants`` link)."""
    return os.path.lexists(tree.path(WANTS))


def fan_owner(tree: SysfsTree) -> str:
    """What the conf says of the fan's owner ("" without a conf file); :class:`ConfError` for a
    file that is there but cannot be read as nvfancontrol's."""
    if not os.path.lexists(tree.path(CONF_REL)):
        return ""
    try:
        fans = parse_fan_conf(read_conf_text(tree, CONF_REL))
    except ConfError as e:
        raise ConfError(f"{tree.show(CONF_REL)}: {e}") from e
    n = min(fans)
    first = fans[n]
    playing, bad = running_profile(tree, n, set(first.profiles))  # session 24c, hw/nvfanstatus.py
    if playing and playing != first.default:
        return (
            f"nvfancontrol plays {first.describe(playing)}, chosen at run time in {tree.show(STATUS_REL)} "
            f"over FAN_DEFAULT_PROFILE {first.default} of {tree.show(CONF_REL)}"
        )
    said = f"nvfancontrol plays {first.describe()} from {tree.show(CONF_REL)}"
    return (
        f"{said} ({bad}: not read as nvfancontrol's state, so the conf's default is taken)" if bad else said
    )


def conf_problem(tree: SysfsTree) -> tuple[str, str]:
    """(what the conf says, why it cannot be read): one of them "" (both without a file)."""
    try:
        return fan_owner(tree), ""
    except ConfError as e:
        return "", str(e)


def nvfan_notes(tree: SysfsTree) -> list[str]:
    """One line on nvfancontrol as the fan's owner, for ``doctor`` and the start ([] without a conf)."""
    owner, bad = conf_problem(tree)
    if bad:
        return [f'{bad}: fan = "governor" is refused until the file is fixed (nvfancontrol refuses it too)']
    if not owner:
        return []
    if service_enabled(tree):
        return [
            f"nvfancontrol.service is enabled ({owner}): it drives pwm1 again whenever it starts (at boot, "
            "`systemctl start`), and thermogov then stops governing the fan and leaves it to it "
            "(`sudo systemctl disable --now nvfancontrol` while thermogov owns the fan)"
        ]
    return [f"{owner} when its service runs (nvfancontrol.service is not enabled)"]
