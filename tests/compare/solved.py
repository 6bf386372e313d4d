"""Bounds the compare tests share: each world's programme solved once per test process.

The any-window bound and the free oracle are pure functions of the config (the linear
programme reads the world and the board, nothing the run leaves behind), and several tests ask
for the same world's: the suite check and the "cannot bank heat" test, the run's-end bound a
suite test solved and the open-ended test compares against.  Each such programme is a second or
more of HiGHS; solving it again taught nothing.  Under ``--dist loadfile`` a file runs in one
worker, so the tests of a file share for certain and files that land on the same worker too.

The key is the config's whole ``repr`` (every field, the policies' parameters included, though
the programme reads none of them): two configs that differ in anything never share a result.
A shared result is frozen (its arrays read-only), so a test that changed one fails where it
writes instead of handing another test a changed bound; results do not depend on which test
asked first, so the tests stay independent of their order.
"""

from __future__ import annotations

from collections.abc import Callable

from thermogov.config import Config
from thermogov.sim.compare.anywindow import anywindow_bound
from thermogov.sim.compare.oracle import OracleResult, oracle

_ANYWINDOW: dict[str, OracleResult | None] = {}
_FREE: dict[str, OracleResult] = {}


def _frozen(res: OracleResult) -> OracleResult:
    if res.shares is not None:
        res.shares.setflags(write=False)
    return res


def _solved(table: dict, cfg: Config, solve: Callable[[Config], OracleResult | None]) -> OracleResult | None:
    key = repr(cfg)
    if key not in table:
        res = solve(cfg)
        table[key] = None if res is None else _frozen(res)
    return table[key]


def shared_anywindow_bound(cfg: Config) -> OracleResult | None:
    """:func:`anywindow_bound` of ``cfg`` (default board), solved once per process."""
    return _solved(_ANYWINDOW, cfg, anywindow_bound)


def shared_oracle(cfg: Config) -> OracleResult:
    """The free bound :func:`oracle` of ``cfg`` (defaults only), solved once per process."""
    res = _solved(_FREE, cfg, oracle)
    assert res is not None
    return res
