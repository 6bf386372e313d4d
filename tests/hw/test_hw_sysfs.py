"""SysfsTree: the only door to kernel files (reads, owned writes, escapes, errno messages)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw.fakesys import FakeTree, KernelTree
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, SensorError


@pytest.fixture
def tree(tmp_path: Path) -> FakeTree:
    t = FakeTree(tmp_path / "root")
    t.zone(0, "cpu-thermal", 47712)
    return t


def test_reads_text_and_ints_fresh_every_time(tree: FakeTree) -> None:
    st = SysfsTree(tree.root)
    rel = "sys/class/thermal/thermal_zone0/temp"
    assert st.read_int(rel) == 47712
    tree.write("sys/devices/virtual/thermal/thermal_zone0/temp", 51000)  # an emulator rewrites it
    assert st.read_int(rel) == 51000
    assert st.read_text("sys/class/thermal/thermal_zone0/type") == "cpu-thermal"


def test_leading_slash_and_nul_terminated_strings(tree: FakeTree) -> None:
    tree.model("Raspberry Pi 4 Model B Rev 1.1")
    st = SysfsTree(tree.root)
    assert st.read_text("/proc/device-tree/model") == "Raspberry Pi 4 Model B Rev 1.1"


def test_space_separated_lists_with_trailing_space(tree: FakeTree) -> None:
    tree.write("sys/x/scaling_available_frequencies", "600000 700000 \n")
    assert SysfsTree(tree.root).read_ints("sys/x/scaling_available_frequencies") == [600000, 700000]


def _by_read_int(st: SysfsTree, rel: str) -> int:
    return st.read_int(rel)


def _by_int_reader(st: SysfsTree, rel: str) -> int:
    return st.int_reader(rel)()  # the daemon's per-period form must judge values the same way


READ_INT = pytest.mark.parametrize("read", [_by_read_int, _by_int_reader])


@pytest.mark.parametrize(
    ("content", "needle"),
    [("", "empty"), ("\n", "empty"), ("hot\n", "not a whole number"), ("47.5\n", "not a whole number")],
)
@READ_INT
def test_bad_contents_raise_sensor_error_naming_the_file(
    tree: FakeTree, content: str, needle: str, read: Callable[[SysfsTree, str], int]
) -> None:
    tree.write("sys/devices/virtual/thermal/thermal_zone0/temp", content)
    with pytest.raises(SensorError, match=needle) as e:
        read(SysfsTree(tree.root), "sys/class/thermal/thermal_zone0/temp")
    assert "thermal_zone0/temp" in str(e.value)


@pytest.mark.parametrize(
    "content",
    [
        "٩٠٠٠٠\n",  # Arabic-Indic digits: Python's int() reads 90000
        "९००००\n",  # Devanagari digits
        "9_0000\n",  # an underscore separator: int() reads 90000
        "+90000\n",  # an explicit plus: no driver prints one
        "90 000\n",  # whitespace inside
        " 90000\n",  # leading whitespace
        "9\t0000\n",
        "0x15f90\n",
        "9e4\n",
        "1" * 30 + "\n",  # more digits than any 64-bit value
    ],
)
@READ_INT
def test_only_plain_ascii_integers_in_sysfs_format_are_values(
    tree: FakeTree, content: str, read: Callable[[SysfsTree, str], int]
) -> None:
    tree.write("sys/devices/virtual/thermal/thermal_zone0/temp", content)
    with pytest.raises(SensorError, match="not a whole number") as e:
        read(SysfsTree(tree.root), "sys/class/thermal/thermal_zone0/temp")
    assert "thermal_zone0/temp" in str(e.value)


@pytest.mark.parametrize(
    ("content", "value"), [("90000\n", 90000), ("-5000\n", -5000), ("42\x00", 42), ("7", 7)]
)
@READ_INT
def test_the_kernel_format_reads(
    tree: FakeTree, content: str, value: int, read: Callable[[SysfsTree, str], int]
) -> None:
    tree.write("sys/devices/virtual/thermal/thermal_zone0/temp", content)
    assert read(SysfsTree(tree.root), "sys/class/thermal/thermal_zone0/temp") == value


@pytest.mark.parametrize("content", ["600000 +700000\n", "600000 7_00000\n", "600000 ٧٠٠٠٠٠\n"])
def test_lists_take_only_plain_ascii_integers(tree: FakeTree, content: str) -> None:
    tree.write("sys/x/scaling_available_frequencies", content)
    with pytest.raises(SensorError, match="space-separated whole numbers"):
        SysfsTree(tree.root).read_ints("sys/x/scaling_available_frequencies")


def test_a_directory_where_an_attribute_should_be_is_an_error(tree: FakeTree) -> None:
    p = tree.root / "sys/devices/virtual/thermal/thermal_zone0/temp"
    p.unlink()
    p.mkdir()
    with pytest.raises(SensorError, match="EISDIR"):
        SysfsTree(tree.root).read_int("sys/class/thermal/thermal_zone0/temp")


def test_a_fifo_is_refused_instead_of_blocking_the_loop(tree: FakeTree) -> None:
    p = tree.root / "sys/devices/virtual/thermal/thermal_zone0/temp"
    p.unlink()
    os.mkfifo(p)  # nobody writes it: a blocking open/read would hang forever
    with pytest.raises(SensorError, match="empty"):
        SysfsTree(tree.root).read_int("sys/class/thermal/thermal_zone0/temp")


def test_missing_attribute_names_enoent(tree: FakeTree) -> None:
    with pytest.raises(SensorError, match="ENOENT"):
        SysfsTree(tree.root).read_int("sys/class/thermal/thermal_zone7/temp")


@pytest.mark.parametrize("code", [errno.EIO, errno.ENODATA, errno.EBUSY, errno.EACCES, errno.EINVAL])
def test_every_oserror_becomes_sensor_error_with_its_errno_name(tree: FakeTree, code: int) -> None:
    kt = KernelTree(tree.root)
    kt.faults["sys/class/thermal/thermal_zone0/temp"] = code
    with pytest.raises(SensorError) as e:
        kt.read_int("sys/class/thermal/thermal_zone0/temp")
    assert errno.errorcode[code] in str(e.value)
    assert str(tree.root / "sys/class/thermal/thermal_zone0/temp") in str(e.value)


def test_symlink_escaping_the_root_is_refused_for_reads(tree: FakeTree, tmp_path: Path) -> None:
    outside = tmp_path / "outside_temp"
    outside.write_text("42000\n")
    (tree.root / "sys/class/thermal/thermal_zone9").symlink_to(tmp_path)  # absolute, leaves the root
    st = SysfsTree(tree.root)
    with pytest.raises(SensorError, match="outside the sysfs root"):
        st.read_int("sys/class/thermal/thermal_zone9/outside_temp")
    assert not st.exists("sys/class/thermal/thermal_zone9/outside_temp")


def test_symlink_escape_is_refused_for_own_and_write(tree: FakeTree, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("1\n")
    (tree.root / "sys/max_freq").symlink_to(victim)
    st = SysfsTree(tree.root)
    with pytest.raises(ActuatorError, match="outside the sysfs root"):
        st.own("sys/max_freq")
    with pytest.raises(ActuatorError, match="outside the sysfs root"):
        st.write_int("sys/max_freq", 5)
    assert victim.read_text() == "1\n"


def test_only_owned_attributes_can_be_written(tree: FakeTree) -> None:
    rel = tree.policy(0, [0], (600000, 1500000))
    st = SysfsTree(tree.root)
    with pytest.raises(ActuatorError, match="not an attribute thermogov owns"):
        st.write_int(f"{rel}/scaling_max_freq", 600000)
    assert tree.read_int(f"{rel}/scaling_max_freq") == 1500000
    st.own(f"{rel}/scaling_max_freq")
    st.write_int(f"{rel}/scaling_max_freq", 600000)
    assert tree.read_int(f"{rel}/scaling_max_freq") == 600000
    assert st.owned() == frozenset({f"{rel}/scaling_max_freq"})


def test_owning_a_missing_attribute_fails(tree: FakeTree) -> None:
    with pytest.raises(ActuatorError, match="no such attribute"):
        SysfsTree(tree.root).own("sys/devices/system/cpu/cpufreq/policy9/scaling_max_freq")


@pytest.mark.parametrize("code", [errno.EBUSY, errno.EACCES, errno.EINVAL, errno.EIO])
def test_write_errors_become_actuator_errors_with_errno(tree: FakeTree, code: int) -> None:
    rel = tree.policy(0, [0], (600000, 1500000))
    kt = KernelTree(tree.root)
    kt.own(f"{rel}/scaling_max_freq")
    kt.write_faults[f"{rel}/scaling_max_freq"] = code
    with pytest.raises(ActuatorError) as e:
        kt.write_int(f"{rel}/scaling_max_freq", 600000)
    assert errno.errorcode[code] in str(e.value) and "scaling_max_freq" in str(e.value)


def test_listdir_is_in_kernel_order_and_empty_when_missing(tree: FakeTree) -> None:
    for i in (1, 2, 10):
        tree.zone(i, f"z{i}")
    st = SysfsTree(tree.root)
    assert st.listdir("sys/class/thermal", r"thermal_zone\d+") == [
        "thermal_zone0",
        "thermal_zone1",
        "thermal_zone2",
        "thermal_zone10",
    ]
    assert st.listdir("sys/class/devfreq") == []


def test_an_int_reader_reads_the_value_now_and_raises_like_read_int(tree: FakeTree, tmp_path: Path) -> None:
    st = SysfsTree(tree.root)
    read = st.int_reader("sys/class/thermal/thermal_zone0/temp")
    assert read() == 47712
    tree.write("sys/devices/virtual/thermal/thermal_zone0/temp", 51000)
    assert read() == 51000
    (tree.root / "sys/devices/virtual/thermal/thermal_zone0/temp").unlink()
    with pytest.raises(SensorError, match="ENOENT"):
        read()
    tree.write("sys/x/cur_freq", 7)
    with pytest.raises(ActuatorError, match="ENOENT"):  # the error class asked for
        read_missing = st.int_reader("sys/x/nothing", ActuatorError)
        read_missing()
    (tree.root / "sys/y").symlink_to(tmp_path)  # escapes the root: refused on every read
    (tmp_path / "v").write_text("1\n")
    escaping = st.int_reader("sys/y/v")
    for _ in range(2):
        with pytest.raises(SensorError, match="outside the sysfs root"):
            escaping()


def test_an_int_reader_of_an_owned_attribute_keeps_its_confinement_check(tree: FakeTree) -> None:
    tree.write("sys/x/scaling_max_freq", 700000)
    st = SysfsTree(tree.root)
    st.own("sys/x/scaling_max_freq")
    read = st.int_reader("sys/x/scaling_max_freq", ActuatorError)
    assert read() == 700000
    f = tree.root / "sys/x/scaling_max_freq"
    other = tree.root / "sys/x/other"
    other.write_text("900000\n")
    os.replace(other, f)  # another file (another inode: both existed) where the owned one was
    with pytest.raises(ActuatorError, match="replaced by another file"):
        read()
