"""What a table column holds, from its header name or from ``--columns``.

Home-made loggers name columns however their author liked: ``CPU Temperature (°C)``, ``tmp``,
``cpu_temp``, ``clk``, ``arm_freq``, ``thr``, ``throttled``, jtop's ``Temp CPU`` and
``Power TOT``.  A name is split into lower-case words (units in brackets or suffixes are read
by :func:`thermogov.importers.quantities.unit_in_name` and removed first) and matched by word,
not by exact spelling, so ``Temp_CPU``, ``cpu-temp`` and ``CPU Temperature`` all land on the
cpu sensor.  Names that match nothing are reported, never used by position.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from thermogov.importers.quantities import unit_in_name, unit_named
from thermogov.interfaces import ConfigError

ROLES = ("t", "date", "temp", "freq", "load", "power", "rail", "throttled")

_TIME_WORDS = {
    "time",
    "t",
    "sec",
    "secs",
    "seconds",
    "timestamp",
    "ts",
    "epoch",
    "datetime",
    "elapsed",
    "unix",
    # de, nl, es, pt, fr, it: loggers name columns in the author's language
    "zeit",
    "uhrzeit",
    "zeitstempel",
    "tijd",
    "tiempo",
    "hora",
    "heure",
    "horodatage",
    "tempo",
    "orario",
    "waktu",  # id
}
_DATE_WORDS = {"date", "datum", "fecha", "tanggal"}
_TEMP_WORDS = {
    "temp",
    "tmp",
    "temperature",
    "temperatures",
    "thermal",
    "celsius",
    "celcius",  # a common misspelling (`Suhu_CPU_Celcius`)
    "degc",
    "therm",
    "temperatur",  # de, and with accents folded: fr température
    "temperatura",  # es, it, pt, pl
    "temperatuur",  # nl
    "suhu",  # id
    "fahrenheit",
}
_FREQ_WORDS = {
    "freq",
    "frequency",
    "clk",
    "clock",
    "mhz",
    "khz",
    "ghz",
    "hz",
    "frequenz",
    "takt",
    "taktfrequenz",
    "frequence",
    "frecuencia",
    "frequenza",
    "frequencia",
    "frequentie",
}
_LOAD_WORDS = {
    "usage",
    "load",
    "util",
    "utilization",
    "utilisation",
    "busy",
    "percent",
    "pct",
    "use",
    "used",
    "auslastung",
    "carga",
    "carico",
    "belasting",
}
_POWER_WORDS = {
    "power",
    "pwr",
    "watts",
    "watt",
    "leistung",  # de
    "potencia",  # es, pt
    "puissance",  # fr
    "potenza",  # it
    "vermogen",  # nl
}
# the kernel's load averages over 1/5/15 minutes (Glances' `load_min1`): runnable tasks, not a utilisation
_LOADAVG_WORDS = {"min1", "min5", "min15", "1min", "5min", "15min"}
# lm-sensors' numbered features (`temp1`, `temp2`: sensors(1), hwmon `temp1_input`), which
# netdata's sensors charts keep as dimension names
_NUMBERED_TEMP_RE = re.compile(r"temp\d+")
_THROTTLE_WORDS = {"thr", "throttled", "throttle", "throttling", "get_throttled"}
_IGNORE_WORDS = {
    "loadavg",
    "ram",
    "swap",
    "mem",
    "memory",
    "fan",
    "rpm",
    "pwm",
    "disk",
    "uptime",
    "volt",
    "voltage",
    # a battery's or the air's percentage is no processor utilisation (a uConsole CM5 logger's
    # `batt_pct` was read as the load of a domain "batt")
    "bat",
    "batt",
    "battery",
    "charge",
    "humidity",
    # a file system's, disk's or network's use is no processor utilisation (Glances' `fs_/_percent`,
    # `diskio_*`, `network_*`, `processcount_*` columns)
    "fs",
    "filesystem",
    "diskio",
    "network",
    "net",
    "processcount",
    "memswap",
    "cpucore",  # Glances' `load_cpucore`: a count of cores
}
_DOMAINS = {
    "cpu": "cpu",
    "arm": "cpu",
    "soc": "soc",
    "gpu": "gpu",
    "gr3d": "gpu",
    "emc": "emc",
    "core": "cpu",
}
_FILLER = {
    "cur",
    "current",
    "measured",
    "now",
    "value",
    "avg",
    "c",
    "deg",
    "in",
    "of",
    "the",
    "cpu0",
    "speed",
    "rate",
}
_UNIT_TOKENS = {"c", "f", "mc", "k", "mhz", "khz", "ghz", "hz", "mw", "w", "uw", "s", "ms", "us", "ns"}
_RAIL_RE = re.compile(r"^(vdd|pom|vin|vddq|vdd2)_", re.I)
BOARD_INPUT = {"vdd_in", "pom_5v_in", "vin"}


@dataclass(frozen=True)
class Column:
    """One identified column: role, qualifier (sensor/domain/rail name) and a stated unit."""

    role: str  # one of ROLES, or "" for not imported
    name: str = ""  # sensor (temp), domain (freq/load), rail name (rail)
    unit: str | None = None  # unit word from the header or --columns, None = decide by value
    how: str = "header"  # header | --columns | values | letter (a bare domain with a unit letter: `CPU f`)


def _fold_accents(text: str) -> str:
    """``Température`` -> ``Temperature``: a header word is matched without its accents."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _words(name: str) -> list[str]:
    bare = re.sub(r"[\(\[][^\)\]]*[\)\]]", " ", _fold_accents(name))
    bare = bare.replace("°", " ").replace("%", " percent ")
    out: list[str] = []
    for tok in re.split(r"[^A-Za-z0-9]+", bare):
        if not tok:
            continue
        if tok.lower() in _UNIT_TOKENS:
            out.append(tok.lower())
        else:  # camelCase: cpuTemp -> cpu temp (but never split a unit such as mC or kHz)
            out += re.sub(r"([a-z]{2})([A-Z])", r"\1 \2", tok).lower().split()
    return out


