"""Which limit files a Jetson power mode writes, and to what: nvpmodel's own configuration.

Why: after a ``kill -9`` and an operator's ``nvpmodel -m``, a journal restore under the new mode
cannot tell from a file alone a window the mode wrote with exactly thermogov's last cap from one
thermogov left capped (session 16's record sees only the value).  The mode's definition says
which files it writes.  nvpmodel reads it from ``/etc/nvpmodel.conf`` (on some JetPack releases
a symlink to ``/etc/nvpmodel/nvpmodel_<board>.conf``; the path is followed inside the sysfs root
the daemon uses, so a test tree fakes ``etc/`` and a link leading out of the root is refused).

The format, as NVIDIA's own header of the file states it (quoted in public copies, e.g. the
2017 TX2 file reproduced in a blog repository and the Orin template of
``mlcommons/inference_results_v3.0`` ``closed/Neuchips/code/common/nvpmodel_orin.py``; the NVIDIA
NIM skill "jetson-customize-nvpmodel" restates it for Orin and Thor):

* ``< PARAM TYPE=FILE|CLOCK NAME=P >`` then lines ``ARG /sys/path``: the names a mode uses.
  A CLOCK param's ``MAX_FREQ``/``MIN_FREQ`` may have a ``_KNEXT`` twin (the path on a newer
  kernel); nvpmodel writes one of the two, so a setting names both here.
* ``< POWER_MODEL ID=N NAME=X >`` then lines ``P ARG VALUE``: the value written to P's ARG.
  A CLOCK value is an integer in the file's own units (kHz for cpufreq, Hz for devfreq), and
  ``-1`` means INT_MAX: no cap, the kernel clamps it to the hardware's top.  The oldest files
  (L4T 28.1) wrote ``/sys/path VALUE`` directly: read too.
* ``< PM_CONFIG DEFAULT=N >`` (and any other header kind): nothing we need; its lines skipped.

The parser is strict where a mistake would change what restore writes: a line outside a
section, a setting naming an undeclared param or argument, a CLOCK value that is not an
integer >= -1, an ID that is not an integer >= 0 or appears twice, a header that does not
close: the whole file is malformed, and the caller falls back to session 16's rule with one
warning naming the file.  It is read, never written, and only a regular file is opened (see
:mod:`thermogov.hw.powermode` for why), at most :data:`MAX_CONF_BYTES`.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable

from thermogov.hw.sysfs import SysfsTree, errno_name
from thermogov.interfaces import SensorError

CONF_REL = "etc/nvpmodel.conf"
MAX_CONF_BYTES = 1 << 20  # stock files are 5-30 KB
NO_CAP = -1  # nvpmodel's INT_MAX: the hardware's top
KNEXT = "_KNEXT"

_HEADER = re.compile(r"<\s*([A-Z_]+)((?:\s+[A-Z_]+=\S+)*)\s*>")
_INT = re.compile(r"-?[0-9]{1,12}")


class ConfError(ValueError):
    """The file cannot say what a mode writes (missing, unreadable, malformed): one line."""


def parse_modes(text: str) -> dict[int, dict[str, int | str]]:
    """Each mode's writes: mode id -> {absolute sysfs path: value} (an int for a CLOCK param
    or a numeric FILE value, else the string).  :class:`ConfError` names the line at fault."""
    params: dict[str, tuple[str, dict[str, str]]] = {}  # name -> (type, {arg: path})
    modes: dict[int, dict[str, int | str]] = {}
    section: tuple[str, str | int] | None = None  # ("PARAM", name) / ("MODE", id) / ("OTHER", "")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("<"):
            section = _open_section(line, number, params, modes)
            continue
        if section is None:
            raise ConfError(f"line {number}: {line[:60]!r} before any < ... > section")
        kind, key = section
        fields = line.split()
        if kind == "PARAM":
            if len(fields) != 2 or not fields[1].startswith("/"):
                raise ConfError(f"line {number}: a PARAM line is 'ARG /sys/path', not {line[:60]!r}")
            params[str(key)][1][fields[0]] = fields[1]
        elif kind == "MODE":
            _setting(fields, number, params, modes[int(key)])
    if not modes:
        raise ConfError("no < POWER_MODEL ID=N NAME=X > section")
    return modes


def _open_section(
    line: str,
    number: int,
    params: dict[str, tuple[str, dict[str, str]]],
    modes: dict[int, dict[str, int | str]],
) -> tuple[str, str | int]:
    m = _HEADER.fullmatch(line)
    if not m:
        raise ConfError(f"line {number}: {line[:60]!r} is not a '< KIND KEY=VALUE ... >' header")
    attrs = dict(a.split("=", 1) for a in m.group(2).split())
    if m.group(1) == "PARAM":
        if attrs.get("TYPE") not in ("FILE", "CLOCK") or "NAME" not in attrs:
            raise ConfError(f"line {number}: a PARAM header needs TYPE=FILE or TYPE=CLOCK and NAME=")
        params.setdefault(attrs["NAME"], (attrs["TYPE"], {}))
        return ("PARAM", attrs["NAME"])
    if m.group(1) == "POWER_MODEL":
        ident = attrs.get("ID", "")
        if not ident.isdigit() or int(ident) in modes:
            raise ConfError(f"line {number}: POWER_MODEL ID={ident!r} is not a new integer >= 0")
        modes[int(ident)] = {}
        return ("MODE", int(ident))
    return ("OTHER", "")  # PM_CONFIG and kinds this reader does not need


def _setting(
    fields: list[str], number: int, params: dict[str, tuple[str, dict[str, str]]], out: dict[str, int | str]
) -> None:
    if len(fields) == 2 and fields[0].startswith("/"):  # the oldest form: /sys/path VALUE
        out[fields[0]] = int(fields[1]) if _INT.fullmatch(fields[1]) else fields[1]
        return
    if len(fields) != 3:
        raise ConfError(
            f"line {number}: a POWER_MODEL line is 'PARAM ARG VALUE', not {' '.join(fields)[:60]!r}"
        )
    name, arg, value = fields
    if name not in params or arg not in params[name][1]:
        raise ConfError(f"line {number}: {name} {arg} is not declared by a PARAM section above it")
    kind, paths = params[name]
    numeric = _INT.fullmatch(value) is not None
    if kind == "CLOCK" and not (numeric and int(value) >= NO_CAP):
        raise ConfError(f"line {number}: {name} {arg} {value!r} is not an integer >= -1 (a CLOCK value)")
    for a in (arg, arg + KNEXT):
        if a in paths:
            out[paths[a]] = int(value) if numeric else value


def read_conf_text(tree: SysfsTree, rel: str = CONF_REL) -> str:
    """The configuration's text through the tree root, or :class:`ConfError` saying why not
    (``rel``: another NVIDIA daemon's configuration read the same way, hw/nvfanconf.py)."""
    try:
        real = tree.resolve(rel)
        if not stat.S_ISREG(os.stat(real).st_mode):
            raise ConfError("not a regular file")
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            raw = os.read(fd, MAX_CONF_BYTES + 1)
        finally:
            os.close(fd)
    except SensorError as e:
        raise ConfError("its link leads outside the root") from e
    except FileNotFoundError as e:
        raise ConfError("missing") from e
    except OSError as e:
        raise ConfError(f"unreadable ({errno_name(e.errno)})") from e
    if len(raw) > MAX_CONF_BYTES:
        raise ConfError(f"larger than {MAX_CONF_BYTES} bytes")
    if b"\0" in raw:  # text has none; a block of NULs is what a torn write leaves after a crash
        raise ConfError("holds NUL bytes, not text (a torn or damaged file?)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfError("not UTF-8 text") from e


def mode_writes(tree: SysfsTree, mode: int, max_rels: Iterable[str]) -> dict[str, int | str]:
    """Which of ``max_rels`` (thermogov's owned max attributes, root-relative) the mode sets, and
    to what: {max_rel: value}.  Paths are compared after resolving both through the root (a
    configuration names ``cpu0/cpufreq``, a link to the ``policy0`` thermogov owns).

    :class:`ConfError` when the file cannot be used, and when the mode sets none of them: every
    stock mode caps the CPU clusters and the GPU, so a mode that names none of the governed
    windows is another board's file (a link left from an older image), which would make restore
    lift every window the mode did write."""
    modes = parse_modes(read_conf_text(tree))
    if mode not in modes:
        raise ConfError(f"defines no POWER_MODEL ID={mode} (the mode nvpmodel recorded)")
    by_real: dict[str, int | str] = {}
    for path, value in modes[mode].items():
        try:
            by_real[tree.resolve(path.lstrip("/"))] = value
        except SensorError:
            continue  # a path leading out of the root is no file thermogov owns
    out = {}
    for rel in max_rels:
        try:
            real = tree.resolve(rel)
        except SensorError:
            continue
        if real in by_real:
            out[rel] = by_real[real]
    if not out:
        raise ConfError(f"its POWER_MODEL ID={mode} sets none of the governed windows")
    return out
