"""Prometheus metrics of the running daemon: an HTTP endpoint and node_exporter's textfile.

Both are views of the one published state document (:mod:`thermogov.statedoc`): a custom
collector turns the latest document into metric families only when something asks (a scrape,
or the once-a-second textfile write), so the daemon's loop pays nothing per tick and nothing at
all between scrapes.  ``prometheus_client`` (the ``[metrics]`` extra) is imported only when
``--metrics-port`` or ``--metrics-textfile`` is given: the daemon's import path stays lean.

Names and units follow the Prometheus conventions (<https://prometheus.io/docs/practices/naming/>):
base units (``_celsius``, ``_hertz``, ``_watts``), ``_total`` on counters, one label per
dimension.  The textfile collector (node_exporter's ``--collector.textfile.directory``) reads
``*.prom`` files and wants them replaced atomically, which is how it is written here
(<https://github.com/prometheus/node_exporter#textfile-collector>).  On a clean exit the file is
rewritten with ``thermogov_up 0`` alone, so a fleet sees a stopped daemon rather than its last
values frozen.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from thermogov.hw.runtimefiles import check_dir, replace_atomic
from thermogov.interfaces import ConfigError

PIP_HINT = "pip install 'thermogov[metrics]'"


def _client() -> Any:
    try:
        import prometheus_client
    except ImportError:
        raise ConfigError(f"--metrics-port/--metrics-textfile need prometheus_client; {PIP_HINT}") from None
    return prometheus_client


def families(doc: Mapping[str, Any] | None) -> Iterator[Any]:
    """The metric families of one state document (``None``: the daemon is not up)."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    up = GaugeMetricFamily("thermogov_up", "1 while the governor publishes state, 0 once it stopped")
    up.add_metric([], 0.0 if doc is None else 1.0)
    yield up
    if doc is None:
        return
    info = GaugeMetricFamily(
        "thermogov_info", "The governed board, the policy and its state", labels=["board", "policy", "state"]
    )
    info.add_metric([doc["board"], doc["policy"]["name"], doc["policy"]["state"]], 1.0)
    yield info
    uptime = GaugeMetricFamily("thermogov_uptime_seconds", "Seconds since the daemon started governing")
    uptime.add_metric([], doc["uptime_s"])
    yield uptime
    temps = doc["temperature_c"]
    sensor = GaugeMetricFamily(
        "thermogov_temperature_celsius", "Latest good reading of each sensor", labels=["sensor"]
    )
    for name, value in temps["sensors"].items():
        if value is not None:
            sensor.add_metric([name], value)
    yield sensor
    if temps["fused"] is not None:
        fused = GaugeMetricFamily(
            "thermogov_fused_temperature_celsius", "The fused temperature the policy acts on"
        )
        fused.add_metric([], temps["fused"])
        yield fused
    cap = GaugeMetricFamily("thermogov_cap_hertz", "Frequency cap in force per domain", labels=["domain"])
    freq = GaugeMetricFamily("thermogov_frequency_hertz", "Effective clock per domain", labels=["domain"])
    for name, d in doc["domains"].items():
        cap.add_metric([name], d["cap_hz"])
        if d["frequency_hz"] is not None:
            freq.add_metric([name], d["frequency_hz"])
    yield cap
    yield freq
    throttle = CounterMetricFamily(
        "thermogov_throttle_events", "Throttle events not decided by thermogov, by kind", labels=["kind"]
    )
    for kind, n in doc["throttle"].items():
        throttle.add_metric([kind], n)
    yield throttle
    total = doc["throughput"]["inferences_total"]
    if total is not None:
        inf = CounterMetricFamily("thermogov_inferences", "Inferences completed during this run")
        inf.add_metric([], total)
        yield inf
    power = doc["power"]["power_w"]
    if power is not None:
        watts = GaugeMetricFamily("thermogov_power_watts", "Board input power")
        watts.add_metric([], power)
        yield watts
    reloads = CounterMetricFamily("thermogov_reloads", "Configuration reloads applied (SIGHUP)")
    reloads.add_metric([], doc["reloads"])
    yield reloads


class _StateCollector:
    def __init__(self) -> None:
        self.doc: Mapping[str, Any] | None = None

    def collect(self) -> Iterator[Any]:
        return families(self.doc)


def check_textfile(path: Path) -> None:
    """Refuse a textfile target node_exporter would ignore, or one in an unsafe directory."""
    if path.suffix != ".prom":
        raise ConfigError(
            f"--metrics-textfile {path}: node_exporter reads only *.prom files; name it e.g. thermogov.prom"
        )
    check_dir(path, "--metrics-textfile", create=False)


class Metrics:
    """Serves and/or writes the metrics of the latest published state."""

    def __init__(self, port: int | None, addr: str, textfile: Path | None) -> None:
        client = _client()
        if textfile is not None:
            check_textfile(textfile)
        self.textfile = textfile
        self._collector = _StateCollector()
        self.registry = client.CollectorRegistry(auto_describe=False)
        self.registry.register(self._collector)
        self._generate = client.generate_latest
        self._server: Any = None
        self.port: int | None = None
        if port is not None:
            try:
                self._server, _thread = client.start_http_server(port, addr=addr, registry=self.registry)
            except OSError as e:
                raise ConfigError(
                    f"--metrics-port {port}: cannot listen on {addr or '*'} ({e.strerror}); choose another port"
                ) from e
            self.port = int(self._server.server_port)

    def publish(self, doc: Mapping[str, Any]) -> None:
        """Take the new state; rewrite the textfile (``OSError`` is the caller's to log)."""
        self._collector.doc = doc
        if self.textfile is not None:
            replace_atomic(self.textfile, self._generate(self.registry))

    def close(self) -> None:
        """Stop serving; leave a textfile that says the daemon is down."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self._collector.doc = None
        if self.textfile is not None:
            # Exiting anyway: if this fails, node_exporter serves the last values (stale by mtime).
            with contextlib.suppress(OSError):
                replace_atomic(self.textfile, self._generate(self.registry))