def _unit_suffix(words: list[str]) -> tuple[list[str], str | None]:
    """Strip a trailing unit word (``freq_mhz`` -> freq, MHz)."""
    if len(words) > 1 and words[-1] in _UNIT_TOKENS:
        return words[:-1], words[-1]
    return words, None


def _qualifier(words: list[str], used: set[str], default: str) -> str:
    rest = [w for w in words if w not in used and w not in _FILLER]
    for w in rest:
        if w in _DOMAINS:
            return _DOMAINS[w]
    return "_".join(rest) if rest else default


# Words that make a power column the whole board's (`System_Power_Inst`, `total_power_mw`), and
# words that say nothing about what is measured (`CPU_Power_Inst` is the CPU rail).
_BOARD_POWER_WORDS = {
    "total",
    "tot",
    "system",
    "sys",
    "board",
    "input",
    "in",
    "all",
    "whole",
    # an external meter in the supply measures the whole board: `usb_power`, `meter_w`, `Pi Power`
    "wall",
    "usb",
    "meter",
    "supply",
    "psu",
    "plug",
    "socket",
    "pi",
    "rpi",
    "jetson",
    "device",
}
_POWER_FILLER = (
    _FILLER | _POWER_WORDS | _UNIT_TOKENS | {"inst", "instant", "instantaneous", "average", "draw"}
)


def _power_column(name: str, words: list[str], unit: str | None) -> Column:
    """The board's power, or a rail when the name says what part it measures.

    A home-made tegrastats-to-CSV script logs ``vdd_in_mw,cpu_gpu_mw,soc_mw``: only the input
    rail is the board's power; ``cpu_gpu_mw`` and ``soc_mw`` are rails (read as the board's
    power before, the last of them won: 1.4 W of SoC rail for a 5 W board)."""
    ws = set(words)
    part = [w for w in words if w not in _POWER_FILLER]
    if ws & _BOARD_POWER_WORDS or not part:
        return Column("power", unit=unit)
    rail = re.sub(r"\s*[\(\[].*$", "", name).strip()
    return Column("rail", rail, unit=unit)


