"""Kept-open descriptors (``SysfsTree.keep_open``): per-period reads by ``pread``, re-validated.

The daemon reads its sensors, effective clocks and power rail every period through a descriptor
kept open; these tests hold it to the promises a fresh ``open`` per read gave: a value is the
file's value now, a file renamed over (an emulator's atomic rewrite) or a swapped directory is
seen at the next read, a path that now escapes the root is refused, a FIFO never blocks, and
nothing is reopened while the file stays the same.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from tests.hw.fakesys import FakeTree, KernelTree
from thermogov.hw import fstype
from thermogov.hw.devices import TempFileSensor
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

CLASS_TEMP = "sys/class/thermal/thermal_zone0/temp"
REAL_TEMP = "sys/devices/virtual/thermal/thermal_zone0/temp"


@pytest.fixture
def tree(tmp_path: Path) -> FakeTree:
    t = FakeTree(tmp_path / "root")
    t.zone(0, "cpu-thermal", 47712)
    return t


class CountingOpens:
    """Counts ``os.open`` calls on one real path (the cost a kept descriptor saves)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, real: str) -> None:
        self.n = 0
        real_open = os.open

        def counting(path: str, flags: int, *a: int) -> int:
            if os.fspath(path) == real:
                self.n += 1
            return real_open(path, flags, *a)

        monkeypatch.setattr(os, "open", counting)


def kept(st: SysfsTree, rel: str) -> tuple[int, ...]:
    """The kept entry for ``rel``: (fd, dev, ino, dir_dev, dir_ino, on_sysfs), or () before the first read."""
    return tuple(st._kept[st.resolve(rel)])


def read_once_kept(tree: FakeTree) -> SysfsTree:
    """A tree with the zone's ``temp`` kept open and read once: the descriptor a test then
    renames, swaps or replaces under is open, and held the value the fixture wrote."""
    st = SysfsTree(tree.root)
    st.keep_open(CLASS_TEMP)
    assert st.read_int(CLASS_TEMP) == 47712
    return st


