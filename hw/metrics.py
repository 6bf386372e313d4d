"""Prometheus metrics of the running daemon: an HTTP endpoint and node_exporter's textfile.

Both are views of the one published state document (:mod:`thermogov.statedoc`), turned once a
publication into a list of :class:`Series` (:func:`series`, the one place the names are
defined): the textfile is rendered from it directly, and the HTTP endpoint's collector turns it
into ``prometheus_client`` families only when a scrape asks, so the daemon's loop pays nothing
per tick and nothing for the endpoint between scrapes.  ``prometheus_client`` (the ``[metrics]`` extra) is imported only when
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

import socket
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from thermogov.hw.runtimefiles import check_dir, replace_atomic
from thermogov.hw.sysfs import errno_name
from thermogov.interfaces import ConfigError

PIP_HINT = "pip install 'thermogov[metrics]'"


def _client() -> Any:
    try:
        import prometheus_client
    except ImportError:
        raise ConfigError(f"--metrics-port/--metrics-textfile need prometheus_client; {PIP_HINT}") from None
    return prometheus_client


Labels = tuple[tuple[str, str], ...]


class Series(NamedTuple):
    """One metric family, independent of any client library: the one definition of a name."""

    name: str  # without the ``_total`` a counter's sample gets
    kind: str  # "gauge" or "counter"
    help: str
    samples: list[tuple[Labels, float]]


def series(doc: Mapping[str, Any] | None) -> list[Series]:
    """The metrics of one state document (``None``: the daemon is not up)."""
    out = [
        Series(
            "thermogov_up",
            "gauge",
            "1 while the governor publishes state, 0 once it stopped",
            [((), 0.0 if doc is None else 1.0)],
        )
    ]
    if doc is None:
        return out
    temps, power, total = doc["temperature_c"], doc["power"]["power_w"], doc["throughput"]["inferences_total"]
    pol = doc["policy"]
    out += [
        Series(
            "thermogov_info",
            "gauge",
            "The governed board, the policy and its state",
            [((("board", doc["board"]), ("policy", pol["name"]), ("state", pol["state"])), 1.0)],
        ),
        Series(
            "thermogov_uptime_seconds",
            "gauge",
            "Seconds since the daemon started governing",
            [((), doc["uptime_s"])],
        ),
        Series(
            "thermogov_temperature_celsius",
            "gauge",
            "Latest good reading of each sensor",
            [((("sensor", n),), v) for n, v in temps["sensors"].items() if v is not None],
        ),
        Series(
            "thermogov_cap_hertz",
            "gauge",
            "Frequency cap in force per domain",
            [((("domain", n),), d["cap_hz"]) for n, d in doc["domains"].items()],
        ),
        Series(
            "thermogov_frequency_hertz",
            "gauge",
            "Effective clock per domain",
            [
                ((("domain", n),), d["frequency_hz"])
                for n, d in doc["domains"].items()
                if d["frequency_hz"] is not None
            ],
        ),
        Series(
            "thermogov_throttle_events",
            "counter",
            "Throttle events not decided by thermogov, by kind",
            [((("kind", k),), n) for k, n in doc["throttle"].items()],
        ),
        Series(
            "thermogov_reloads", "counter", "Configuration reloads applied (SIGHUP)", [((), doc["reloads"])]
        ),
    ]
    if temps["fused"] is not None:
        out.append(
            Series(
                "thermogov_fused_temperature_celsius",
                "gauge",
                "The fused temperature the policy acts on",
                [((), temps["fused"])],
            )
        )
    if total is not None:
        out.append(
            Series("thermogov_inferences", "counter", "Inferences completed during this run", [((), total)])
        )
    if power is not None:
        out.append(Series("thermogov_power_watts", "gauge", "Board input power", [((), power)]))
    fan = doc.get("fan")
    if fan is not None:  # only while the governor owns a fan (thermogov.fan)
        out.append(
            Series(
                "thermogov_fan_level",
                "gauge",
                "Level of the fan the governor owns (0: slowest)",
                [((), fan["level"])],
            )
        )
    return out


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def exposition(all_series: list[Series]) -> bytes:
    """The text exposition format (version 0.0.4) of the series, for the textfile.

    Rendered here rather than by ``prometheus_client.generate_latest``, which validates and
    escapes every name on every call: about ten times the cost for the same text (measured in
    ``bench/metrics_cost.py``), paid once a second.  The tests parse it with the library's own
    parser.
    """
    lines = []
    for s in all_series:
        lines.append(f"# HELP {s.name}{'_total' if s.kind == 'counter' else ''} {s.help}")
        lines.append(f"# TYPE {s.name}{'_total' if s.kind == 'counter' else ''} {s.kind}")
        sample = s.name + ("_total" if s.kind == "counter" else "")
        for labels, value in s.samples:
            text = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
            lines.append(f"{sample}{{{text}}} {float(value)!r}" if text else f"{sample} {float(value)!r}")
    lines.append("")
    return "\n".join(lines).encode()


def families(all_series: list[Series]) -> Iterator[Any]:
    """The same series as ``prometheus_client`` families, for the HTTP endpoint."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    for s in all_series:
        cls = CounterMetricFamily if s.kind == "counter" else GaugeMetricFamily
        labels = [k for k, _ in s.samples[0][0]] if s.samples else []
        fam = cls(s.name, s.help, labels=labels)
        for lab, value in s.samples:
            fam.add_metric([v for _, v in lab], value)
        yield fam