def from_header(name: str) -> Column:
    """The column a header name denotes; role "" when it names nothing we import."""
    stated = unit_in_name(name)
    unit = stated[1] if stated else None
    letter_only = (
        bool(stated) and re.search(r"[_ ][CcFfKk]$", name.strip()) and not re.search(r"[\(\[]", name)
    )
    if letter_only:
        # A bare temperature letter (`temp_c`, `CPU f`) gives the unit once a word names the
        # quantity, never the quantity itself: `cpu_f` is as likely a clock as °F, `cpu_c` a count.
        stated = None
    raw = name.strip()
    if _RAIL_RE.match(raw) or raw.lower().startswith("power "):
        rail = raw.split(" ", 1)[1] if raw.lower().startswith("power ") else raw
        rail = re.sub(r"\s*[\(\[].*$", "", rail).strip()
        if m := re.fullmatch(r"(.+?)[_ ](mw|w|uw)", rail, re.I):
            rail, unit = m.group(1), unit or {"mw": "mW", "w": "W", "uw": "µW"}[m.group(2).lower()]
        if rail.lower() in {"tot", "total", "cur", ""}:  # "Power (mW)": the unit alone, no rail
            return Column("power", unit=unit or "mW")
        if rail.lower() in BOARD_INPUT:
            return Column("power", rail, unit=unit)
        return Column("rail", rail, unit=unit)
    words, suffix = _unit_suffix(_words(name))
    if suffix and unit is None:
        hit = unit_in_name(f"x ({suffix})")
        unit = hit[1] if hit else None
    ws = set(words)
    if not ws:
        return Column("")
    if ws & _THROTTLE_WORDS:
        return Column("throttled")
    if ws & _IGNORE_WORDS or {"load", "avg"} <= ws or {"load", "average"} <= ws or ws & _LOADAVG_WORDS:
        return Column("")
    temp_unit = stated and stated[0] == "temp"
    if temp_unit and not ws & _TEMP_WORDS and ws & (_FREQ_WORDS | _POWER_WORDS | _LOAD_WORDS):
        # `freq (F)`, `Power (°C)`: a word names another quantity, the stated unit a temperature;
        # which one was logged cannot be told (read as °F, a 150 MHz clock was a sensor at
        # 66 °C).  A bare letter (`Freq F`, `power_f`) states nothing: the values decide, as
        # for `CPU f` (c50b855).
        return Column("")
    if (
        (stated and stated[0] == "temp")
        or ws & _TEMP_WORDS
        or any(_NUMBERED_TEMP_RE.fullmatch(w) for w in ws)
    ):
        return Column("temp", _qualifier(words, _TEMP_WORDS, "cpu"), unit)
    if ws & {"gr3d", "emc"} and unit is None:
        # tegrastats' GR3D_FREQ / EMC_FREQ are utilisations in % (the clock follows an @)
        return Column("load", _qualifier(words, _FREQ_WORDS, "gpu"), None)
    if (stated and stated[0] == "freq") or ws & _FREQ_WORDS:
        return Column("freq", _qualifier(words, _FREQ_WORDS, "cpu"), unit)
    if ws & _POWER_WORDS or (stated and stated[0] == "power"):
        return _power_column(name, words, unit)
    if ws & _LOAD_WORDS or (stated and stated[0] == "load"):
        return Column("load", _qualifier(words, _LOAD_WORDS, "cpu"), unit)
    if len(ws) == 1 and ws <= _DATE_WORDS:
        return Column("date")
    if ws & _TIME_WORDS:
        return Column("t", unit=unit)
    if len(ws) == 2 and ws & {"total", "tot"} and (domain := ws & {"cpu", "gpu"}):
        # `cpu_total` (Glances, psutil): the domain's utilisation summed over its kinds of time,
        # a percentage in both (psutil docs, `cpu_percent`: "a percentage"; Glances' cpu plugin
        # `total`).  Stated, not guessed from values: an idle board's 0.3 % read as a fraction
        # was a 30 % load.
        return Column("load", domain.pop(), unit or "%")
    if len(words) == 1 and (m := re.fullmatch(r"(cpu|core|gpu)(\d*)", words[0])):
        # a bare domain name: jtop's CPU1..CPUn / GPU are loads in %, a home-made `cpu` may be a
        # temperature: decided from the values (thermogov.importers.table)
        # (`CPU f`: the letter is no unit of a load; the table never imports it as one)
        return Column(
            "load?",
            _DOMAINS[m.group(1)],
            None if letter_only else unit,
            "letter" if letter_only else "header",
        )
    return Column("")


