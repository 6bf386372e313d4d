"""Which filesystem a file lives on, by its device number, from ``/proc/self/mountinfo``.

Why the daemon cares: a descriptor kept open on a *sysfs* attribute cannot come to read a
file its path no longer names, so it needs no per-read check (:mod:`thermogov.hw.sysfs`).
Userspace cannot rename, unlink or link anything in sysfs (kernfs gives sysfs directories no
``rename``/``unlink``/``symlink`` operations for userspace: ``fs/kernfs/dir.c``,
``kernfs_dir_iops``), so the path keeps naming the attribute until the kernel itself removes
it, and then every read of an open descriptor fails with ``ENODEV`` (``fs/kernfs/file.c``:
``kernfs_fop_read_iter`` and ``kernfs_seq_start`` return ``-ENODEV`` once
``kernfs_get_active`` fails on a removed node).  A fake tree on tmpfs or a disk (tests, the
emulator) has none of these guarantees: files are renamed over and removed there, and keep
their per-read check.

``st_dev`` of a file equals the ``major:minor`` field of its mount's line in
``/proc/self/mountinfo`` (proc(5), "/proc/pid/mountinfo", field 3; the filesystem type is the
first field after the ``-`` separator).  Unknown devices, or no ``/proc``, mean "not sysfs":
the safe answer.
"""

from __future__ import annotations

import os
from collections.abc import Callable

MOUNTINFO = "/proc/self/mountinfo"
# Filesystems whose open attributes stay bound to the path (see the module doc).  A module
# constant, so a bench can emulate a board's sysfs on a tmpfs tree (bench/daemon_footprint.py).
STABLE_FS_TYPES = frozenset({"sysfs"})


def parse_mountinfo(text: str) -> dict[int, str]:
    """Device number -> filesystem type, for every mount in a ``mountinfo`` text."""
    types: dict[int, str] = {}
    for line in text.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 3:
            continue
        major, _, minor = fields[2].partition(":")
        fstype = line.split(" - ", 1)[1].split(" ", 1)[0]
        if major.isdigit() and minor.isdigit() and fstype:
            types.setdefault(os.makedev(int(major), int(minor)), fstype)
    return types


def mount_types(path: str = MOUNTINFO) -> dict[int, str]:
    """The running system's mounts; empty if ``/proc`` cannot be read (nothing is trusted)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return parse_mountinfo(fh.read())
    except OSError:
        return {}


class StableDevices:
    """``stable(st_dev)``: is this device a filesystem in :data:`STABLE_FS_TYPES`?

    ``mountinfo`` is read once, at the first question (the daemon's start-up, when it first
    opens a kept attribute), not per read.
    """

    def __init__(self, reader: Callable[[], dict[int, str]] = mount_types) -> None:
        self._reader = reader
        self._types: dict[int, str] | None = None

    def stable(self, dev: int) -> bool:
        if self._types is None:
            self._types = self._reader()
        return self._types.get(dev) in STABLE_FS_TYPES
