"""thermogov's last written cap of each window, kept on the runtime tmpfs next to the board lock.

Why: after a ``kill -9`` and an operator's ``nvpmodel -m`` (before it or while the daemon is
dead), the journal's windows are the old mode's and the files hold either what the new mode
wrote or thermogov's last cap; a file alone cannot tell the two apart, so session 15's journal
restore left every window as it read, and a window the mode did not write kept thermogov's cap
until reboot.  With this record a journal restore under another mode
(:func:`thermogov.hw.journal.into_new_mode`) can tell them apart: a window reading exactly the
value thermogov last wrote there is taken as thermogov's and gets its journaled value back
(already clamped into today's hardware range, the only limit of the new mode a restore can
know); any other value is the mode's and stays.  The one case the record cannot see: a mode
that wrote the very value thermogov's cap had (then the mode's value is lifted, said in the
restore's line), unless nvpmodel's own configuration says the mode sets that window
(:mod:`thermogov.hw.nvpmodelconf`, consulted first).

Where and how long: ``<lock-dir>/caps-<hash>`` (``/run/thermogov`` by default, the hash of the
resolved sysfs root as in :mod:`thermogov.hw.boardlock`), root's, written after each cap change
and never fsynced: a ``kill -9`` keeps the page cache (and ``/run`` is a tmpfs anyway), a power
cut reboots, which resets the limits and makes the journal one of an earlier boot.  The record
names the boot (``proc/sys/kernel/random/boot_id`` read through the sysfs root, like the
journal's), the resolved root and the pid of the run that wrote it; a restore uses it only when
all three match the journal and the board now, so a record left by another boot, another board
root or another run is ignored (the restore is then session 15's: each window as it reads).  A
root without a boot id (a test tree; every Linux since 2.6 has one) records an empty one, which
matches only an empty one: the pid and root still tie the record to the journal's run, and on a
board ``/run`` itself is cleared at boot.

Cost: one descriptor kept open, one ``pwrite`` of a few hundred bytes per cap change (plus an
``ftruncate`` when the text got shorter), no rename, no fsync.  A reader after a ``kill -9``
mid-write finds the text cut or mixed with an older one's tail: the text ends with a line
holding its CRC-32 (a torn-write check, not a signature: the folder is root's), and anything
after that first end line is ignored, so a torn record is no record.
"""

from __future__ import annotations

import contextlib
import os
import stat
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path

from thermogov.hw import confine
from thermogov.hw.sysfs import SysfsTree

MAGIC = "thermogov-last-caps 1"
MAX_BYTES = 1 << 16


def last_caps_path(board_lock: Path) -> Path:
    """``<lock-dir>/caps-<hash>``: the board lock's sibling (``BoardLock.path``), same hash."""
    return board_lock.with_name("caps-" + board_lock.name.removeprefix("board-").removesuffix(".lock"))


def _text(header: str, caps: Mapping[str, tuple[int, int]], fans: Mapping[str, tuple[int, ...]]) -> bytes:
    body = header + "".join(f"w {lo} {hi} {rel}\n" for rel, (lo, hi) in caps.items())
    body += "".join(f"f {','.join(map(str, vs))} {rel}\n" for rel, vs in fans.items())
    return f"{body}end {zlib.crc32(body.encode()):08x}\n".encode()


