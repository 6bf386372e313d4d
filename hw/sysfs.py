"""The one door to the board's kernel files: every sysfs/procfs open goes through ``SysfsTree``.

Why one class: the root is injected (``/`` on a board, a ``tmp_path`` in tests, a tree an
emulator rewrites while the daemon runs), so nothing else may build a path or call ``open``.
It also concentrates the three safety rules in one place:

* a path that resolves (following symlinks) outside the root is refused, so a fake tree with
  a stray absolute link can never make a test touch the real ``/sys``;
* only attributes registered with :meth:`SysfsTree.own` can be written: the daemon owns the
  frequency limits it journals, a dry run owns nothing, so a bug cannot write elsewhere;
* a write reaches exactly the regular file that was owned (device and inode recorded at
  ``own``; :mod:`thermogov.hw.confine`): a cap file or directory swapped for a symlink after
  start-up is refused with ``ConfinementError`` instead of being followed;
* every ``OSError`` becomes a ``SensorError`` (reads) or ``ActuatorError`` (writes) naming the
  path and the errno (EIO, ENODATA, EBUSY, EACCES, EINVAL ...) with a hint how to fix it.

Values are never cached: a sensor value must be the kernel's value now.  Most files are opened
fresh on every read; the few a run reads every period (sensors, effective clocks, power rails,
the power supplies' state) are registered with :meth:`SysfsTree.keep_open` and read with
``pread`` at offset 0 on a descriptor kept open, which makes sysfs call the attribute's ``show()`` again
(Documentation/filesystems/sysfs.rst, "pread(2) with an offset of 0"; kernel commit 2424b5dd062c
"sysfs: refill attribute buffer when reading from offset 0").  On a real sysfs a kept
descriptor needs no check per read: userspace cannot rename, remove or replace anything there,
and once the kernel removes the attribute the descriptor reads ``ENODEV``, upon which the path
is opened afresh (:mod:`~thermogov.hw.fstype` gives the kernel sources).  That saves a ``stat``
per read, which in the daemon costs as much as the read itself.  Anywhere else (a fake tree
on tmpfs or a disk) a kept descriptor is re-validated on every read the way a fresh open
would resolve the path: the path is ``stat``-ed (following
links, as ``open`` does) and its device and inode must be the descriptor's, otherwise the
descriptor is closed and the path opened again, so an external process that renames a new
file over a fake tree's ``temp`` (or swaps a directory) is seen at the next read, and a kept
descriptor never reads a file the path no longer names.  Reads use ``O_NONBLOCK`` so a FIFO
planted in a tree reads as empty instead of blocking the control loop (only regular files are
kept open); writes refuse anything but a regular file and never use a kept descriptor.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import stat
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from thermogov.hw import confine
from thermogov.hw.fstype import StableDevices
from thermogov.interfaces import ActuatorError, SensorError

# The kernel prints integer attributes with ``sprintf("%d\n")`` (sysfs_emit, see
# Documentation/filesystems/sysfs.rst): an optional minus, ASCII digits, a newline.  Python's
# ``int`` also takes ``+90000``, ``9_0000``, `` 90000`` and Arabic-Indic digits (``٩٠٠٠٠``), none
# of which a driver writes, so a value is accepted only in the kernel's own format (20 digits
# cover a 64-bit value).  Trailing NULs and blanks are tolerated: some drivers pad the buffer.
_SYSFS_INT = re.compile(rb"-?[0-9]{1,20}")
_SYSFS_INT_TAIL = b"\n\x00 \t"
_MAX_DIGITS = 20  # as in _SYSFS_INT
_MAX_ATTR_BYTES = 65536  # sysfs attributes are at most one page; procfs model strings are short
_INT_READ_BYTES = 64  # a number is at most 21 bytes with its newline; a longer read is re-read whole
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC

_HINTS = {
    errno.EIO: "the driver failed to talk to the hardware; the device may be offline",
    errno.ENODATA: "the driver has no value yet (sensor not ready or offline)",
    errno.EBUSY: "the device is busy or the cpufreq policy is inactive (CPU offline?)",
    errno.EACCES: "permission denied: run as root, or the devfreq governor forbids changing limits",
    errno.EPERM: "operation not permitted: run as root",
    errno.EINVAL: "the kernel rejected the value (pre-5.4 kernels refuse min > max)",
    errno.ENOENT: "the attribute does not exist on this kernel/board; run `thermogov doctor`",
    errno.EAGAIN: "the attribute would block; it is not a plain sysfs file",
}
# Where a read means something else than a write: EINVAL from show() is the driver refusing
# to report the value (it took no value from us), not a rejected write.
_READ_HINTS = {
    **_HINTS,
    errno.EINVAL: "the driver refused to report the value; run `thermogov doctor` and check the driver",
}


_LINK_REFUSED = "{}: is a symlink; a sysfs attribute never is, refusing to own it (fix the tree)"


def errno_name(code: int | None) -> str:
    """``EIO`` for 5: messages name the errno the way kernel docs and strace do."""
    if code is None:
        return "E?"
    return errno.errorcode.get(code, f"errno {code}")


def _close_kept(kept: dict[str, list[int]]) -> None:
    """Close every kept descriptor; the paths stay registered and reopen on their next read."""
    for entry in kept.values():
        if entry:
            fd = entry[0]
            entry.clear()
            os.close(fd)


def _special_kind(path: Path) -> str:
    """ "a FIFO", "a socket" or "a device node" when ``path`` names one, else "" (only on an
    error path: a read that came back empty)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device node" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else ""