class _StateCollector:
    """Families of the latest published series, built when a scrape asks for them."""

    def __init__(self) -> None:
        self.series: list[Series] = series(None)

    def collect(self) -> Iterator[Any]:
        return families(self.series)


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
        self._server: Any = None
        self.port: int | None = None
        if port is not None:
            try:
                self._server, _thread = client.start_http_server(port, addr=addr, registry=self.registry)
            except (ValueError, socket.gaierror) as e:
                # An address the resolver cannot take: "a..b" or a label over 63 characters
                # fails IDNA encoding (UnicodeError, a ValueError; RFC 1035 2.3.4 limits a label
                # to 63 octets, https://www.rfc-editor.org/rfc/rfc1035#section-2.3.4), a NUL is
                # a ValueError, a name that does not resolve is gaierror: all bad input, exit 2.
                why = e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__
                raise ConfigError(
                    f"--metrics-addr {addr!r}: not an address to listen on ({why}); "
                    "give an IP address such as 127.0.0.1 or 0.0.0.0, or a host name that resolves"
                ) from e
            except OSError as e:
                raise ConfigError(
                    f"--metrics-port {port}: cannot listen on {addr or '*'} ({e.strerror}); choose another port"
                ) from e
            self.port = int(self._server.server_port)

    def publish(self, doc: Mapping[str, Any]) -> None:
        """Take the new state; rewrite the textfile (``OSError`` is the caller's to log)."""
        now = series(doc)
        self._collector.series = now  # one reference swap: a scrape sees the old or the new list
        if self.textfile is not None:
            replace_atomic(self.textfile, exposition(now), durable=False)

    def close(self, log: Callable[[str], None] | None = None) -> None:
        """Stop serving; leave a textfile that says the daemon is down.

        ``log``: where a failed "down" write is said (session 33s).  The exit goes on: the board
        is already restored, so the status stands; but node_exporter then serves the run's last
        values (stale only by the file's mtime), which a fleet reads as a daemon still up, so
        the operator is told which file to fix.  Before, the failure was dropped silently."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self._collector.series = series(None)
        if self.textfile is not None:
            try:
                replace_atomic(self.textfile, exposition(series(None)), durable=False)
            except OSError as e:
                if log is not None:
                    log(
                        f"metrics textfile {self.textfile}: cannot write thermogov_up 0 at exit "
                        f"({errno_name(e.errno)}: {e.strerror or e}); it still holds the run's last "
                        "values, which node_exporter serves as if the daemon were up: remove it by hand"
                    )