def test_a_kept_attribute_is_opened_once_and_reads_the_value_now(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = SysfsTree(tree.root)
    st.keep_open(CLASS_TEMP)
    opens = CountingOpens(monkeypatch, st.resolve(CLASS_TEMP))
    assert st.read_int(CLASS_TEMP) == 47712
    tree.write(REAL_TEMP, 51000)  # rewritten in place (what a driver's value change looks like)
    assert st.read_int(CLASS_TEMP) == 51000
    assert st.read_int(CLASS_TEMP) == 51000
    assert opens.n == 1


def test_a_file_renamed_over_the_kept_one_is_read_at_the_next_read(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = read_once_kept(tree)
    open_fds = len(os.listdir("/proc/self/fd"))
    new = tree.root / (REAL_TEMP + ".new")
    new.write_text("88000\n")
    os.replace(new, tree.root / REAL_TEMP)  # an emulator's atomic rewrite: another inode
    assert st.read_int(CLASS_TEMP) == 88000
    fd, _dev, ino, *_ = kept(st, CLASS_TEMP)
    assert ino == os.fstat(fd).st_ino == os.stat(tree.root / REAL_TEMP).st_ino
    assert len(os.listdir("/proc/self/fd")) == open_fds  # the old descriptor was closed, not leaked


def test_a_rename_over_in_the_same_directory_is_not_resolved_again(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = read_once_kept(tree)
    calls: list[str] = []
    real_realpath = os.path.realpath
    monkeypatch.setattr(os.path, "realpath", lambda p, **k: calls.append(p) or real_realpath(p, **k))
    for v in (50000, 51000):
        new = tree.root / (REAL_TEMP + ".new")
        new.write_text(f"{v}\n")
        os.replace(new, tree.root / REAL_TEMP)
        assert st.read_int(CLASS_TEMP) == v
    assert calls == []  # the directory is the one resolved at start: O_NOFOLLOW reopen only


@pytest.mark.parametrize("target", ["outside", "inside"])
def test_a_kept_file_replaced_by_a_symlink_is_resolved_again(
    tree: FakeTree, tmp_path: Path, target: str
) -> None:
    st = read_once_kept(tree)
    dest = (tmp_path if target == "outside" else tree.root) / "hot"
    dest.write_text("99000\n")
    link = tree.root / (REAL_TEMP + ".lnk")
    link.symlink_to(dest)
    os.replace(link, tree.root / REAL_TEMP)
    if target == "outside":
        with pytest.raises(SensorError, match=r"ELOOP.*outside the sysfs root"):
            st.read_int(CLASS_TEMP)
    else:  # a link inside the root is what resolve() allows at start too
        assert st.read_int(CLASS_TEMP) == 99000


def test_a_directory_swapped_for_a_link_outside_the_root_is_refused(tree: FakeTree, tmp_path: Path) -> None:
    st = read_once_kept(tree)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "temp").write_text("99000\n")
    zone = tree.root / "sys/devices/virtual/thermal/thermal_zone0"
    zone.rename(tmp_path / "moved")
    zone.symlink_to(outside)  # absolute: the recorded path now leads out of the root
    for _ in range(2):  # refused at the change and on every read after it
        with pytest.raises(SensorError, match=r"ELOOP.*outside the sysfs root"):
            st.read_int(CLASS_TEMP)
    assert (outside / "temp").read_text() == "99000\n"


def test_a_directory_swapped_inside_the_root_is_followed_like_a_fresh_open(tree: FakeTree) -> None:
    st = read_once_kept(tree)
    zone = tree.root / "sys/devices/virtual/thermal/thermal_zone0"
    other = tree.root / "sys/devices/virtual/thermal/other"
    other.mkdir()
    (other / "temp").write_text("61000\n")
    zone.rename(tree.root / "sys/devices/virtual/thermal/old")
    zone.symlink_to("other")
    assert st.read_int(CLASS_TEMP) == 61000


def test_a_vanished_kept_file_is_an_enoent_reading_and_comes_back(tree: FakeTree) -> None:
    st = read_once_kept(tree)
    (tree.root / REAL_TEMP).unlink()
    with pytest.raises(SensorError, match="ENOENT"):
        st.read_int(CLASS_TEMP)
    tree.write(REAL_TEMP, 50000)
    assert st.read_int(CLASS_TEMP) == 50000


def test_a_fifo_at_a_kept_path_is_never_kept_and_never_blocks(tree: FakeTree) -> None:
    p = tree.root / REAL_TEMP
    p.unlink()
    os.mkfifo(p)
    st = SysfsTree(tree.root)
    st.keep_open(CLASS_TEMP)
    for _ in range(2):
        with pytest.raises(SensorError, match="empty"):
            st.read_int(CLASS_TEMP)
    assert kept(st, CLASS_TEMP) == ()


def test_close_releases_the_descriptors_and_reads_reopen(tree: FakeTree) -> None:
    st = SysfsTree(tree.root)
    st.keep_open(CLASS_TEMP)
    st.read_int(CLASS_TEMP)
    fd = kept(st, CLASS_TEMP)[0]
    st.close()
    with pytest.raises(OSError):
        os.fstat(fd)
    tree.write(REAL_TEMP, 52000)
    assert st.read_int(CLASS_TEMP) == 52000


def test_a_path_escaping_the_root_is_not_kept_and_still_refused(tree: FakeTree, tmp_path: Path) -> None:
    (tmp_path / "t").write_text("42000\n")
    (tree.root / "sys/class/thermal/thermal_zone9").symlink_to(tmp_path)
    st = SysfsTree(tree.root)
    st.keep_open("sys/class/thermal/thermal_zone9/t")
    assert st._kept == {}
    with pytest.raises(SensorError, match="outside the sysfs root"):
        st.read_int("sys/class/thermal/thermal_zone9/t")


def test_sensors_read_through_kept_descriptors_and_test_doubles_still_inject_faults(tree: FakeTree) -> None:
    kt = KernelTree(tree.root)
    s = TempFileSensor(kt, "cpu", CLASS_TEMP, 1000.0)
    assert s.read().value_c == pytest.approx(47.712)
    assert len(kept(kt, CLASS_TEMP)) == 6
    kt.faults[CLASS_TEMP] = 5  # EIO from the driver
    with pytest.raises(SensorError, match="EIO"):
        s.read()


# -- on a real sysfs: no per-read check, ENODEV reopens (thermogov.hw.fstype) ------------------
def _as_sysfs(monkeypatch: pytest.MonkeyPatch, tree: FakeTree) -> None:
    """Let the fake tree's filesystem stand for sysfs (its device reads as a sysfs mount)."""
    dev = os.stat(tree.root).st_dev
    monkeypatch.setattr(fstype, "mount_types", lambda: {dev: "sysfs"})
    monkeypatch.setattr(fstype.StableDevices.__init__, "__defaults__", (fstype.mount_types,))


def _kept_on_sysfs(monkeypatch: pytest.MonkeyPatch, tree: FakeTree) -> SysfsTree:
    """A tree on "sysfs" with the zone's temp kept open and read once."""
    _as_sysfs(monkeypatch, tree)
    st = read_once_kept(tree)
    return st


class CountingStats:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        real_stat = os.stat

        def counting(path: object, *a: object, **k: object) -> os.stat_result:
            self.n += 1
            return real_stat(path, *a, **k)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "stat", counting)


def test_on_sysfs_a_kept_attribute_is_read_without_a_stat_and_sees_in_place_changes(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = _kept_on_sysfs(monkeypatch, tree)
    assert kept(st, CLASS_TEMP)[5]  # known to be on sysfs
    tree.write(REAL_TEMP, 51000)  # a driver's new value: the same attribute, in place
    stats = CountingStats(monkeypatch)
    assert st.read_int(CLASS_TEMP) == 51000
    assert stats.n == 0


def test_on_sysfs_an_attribute_the_kernel_removed_reopens_the_path(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = _kept_on_sysfs(monkeypatch, tree)
    old_fd = kept(st, CLASS_TEMP)[0]
    real_pread = os.pread
    gone = [True]

    def removed(fd: int, n: int, off: int) -> bytes:  # what kernfs answers on a removed node
        if gone[0] and fd == old_fd:
            raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
        return real_pread(fd, n, off)

    monkeypatch.setattr(os, "pread", removed)
    (tree.root / REAL_TEMP).unlink()  # the device went away: the path names nothing
    with pytest.raises(SensorError, match="ENOENT"):
        st.read_int(CLASS_TEMP)
    assert kept(st, CLASS_TEMP) == ()  # the dead descriptor was dropped
    gone[0] = False
    tree.write(REAL_TEMP, 52000)  # the device came back: a new attribute at the same path
    assert st.read_int(CLASS_TEMP) == 52000
    assert kept(st, CLASS_TEMP)[2] == os.stat(tree.root / REAL_TEMP).st_ino


def test_other_read_errors_on_sysfs_keep_the_descriptor(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = _kept_on_sysfs(monkeypatch, tree)
    entry = kept(st, CLASS_TEMP)
    real_pread = os.pread
    monkeypatch.setattr(
        os, "pread", lambda fd, n, off: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error"))
    )
    with pytest.raises(SensorError, match="EIO"):
        st.read_int(CLASS_TEMP)
    monkeypatch.setattr(os, "pread", real_pread)
    assert kept(st, CLASS_TEMP) == entry and st.read_int(CLASS_TEMP) == 47712


def test_a_tree_not_on_sysfs_keeps_its_per_read_check(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fstype.StableDevices.__init__, "__defaults__", (lambda: {},))
    st = read_once_kept(tree)
    assert not kept(st, CLASS_TEMP)[5]
    stats = CountingStats(monkeypatch)
    assert st.read_int(CLASS_TEMP) == 47712
    assert stats.n == 1


MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
23 27 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw
27 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
31 27 0:26 / /dev/shm rw master:4 - tmpfs tmpfs rw
broken line
"""


def test_mountinfo_maps_devices_to_filesystem_types() -> None:
    types = fstype.parse_mountinfo(MOUNTINFO)
    assert types == {
        os.makedev(0, 21): "proc",
        os.makedev(0, 22): "sysfs",
        os.makedev(259, 2): "ext4",
        os.makedev(0, 26): "tmpfs",
    }
    devs = fstype.StableDevices(lambda: types)
    assert devs.stable(os.makedev(0, 22)) and not devs.stable(os.makedev(0, 26))
    assert not devs.stable(os.makedev(9, 9))  # unknown: not trusted
    assert fstype.mount_types(str(Path("/nonexistent/mountinfo"))) == {}


@pytest.mark.skipif(not os.path.isfile("/sys/devices/system/cpu/online"), reason="no sysfs here")
def test_the_real_sys_is_recognised_as_sysfs_and_a_tmp_tree_is_not(tree: FakeTree) -> None:
    devs = fstype.StableDevices()
    if "sysfs" not in fstype.mount_types().values():
        pytest.skip("/sys is not a sysfs mount here")
    assert devs.stable(os.stat("/sys/devices/system/cpu/online").st_dev)
    assert not devs.stable(os.stat(tree.root).st_dev)


# -- the per-period reader (SysfsTree.int_reader): its inline pread on sysfs -----------------------
def test_on_sysfs_an_int_reader_reads_in_place_without_a_stat_and_reopens_after_enodev(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = _kept_on_sysfs(monkeypatch, tree)
    read = st.int_reader(CLASS_TEMP)
    old_fd = kept(st, CLASS_TEMP)[0]
    tree.write(REAL_TEMP, 51000)
    stats = CountingStats(monkeypatch)
    assert read() == 51000 and stats.n == 0
    real_pread = os.pread
    old_ino = kept(st, CLASS_TEMP)[2]

    def removed(fd: int, n: int, off: int) -> bytes:  # every read of the removed node's descriptor
        if fd == old_fd and os.fstat(fd).st_ino == old_ino:
            raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
        return real_pread(fd, n, off)

    monkeypatch.setattr(os, "pread", removed)
    (tree.root / REAL_TEMP).unlink()
    tree.write(REAL_TEMP, 52000)  # the device came back: a new attribute at the same path
    assert read() == 52000
    assert kept(st, CLASS_TEMP)[2] == os.stat(tree.root / REAL_TEMP).st_ino
    monkeypatch.setattr(os, "pread", lambda fd, n, off: (_ for _ in ()).throw(OSError(errno.EIO, "I/O")))
    entry = kept(st, CLASS_TEMP)
    with pytest.raises(SensorError, match="EIO"):
        read()
    assert kept(st, CLASS_TEMP) == entry  # another error keeps the descriptor


def test_on_sysfs_an_int_reader_reads_a_padded_attribute_whole(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = _kept_on_sysfs(monkeypatch, tree)
    read = st.int_reader(CLASS_TEMP)
    tree.write(REAL_TEMP, b"53000\n" + b"\0" * 200)  # a driver that pads its page
    assert read() == 53000
    # Its first 64 bytes look like a number, the whole does not: judged whole, refused.
    tree.write(REAL_TEMP, b"53000" + b"\0" * 70 + b"1\n")
    with pytest.raises(SensorError, match="not a whole number"):
        read()
    tree.write(REAL_TEMP, b"-7000\n")  # a signed value takes the kernel-format check
    assert read() == -7000


def test_on_sysfs_an_int_reader_still_goes_through_a_replaced_read_hook(
    tree: FakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    _as_sysfs(monkeypatch, tree)

    class Failing(SysfsTree):
        def _read_bytes(self, real: str) -> bytes:
            raise OSError(errno.ENODATA, "No data available")

    st = Failing(tree.root)
    st.keep_open(CLASS_TEMP)
    with pytest.raises(SensorError, match="ENODATA"):
        st.int_reader(CLASS_TEMP)()