_QUALIFIER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}")


def _short(text: str) -> str:
    """``text``'s repr, cut to 40 characters: an option's value echoed in its one-line error."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + f" (+{len(text) - 40} characters)"


def parse_columns_option(spec: str) -> dict[str, tuple[str, str, str | None]]:
    """``t=sec,temp=tmp:mC,freq.gpu=gpu_clk`` -> {column ref: (role, qualifier, unit)}.

    A column ref is a header name (any case) or a 1-based position (``2``) for headerless
    files.  ConfigError with the fix for anything else.
    """
    out: dict[str, tuple[str, str, str | None]] = {}
    for item in (p.strip() for p in spec.split(",")):
        if not item:
            continue
        if "=" not in item:
            raise ConfigError(
                f"--columns: {item!r} is not ROLE=COLUMN; e.g. --columns t=sec,temp=tmp,freq=clk"
            )
        key, ref = (x.strip() for x in item.split("=", 1))
        role, _, qual = key.partition(".")
        role = role.lower()
        if role not in ROLES:
            raise ConfigError(
                f"--columns: unknown role {role!r}; use {', '.join(ROLES)} (temp.gpu=... names a sensor)"
            )
        ref, _, unit = ref.partition(":")
        if not ref:
            raise ConfigError(f"--columns: {item!r} names no column; e.g. temp=tmp or temp=2")
        if qual and not _QUALIFIER.fullmatch(qual):
            # a 100 000-character rail name, an escape sequence or a surrogate went into the run
            # folder's column names and the summary as given (hostile round 25h)
            raise ConfigError(
                f"--columns: {_short(qual)} after {role}. is not a name (ASCII letters, digits, _ - . + "
                f"up to 64); e.g. --columns temp.gpu=4,rail.VDD_IN=5"
            )
        quantity = {"t": "time", "rail": "power"}.get(role, role)
        if unit and unit_named(quantity, unit) is None:
            raise ConfigError(
                f"--columns: unit {_short(unit)} is not a unit of {role} (e.g. temp=tmp:mC, freq=clk:kHz)"
            )
        default = {"temp": "cpu", "freq": "cpu", "load": "cpu"}.get(role, "")
        out[ref.lower()] = (role, qual or default, unit or None)
    _one_column_each(out)
    if not out:
        raise ConfigError("--columns: empty; e.g. --columns t=sec,temp=tmp,freq=clk")
    return out


def _one_column_each(mapping: dict[str, tuple[str, str, str | None]]) -> None:
    """ConfigError when two columns get the same role and name (``temp=2,temp=4``: both the
    ``cpu`` sensor, of which the import kept the last silently, session 24's hostile round).  A
    ``rail`` without a name takes its column's header, so several are distinct."""
    seen: dict[tuple[str, str], str] = {}
    for ref, (role, qual, _unit) in mapping.items():
        if role == "rail" and not qual:
            continue
        key = (role, qual)
        if key in seen:
            what = f"{role}.{qual}" if qual else role
            fix = "give each its own name, e.g. temp.cpu=2,temp.gpu=4" if qual else "map it once"
            raise ConfigError(f"--columns: {what} is given to two columns ({seen[key]!r} and {ref!r}); {fix}")
        seen[key] = ref


__all__ = ["BOARD_INPUT", "ROLES", "Column", "from_header", "parse_columns_option"]
