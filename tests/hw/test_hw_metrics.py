"""The textfile renderer and the HTTP endpoint's families say the same thing, parseably.

The textfile is rendered by thermogov (cheaper than ``generate_latest``); the endpoint by
``prometheus_client`` from the same series.  Both must parse with the library's own parser to
the same samples, including label values that need escaping.
"""

from __future__ import annotations

import os
import time

import prometheus_client
from prometheus_client.parser import text_string_to_metric_families

from thermogov.governor import TickRecord
from thermogov.hw.metrics import _StateCollector, exposition, series
from thermogov.statedoc import StateIdentity, build_state


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
    }


def _doc(board: str) -> dict[str, object]:
    rec = TickRecord(2.0, 71.25, (71.0, None), "cpu", 'HOT "x"', (1_497_600_000,), (None,), 6.5, 42, "")
    return build_state(
        StateIdentity(os.getpid(), time.time(), board, False, "/r", "workload"),
        time_unix=time.time(),
        uptime_s=2.0,
        tick=rec,
        sensor_names=("cpu", "gpu"),
        domain_names=("cpu",),
        policy="stepped",
        throttle={"under_voltage": 3},
        reloads=2,
    )


def test_textfile_and_endpoint_render_the_same_samples() -> None:
    doc = _doc('odd\\board "name"\nline2')
    mine = _samples(exposition(series(doc)).decode())
    reg = prometheus_client.CollectorRegistry(auto_describe=False)
    col = _StateCollector()
    col.series = series(doc)
    reg.register(col)
    theirs = _samples(prometheus_client.generate_latest(reg).decode())
    assert mine == theirs
    assert mine[("thermogov_temperature_celsius", (("sensor", "cpu"),))] == 71.0
    assert ("thermogov_temperature_celsius", (("sensor", "gpu"),)) not in mine  # unknown: absent
    assert ("thermogov_frequency_hertz", (("domain", "cpu"),)) not in mine
    assert mine[("thermogov_inferences_total", ())] == 42
    assert mine[("thermogov_throttle_events_total", (("kind", "under_voltage"),))] == 3
    assert mine[("thermogov_reloads_total", ())] == 2
    info = [k for k in mine if k[0] == "thermogov_info"]
    assert dict(info[0][1])["board"] == 'odd\\board "name"\nline2'


def test_a_stopped_daemon_is_only_up_0() -> None:
    assert _samples(exposition(series(None)).decode()) == {("thermogov_up", ()): 0.0}