def natural_key(name: str) -> tuple[object, ...]:
    """Sort ``thermal_zone2`` before ``thermal_zone10`` (the kernel's numbering order)."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


class SysfsTree:
    """A root-relative view of ``/sys`` and ``/proc`` with guarded reads and owned writes.

    Paths passed in are relative to the root (``"sys/class/thermal"``); a leading ``/`` is
    accepted and ignored so board paths can be pasted as they appear in documentation.
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._real_root = os.path.realpath(self.root)
        self._owned: dict[str, confine.FileId] = {}
        self._resolved: dict[str, str] = {}
        self._shown: dict[str, str] = {}  # rel -> its name in messages (built once: see show)
        # real path -> [fd, dev, ino, dir_dev, dir_ino, on_sysfs] of its kept descriptor ([] until read)
        self._kept: dict[str, list[int]] = {}
        self._stable = StableDevices()
        # A device folder's hardware range, read once a run (hw/hwrange.py); dropped by release_member.
        self.ranges: dict[str, tuple[int, int, str]] = {}
        self._finalizer = weakref.finalize(self, _close_kept, self._kept)

    # -- paths ------------------------------------------------------------------------------
    def path(self, rel: str) -> Path:
        """The path under the root, unresolved (for messages and listings)."""
        return self.root / rel.lstrip("/")

    def show(self, rel: str) -> str:
        """How a path is named in messages: as the board sees it when the root is ``/``.

        Memoised: the hot paths pass the name along with every read of an owned or throttle
        attribute (in case it fails), and building a ``Path`` costs more than the read.
        """
        shown = self._shown.get(rel)
        if shown is None:
            shown = str(self.path(rel))
            if len(self._shown) < 4096:  # a tree walked by doctor must not grow it without end
                self._shown[rel] = shown
        return shown

    def _inside(self, real: str) -> bool:
        base = self._real_root.rstrip(os.sep) + os.sep
        return real == self._real_root or real.startswith(base)

    def resolve(self, rel: str, error: type[SensorError] | type[ActuatorError] = SensorError) -> str:
        """Real path of ``rel``; raises ``error`` if it escapes the root through a symlink.

        The resolution is memoised per path: ``realpath`` costs ~60 µs on a deep tree (an
        ``lstat`` per component), six times the read itself, and the link layout of ``/sys`` is
        fixed by the kernel.  Values are never memoised: every read opens the file again.
        Only a path that exists is memoised: one resolved while absent (a devfreq device or a
        cpufreq policy the daemon waits for, hw/lateclusters.py) resolves lexically, and if it
        were kept, the class link that appears later would be followed unchecked, out of the
        root if it points there.
        """
        real = self._resolved.get(rel)
        if real is not None:
            return real
        if "\0" in rel:  # names no file (realpath raises ValueError); from a journal or nvpmodel.conf
            raise error(f"{rel!r}: a path with a NUL byte names no file")
        p = self.path(rel)
        real = os.path.realpath(p)
        if not self._inside(real):
            raise error(
                f"{p}: resolves to {real}, outside the sysfs root {self.root}; "
                "refusing to follow the symlink (fix the tree or --sysfs-root)"
            )
        if os.path.exists(real):
            self._resolved[rel] = real
        return real

    def relative(self, real: str) -> str:
        """Root-relative form of a real path inside the root (for journals and reports)."""
        return os.path.relpath(real, self._real_root)

    # -- listing ----------------------------------------------------------------------------
    def exists(self, rel: str) -> bool:
        try:
            return os.path.exists(self.resolve(rel))
        except SensorError:
            return False

    def is_dir(self, rel: str) -> bool:
        try:
            return os.path.isdir(self.resolve(rel))
        except SensorError:
            return False

    def listdir(self, rel: str, pattern: str = "") -> list[str]:
        """Entry names of a directory in kernel order; ``pattern`` is a regex the name must match.

        A missing directory lists as empty: a board without devfreq simply has no GPU domain.
        """
        try:
            real = self.resolve(rel)
            names = os.listdir(real)
        except (OSError, SensorError):
            return []
        rx = re.compile(pattern) if pattern else None
        return sorted((n for n in names if rx is None or rx.fullmatch(n)), key=natural_key)

    # -- reads ------------------------------------------------------------------------------
    def keep_open(self, rel: str, error: type[SensorError] | type[ActuatorError] = SensorError) -> None:
        """Read ``rel`` through a descriptor kept open from its first read on (see the module doc).

        For attributes read every period; :meth:`close` (or the tree's collection) closes them.
        A path that does not resolve inside the root is not kept: its reads raise as before.
        """
        try:
            real = self.resolve(rel, error)
        except (SensorError, ActuatorError):
            return
        self._kept.setdefault(real, [])

    def close(self) -> None:
        """Close the kept descriptors (the daemon does on exit); later reads reopen them."""
        _close_kept(self._kept)

    def _read_bytes(self, real: str) -> bytes:
        """Read one attribute.  Tests override this hook to inject EIO, ENODATA and friends.

        ``O_NONBLOCK`` is what keeps a FIFO from blocking the loop (it reads as empty or
        EAGAIN); a directory fails with EISDIR.  A kept attribute costs a ``stat`` and a
        ``pread`` instead of ``open``, ``read`` and ``close``.
        """
        kept = self._kept.get(real)
        if kept is None:
            fd = os.open(real, _READ_FLAGS)
        else:
            if kept:  # the every-period case, inline
                if kept[5]:  # on sysfs the descriptor stays the path's attribute until ENODEV
                    try:
                        return os.pread(kept[0], _MAX_ATTR_BYTES, 0)
                    except OSError as e:
                        if e.errno != errno.ENODEV:
                            raise
                    fd = kept[0]  # the kernel removed it: open the path afresh, as at start
                    kept.clear()
                    os.close(fd)
                else:  # elsewhere: the path must still name the kept file
                    st = os.stat(real)  # OSError (ENOENT ...) as open would raise
                    if st.st_ino == kept[2] and st.st_dev == kept[1]:
                        return os.pread(kept[0], _MAX_ATTR_BYTES, 0)
            fd = self._open_kept(real, kept)
            if kept:
                return os.pread(fd, _MAX_ATTR_BYTES, 0)
        try:
            return os.read(fd, _MAX_ATTR_BYTES)
        finally:
            os.close(fd)

    def _open_kept(self, real: str, kept: list[int]) -> int:
        """The kept descriptor of ``real`` if the path still names its file, else a fresh one.

        ``kept`` is ``[fd, dev, ino, dir_dev, dir_ino, on_sysfs]`` (empty before the first open):
        the file's identity, its directory's, and whether it lives on sysfs.  A file renamed over in the very directory that
        was resolved at start (an emulator's atomic rewrite, every period) reopens with
        ``O_NOFOLLOW`` and no re-resolution; any other change (a directory swapped, the file
        replaced by a link) is resolved again under :meth:`resolve`'s rule first.  A new
        regular file becomes the kept one; anything else (a FIFO, a directory) is returned
        open for one plain read and is not kept.
        """
        quick = False
        dst: os.stat_result | None = None
        if kept:
            st = os.stat(real)  # what the path names now; OSError (ENOENT ...) as open would
            if st.st_ino == kept[2] and st.st_dev == kept[1]:
                return kept[0]
            fd, dir_dev, dir_ino = kept[0], kept[3], kept[4]
            kept.clear()  # another file (renamed over, or a swapped directory): reopen
            os.close(fd)
            dst = os.stat(os.path.dirname(real))
            quick = dst.st_ino == dir_ino and dst.st_dev == dir_dev
        fd = -1
        if quick:
            with contextlib.suppress(OSError):  # ELOOP: a link now; resolved below
                fd = os.open(real, _READ_FLAGS | os.O_NOFOLLOW)
        if fd < 0:
            if not self._inside(os.path.realpath(real)):  # resolve()'s rule, on every (re)open
                raise OSError(errno.ELOOP, "now resolves outside the sysfs root through a symlink")
            fd = os.open(real, _READ_FLAGS)
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            if not quick or dst is None:
                dst = os.stat(os.path.dirname(real))
            kept.extend((fd, st.st_dev, st.st_ino, dst.st_dev, dst.st_ino, self._stable.stable(st.st_dev)))
        return fd

    def _read_error(
        self, rel: str, e: OSError, error: type[SensorError] | type[ActuatorError]
    ) -> SensorError | ActuatorError:
        hint = _READ_HINTS.get(e.errno or 0, "check the file")
        return error(f"{self.path(rel)}: read failed ({errno_name(e.errno)}: {e.strerror}); {hint}")

    def read_bytes(self, rel: str, error: type[SensorError] | type[ActuatorError] = SensorError) -> bytes:
        real = self._resolved.get(rel) or self.resolve(rel, error)
        if self._owned:
            ident = self._owned.get(real)
            if ident is not None:  # a limit we write: read what we would write, nothing else
                confine.check(real, ident, self.show(rel))
        try:
            raw = self._read_bytes(real)
        except OSError as e:
            raise self._read_error(rel, e, error) from e
        if len(raw) >= _MAX_ATTR_BYTES:
            # Cut at the buffer's end, a list's last number would be a piece of one (an OPP
            # table of 10^5 entries read as its first 6000 and a bogus 7.69 MHz); no sysfs
            # attribute is longer than a page, so the file is refused, not read in part.
            raise error(
                f"{self.path(rel)}: {_MAX_ATTR_BYTES} bytes or more, longer than any sysfs attribute "
                "(one page); not read: check the --sysfs-root and the driver"
            )
        return raw

    def read_text(self, rel: str, error: type[SensorError] | type[ActuatorError] = SensorError) -> str:
        """The attribute as text, without trailing newline/NUL (device-tree strings end in NUL)."""
        raw = self.read_bytes(rel, error)
        return raw.decode("utf-8", errors="replace").replace("\x00", " ").strip()

    def read_int(self, rel: str, error: type[SensorError] | type[ActuatorError] = SensorError) -> int:
        """A whole number in the kernel's ``%d\\n`` format."""
        raw = self.read_bytes(rel, error)
        body = raw.rstrip(_SYSFS_INT_TAIL)
        if _SYSFS_INT.fullmatch(body):
            return int(body)
        self._not_int(rel, raw, error)

    def int_reader(
        self, rel: str, error: type[SensorError] | type[ActuatorError] = SensorError
    ) -> Callable[[], int]:
        """``read_int(rel, error)`` as one function, for an attribute read every period (the
        daemon's hot path): the path is resolved once, here, and a read is one Python frame
        above the file work instead of three (each costs several µs on a cold wake-up).

        An owned attribute (a limit we write) still takes :meth:`read_int`, with its
        confinement check; a path that does not resolve inside the root raises on every read,
        as :meth:`read_int` does.
        """
        try:
            real = self.resolve(rel, error)
        except (SensorError, ActuatorError):
            return functools.partial(self.read_int, rel, error)
        owned = self._owned
        # The kept sysfs descriptor is read here, not through _read_bytes: one Python frame less
        # per read, and a small buffer (a 64 KiB one is a malloc that consolidates the heap).
        # Not when _read_bytes is replaced (tests inject errors there, a bench counts reads).
        kept_get = self._kept.get if self._plain_reads() else None

        def read() -> int:
            if owned and real in owned:
                return self.read_int(rel, error)
            try:
                kept = kept_get(real) if kept_get is not None else None
                if kept and kept[5]:  # on sysfs, the every-period case
                    try:
                        raw = os.pread(kept[0], _INT_READ_BYTES, 0)
                    except OSError as e:
                        if e.errno != errno.ENODEV:
                            raise
                        raw = self._read_bytes(real)  # the kernel removed it: reopens the path
                    if len(raw) >= _INT_READ_BYTES:  # longer than any number: read it whole
                        raw = self._read_bytes(real)
                else:
                    raw = self._read_bytes(real)
            except OSError as e:
                raise self._read_error(rel, e, error) from e
            body = raw.rstrip(_SYSFS_INT_TAIL)
            # bytes.isdigit is ASCII digits only: the common unsigned value without the regex
            # engine (its code is one more thing a cold wake-up loads); signed ones take the regex.
            if (body.isdigit() and len(body) <= _MAX_DIGITS) or _SYSFS_INT.fullmatch(body):
                return int(body)
            self._not_int(rel, raw, error)

        return read

    def _plain_reads(self) -> bool:
        """True when :meth:`_read_bytes` is this class's own (not a test's or a bench's hook)."""
        return "_read_bytes" not in vars(self) and type(self)._read_bytes is _PLAIN_READ_BYTES

    def _not_int(self, rel: str, raw: bytes, error: type[SensorError] | type[ActuatorError]) -> NoReturn:
        text = raw.decode("utf-8", errors="replace").replace("\x00", " ")
        if not text.strip():
            kind = _special_kind(self.path(rel))
            if kind:  # a FIFO reads empty without blocking (O_NONBLOCK): say what it is instead
                raise error(
                    f"{self.path(rel)}: empty ({kind}, not a sysfs attribute); check the --sysfs-root"
                )
            raise error(f"{self.path(rel)}: empty, expected a whole number; the driver gave no value")
        # Shown as read, less the tails a number may carry: stripping every blank showed
        # "'2400000' is not a whole number" for "2400000\r\n" or " 2400000", hiding the cause.
        text = text.rstrip(_SYSFS_INT_TAIL.decode())
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise error(
            f"{self.path(rel)}: {shown!r} is not a whole number in sysfs format (ASCII digits); "
            "the driver gave no value"
        )

    def read_ints(self, rel: str, error: type[SensorError] | type[ActuatorError] = SensorError) -> list[int]:
        """A space-separated list (``scaling_available_frequencies`` has a trailing space).

        A NUL byte is refused: :meth:`read_text` shows it as a space (device-tree strings end in
        one), which read ``76800000 \\x00153600000`` as two OPPs; the kernel prints none in a list."""
        raw = self.read_bytes(rel, error)
        if b"\x00" in raw:
            raise error(
                f"{self.path(rel)}: holds a NUL byte; expected space-separated whole numbers (fix the tree)"
            )
        text = raw.decode("utf-8", errors="replace").strip()
        tokens = text.split(" ")  # the kernel separates with single spaces (trailing one stripped)
        if not all(_SYSFS_INT.fullmatch(t.encode("utf-8", errors="replace")) for t in tokens if t):
            raise error(f"{self.path(rel)}: expected space-separated whole numbers, got {text[:60]!r}")
        values = [int(t) for t in tokens if t]
        if not values:
            kind = _special_kind(self.path(rel))
            if kind:
                raise error(
                    f"{self.path(rel)}: empty list ({kind}, not a sysfs attribute); check the --sysfs-root"
                )
            raise error(f"{self.path(rel)}: empty list; expected space-separated whole numbers")
        return values

    # -- writes -----------------------------------------------------------------------------
    def own(self, rel: str) -> None:
        """Register an attribute as writable by this process (it must already exist).

        The regular file found now (device, inode) is the only file later writes may reach.
        Owning an attribute twice keeps the first identity: a restore re-owning a file that
        was swapped since start-up must not bless the swap.
        """
        real = self.resolve(rel, ActuatorError)
        if self._attribute_is_link(rel):
            raise confine.ConfinementError(_LINK_REFUSED.format(self.path(rel)))
        if not os.path.isfile(real):
            raise ActuatorError(f"{self.path(rel)}: no such attribute to own; run `thermogov doctor`")
        if real not in self._owned:
            self._owned[real] = confine.identify(real, self.show(rel))

    def disown(self, rels: Sequence[str]) -> None:
        """Let go of attributes owned a moment ago, before anything was journaled or written
        (a start-up that failed half-way, :meth:`thermogov.hw.devices.CapActuator.open`): what
        the run never journaled it must not hold."""
        for rel in rels:
            real = self._resolved.get(rel)
            if real is not None:
                self._owned.pop(real, None)

    def unownable(self, rel: str) -> str:
        """Why :meth:`own` would refuse ``rel`` as the file it names now ("" when it would not).

        Asked before anything is journaled for an attribute found after start (a cluster that
        came online, :mod:`thermogov.hw.lateclusters`): the path's resolution memoised at start
        says nothing of a link planted since, so the path is resolved afresh here.
        """
        p = self.path(rel)
        if self._attribute_is_link(rel):
            return _LINK_REFUSED.format(p)
        real = os.path.realpath(p)
        if not self._inside(real):
            return f"{p}: resolves to {real}, outside the sysfs root {self.root}; refusing to own it"
        memo = self._resolved.get(rel)
        if memo is not None and memo != real:  # a folder on the way swapped for a link since
            return f"{p}: now resolves to {real}, not to {memo} as when first read; refusing to own it"
        if not os.path.isfile(real):
            return f"{p}: not a regular file; refusing to own it (fix the tree)"
        return ""

    def owned_real(self, rel: str) -> str:
        """The real path of the file owned at ``rel`` ("" when none is): where it was owned,
        whatever lies at the path now (hw/departures.py keeps it for a member that went away)."""
        real = self._resolved.get(rel, "")
        return real if real in self._owned else ""

    def taken(self, rel: str) -> str:
        """Why ``rel`` names a file already owned, another member's ("" when it does not).

        Asked with :meth:`unownable` for a member that joins mid-run (hw/lateclusters.py
        ``adopt``): :meth:`own` keeps the first identity of a file owned twice, so a member
        whose folder is another governed member's would be journaled, capped and restored as a
        second window of the same file (review 20r (d))."""
        real = os.path.realpath(self.path(rel))
        if real in self._owned:
            return (
                f"{self.path(rel)}: resolves to {real}, a file thermogov already governs for another member"
            )
        return ""

    def _attribute_is_link(self, rel: str) -> bool:
        """Directories in sysfs are links (class/devfreq/X), attributes never are."""
        p = self.path(rel)
        return os.path.islink(os.path.join(os.path.realpath(p.parent), p.name))

    def release_member(self, clock_rel: str, limits: Sequence[str] = ()) -> None:
        """Let go of a member that went away (hw/departures.py): its ``limits`` disowned, the
        descriptor kept for its clock ``clock_rel`` closed, and every memo of its folder dropped.

        A device probed again has new files, owned afresh once it is judged again, never under
        the old identity; a limit whose path is refused now (a link planted out of the root) was
        never owned under it.  The clock's descriptor of a removed attribute is closed, not kept
        on a dead inode.  Every resolution kept for the member's folder and what lies under it
        goes, so a file made again at a path is resolved afresh under :meth:`resolve`'s rule: the
        class entry itself (``class/devfreq/<name>``, resolved by discovery's own-folder check)
        is a link the kernel makes again with the device, and one planted out of the root in its
        place must meet the root check, not the memo of the link that went away.  So does the
        folder's hardware range (a device probed again may have another table)."""
        for rel in limits:
            try:
                real = self._resolved.pop(rel, None) or self.resolve(rel, ActuatorError)
            except ActuatorError:
                continue  # refused now: never owned under it
            self._owned.pop(real, None)
        clock_real = self._resolved.pop(clock_rel, None)
        entry = self._kept.pop(clock_real, None) if clock_real is not None else None
        if entry:
            os.close(entry[0])
        folder = clock_rel.rpartition("/")[0]
        for key in [k for k in self._resolved if k == folder or k.startswith(folder + "/")]:
            del self._resolved[key]
        self.ranges.pop(folder, None)

    def remade(self, rel: str) -> bool:
        """Whether an owned attribute that is no longer the file owned went the kernel's way:
        nothing at its recorded path now (its folder removed with the device or policy), or a
        new regular file reached exactly as the owned one was (the folder made again).  A link
        planted at it or on the way is not (False): that is a tampered tree, whose refusal
        (:mod:`~thermogov.hw.confine`, failsafe) stands.  Only asked once :meth:`still_owned`
        said no (hw/departures.py), so the ``realpath`` it costs is paid then only."""
        real = self._resolved.get(rel)
        ident = self._owned.get(real) if real is not None else None
        if real is None or ident is None:
            return False
        try:
            st = os.lstat(real)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        if confine.FileId.of(st) == ident or not stat.S_ISREG(st.st_mode):
            return False  # the very file (no change), or a link planted at it
        return os.path.realpath(self.path(rel)) == real

    def still_owned(self, rel: str) -> bool:
        """Whether ``rel`` is still the very file owned (not gone, not replaced by a new one)."""
        real = self._resolved.get(rel)
        ident = self._owned.get(real) if real is not None else None
        if real is None or ident is None:
            return False
        try:
            confine.check(real, ident, self.show(rel))
        except confine.ConfinementError:
            return False
        return True

    def owned_identity(self, rel: str) -> confine.FileId | None:
        """The identity ``rel`` was owned under (None when not owned): what a write may reach."""
        real = self._resolved.get(rel)
        if real is None:
            try:
                real = self.resolve(rel, ActuatorError)
            except ActuatorError:
                return None
        return self._owned.get(real)

    def identity_now(self, rel: str) -> confine.FileId | None:
        """The regular file at ``rel`` now (its last component not followed), None for anything
        else (gone, a link, outside the root): what :meth:`own` would record."""
        if self.unownable(rel):
            return None
        try:
            return confine.identify(os.path.realpath(self.path(rel)), self.show(rel))
        except confine.ConfinementError:
            return None

    def on_sysfs(self, dev: int) -> bool:
        """Is ``dev`` a sysfs mount (hw/fstype.py; unknown: no)."""
        return self._stable.stable(dev)

    def owned(self) -> frozenset[str]:
        """Root-relative paths of the owned attributes (what a journal must cover)."""
        return frozenset(self.relative(r) for r in self._owned)

    def _write_bytes(self, real: str, data: bytes) -> None:
        """Write one owned attribute, confined to the recorded file (O_NOFOLLOW + fstat).

        Tests override this hook to model kernel write semantics; :meth:`write_int` has
        already checked the path, this re-checks on the descriptor itself (no race).
        """
        ident = self._owned.get(real)
        if ident is None:
            raise confine.ConfinementError(f"{real}: not an owned attribute; refusing to write")
        confine.write_confined(real, ident, data, real)

    def write_int(self, rel: str, value: int) -> None:
        """Write a whole number (with the newline ``echo`` would add) to an owned attribute."""
        real = self.resolve(rel, ActuatorError)
        ident = self._owned.get(real)
        if ident is None:
            raise ActuatorError(f"{self.path(rel)}: not an attribute thermogov owns; refusing to write")
        confine.check(real, ident, self.show(rel))
        try:
            self._write_bytes(real, f"{int(value)}\n".encode())
        except OSError as e:
            name = errno_name(e.errno)
            hint = _HINTS.get(e.errno or 0, "check the file")
            raise ActuatorError(
                f"{self.path(rel)}: write of {value} failed ({name}: {e.strerror}); {hint}"
            ) from e


_PLAIN_READ_BYTES = SysfsTree._read_bytes  # see SysfsTree._plain_reads