class LastCaps:
    """The record of one run: :meth:`wrote` after each window write, :meth:`flush` once per change."""

    def __init__(self, path: Path, fd: int, header: str, log: Callable[[str], None]) -> None:
        self.path = path
        self._fd: int | None = fd
        self._header = header
        self._log = log
        self._caps: dict[str, tuple[int, int]] = {}
        self._fans: dict[str, tuple[int, ...]] = {}
        self._size = 0

    @classmethod
    def create(
        cls, tree: SysfsTree, boot_id: str, board_lock: Path, log: Callable[[str], None]
    ) -> LastCaps | None:
        """A fresh record for this run (the last one's was read by the journal restore before),
        or None, said once, when it cannot be written: a restore then leaves windows as they read."""
        path = last_caps_path(board_lock)
        try:
            fd = confine.open_private(str(path), os.O_RDWR, 0o600, fresh=True)
        except OSError as e:
            log(
                f"warning: {path}: cannot record thermogov's caps ({e.strerror}); after a kill -9 and "
                "a power-mode change a restore leaves every window as it reads"
            )
            return None
        header = f"{MAGIC}\nboot {boot_id}\npid {os.getpid()}\nroot {os.path.realpath(tree.root)}\n"
        record = cls(path, fd, header, log)
        record.flush()
        return record

    def wrote(self, max_rel: str, window: tuple[int, int]) -> None:
        """The window (min, max) a write of thermogov's left in force (read back, file units)."""
        self._caps[max_rel] = window

    def fan_wrote(self, rel: str, values: tuple[int, ...]) -> None:
        """The values a fan attribute may read as thermogov's own (session 21f), flushed at once:
        before a write both the last and the new one (a ``kill -9`` between the write and this
        record must not make thermogov's own value look like another writer's), after it the
        value read back.  A journal restore puts the L4T fan back only while it reads one of
        these (:func:`thermogov.hw.journal.fan_rival`)."""
        self._fans[rel] = values
        self.flush()

    def flush(self) -> None:
        if self._fd is None:
            return
        data = _text(self._header, self._caps, self._fans)
        try:
            os.pwrite(self._fd, data, 0)
            if len(data) < self._size:
                os.ftruncate(self._fd, len(data))
            self._size = len(data)
        except OSError as e:
            self._log(f"warning: {self.path}: cannot record thermogov's caps ({e.strerror}); record dropped")
            self.discard()

    def discard(self) -> None:
        """No record any more (a clean exit restored every window, or a write failed: a stale
        record would pass an older cap off as the current one)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def record_paths(journaled: str, own: Path | None) -> list[Path]:
    """Where a journal's run may have kept its record: the path its journal names, then the
    record under this command's own lock dir (``own``, :func:`last_caps_path`).

    ``run --lock-dir A`` then ``restore`` with another lock dir (or the default) found no record
    under its own and fell back to leaving every window as it reads; the journal now names the
    record, so the restore reads the run's own.  A named path is taken only when it is absolute
    and has this board's record name (the same hash of the resolved root), so a journal cannot
    point a restore at any other file, and what is read there is still checked (boot id, pid,
    root, CRC).  Without ``own`` (a caller that keeps no record) there is none to look at.
    """
    if own is None:
        return []
    named = Path(journaled) if journaled else None
    if named is not None and named.is_absolute() and named.name == own.name and named != own:
        return [named, own]
    return [own]


def named_record_problem(
    journaled: str, own: Path | None, *, boot_id: str, pid: int, root: Path | str
) -> str | None:
    """Why the record a journal names (``caps_record``) is not its run's record, or None when it
    is, names none, or is gone (a record removed by hand: nothing there to be wrong).

    :func:`record_paths` passes such a path over, and before session 29h nothing said so (a
    forged or damaged journal's field went unseen).  Looked at without following a link or
    opening anything but a regular file (:func:`read_record`'s own rules)."""
    if not journaled or own is None:
        return None
    named = Path(journaled)
    if not named.is_absolute() or named.name != own.name:
        return f"is not a path to this board's record (an absolute path ending in {own.name})"
    try:
        st = os.lstat(named)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        return f"cannot be looked at ({getattr(e, 'strerror', None) or e})"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    # This command's own record (the journal names the one it would look at anyway) is read
    # by the restore when it needs it, and only then: not read here a second time.
    if named != own and read_record(named, boot_id=boot_id, pid=pid, root=root) is None:
        return f"is not a whole record of that run (pid {pid}) on this root"
    return None


Record = tuple[dict[str, tuple[int, int]], dict[str, tuple[int, ...]]]
"""A whole record's caps (by max attribute) and fan values (:meth:`LastCaps.fan_wrote`)."""


def first_whole_record(paths: list[Path], *, boot_id: str, pid: int, root: Path | str) -> Record | None:
    """The first whole record of the run ``pid`` among ``paths`` (:func:`record_paths`); None when
    there is none (then nobody can say which caps or fan values were thermogov's).

    One walk and one read for both of a restore's questions (its caps under a new power mode,
    its fan values for the rival rule): session 21 had a walk for each, and a restore asking
    both read the same file twice.
    """
    for path in paths:
        record = read_record(path, boot_id=boot_id, pid=pid, root=root)
        if record is not None:
            return record
    return None


def read_record(path: Path, *, boot_id: str, pid: int, root: Path | str) -> Record | None:
    """The caps and fan values of the run ``pid`` of this boot on ``root``; None without a whole
    record of that run (missing, torn, another boot, root or run)."""
    try:
        # O_NONBLOCK: a FIFO at the name (the journal may name any path of the record's name)
        # would block the restore forever; only a regular file is a record
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, MAX_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    text = raw.decode("utf-8", errors="replace")
    body, sep, rest = text.partition("\nend ")
    if not sep:
        return None
    body += "\n"
    if rest.split("\n", 1)[0] != f"{zlib.crc32(body.encode()):08x}":
        return None
    lines = body.splitlines()
    want = [MAGIC, f"boot {boot_id}", f"pid {pid}", f"root {os.path.realpath(root)}"]
    if lines[:4] != want:
        return None
    caps: dict[str, tuple[int, int]] = {}
    fans: dict[str, tuple[int, ...]] = {}
    for line in lines[4:]:
        if line.startswith("f "):
            fan = line.split(" ", 2)
            if len(fan) != 3 or not all(v.isdigit() for v in fan[1].split(",")):
                return None
            fans[fan[2]] = tuple(int(v) for v in fan[1].split(","))
            continue
        parts = line.split(" ", 3)
        if len(parts) != 4 or parts[0] != "w" or not (parts[1].isdigit() and parts[2].isdigit()):
            return None
        caps[parts[3]] = (int(parts[1]), int(parts[2]))
    return caps, fans
