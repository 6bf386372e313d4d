"""``run --metrics-addr`` without ``--metrics-port`` served nothing and said nothing (left by
session 32h): the operator who asked for metrics on an address found no endpoint.  Now it is bad
input, refused before the board is read or touched."""

from __future__ import annotations

from pathlib import Path

from tests.cli.script import one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.procutil import paths


def test_an_address_without_a_port_is_refused_through_the_script(tmp_path: Path) -> None:
    tree = fakesys.rpi5(tmp_path / "root")
    before = tree.snapshot()
    args = [*paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "1s", "--dry-run"]
    p = thermogov("run", *args, "--metrics-addr", "0.0.0.0", cwd=tmp_path)
    one_line_error(p, "--metrics-addr: no --metrics-port to listen on; add --metrics-port PORT")
    assert tree.snapshot() == before and not (tmp_path / "out").exists()
