"""Hostile variants of a log: what copying, editing and broken loggers do to a real file.

Each variant is a pure function of the clean file's bytes, so a failing case can be rebuilt from
its name alone.  Given a clean log the importers read, each variant must be read to the same
values (within the unit: a temperature stays a temperature, a clock a clock) or refused with a
one-line error; never read to other values without a word (issue 10: never misread silently).

Used by ``tests/importers/test_wild_s30.py`` on the real logs (``$THERMOGOV_REAL_DATA``) and on
synthetic logs written in tmp.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from thermogov.importers import ImportedLog

_DECIMAL_RE = re.compile(rb"(?<=\d)\.(?=\d)")
_TEMP_HEADER_RE = re.compile(rb"temp|tmp|soc|cpu_c|celsius", re.I)


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def crlf(data: bytes) -> bytes:
    """Saved by a Windows editor: every line ends in CR LF."""
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def utf16_bom(data: bytes) -> bytes:
    """Re-saved as "Unicode" by a Windows editor: UTF-16 LE with its byte-order mark."""
    return codecs.BOM_UTF16_LE + data.decode("utf-8", errors="replace").encode("utf-16-le")


def truncate_mid_line(data: bytes) -> bytes:
    """Copied while the logger was writing: the file ends inside a line, 70 % of the way in."""
    cut = int(len(data) * 0.7)
    while cut < len(data) and data[cut : cut + 1] in (b"\n", b"\r"):
        cut += 1  # inside a line, not at its end
    return data[: max(cut, 1)]


def nul_block(data: bytes) -> bytes:
    """A power cut mid-write: a 4 KiB run of NULs in the middle of a line halfway in."""
    mid = len(data) // 2
    while mid < len(data) and data[mid : mid + 1] in (b"\n", b"\r"):
        mid += 1
    return data[:mid] + b"\x00" * 4096 + data[mid:]


def duplicate_lines(data: bytes) -> bytes:
    """A logger that wrote every fifth record twice (one time stamp, two rows)."""
    out: list[bytes] = []
    for k, line in enumerate(_lines(data)):
        out.append(line)
        if k % 5 == 4 and any(ch in b"0123456789" for ch in line):
            out.append(line if line.endswith(b"\n") else line + b"\n")
    return b"".join(out)


def decimal_comma(data: bytes) -> bytes:
    """A logger under a German/French locale: decimal commas, and `;` between fields where a
    comma was the delimiter (what spreadsheet exports do)."""
    if _comma_table(data):
        data = data.replace(b",", b";")
    return _DECIMAL_RE.sub(b",", data)


def drop_header(data: bytes) -> bytes:
    """A table whose header line was lost (a logger that writes it only when the file is new)."""
    lines = _lines(data)
    for k, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith(b"#"):
            return b"".join(lines[:k] + lines[k + 1 :])
    return data


def _comma_table(data: bytes) -> bool:
    head = [ln for ln in _lines(data)[:20] if ln.strip()]
    return len(head) >= 3 and sum(ln.count(b",") >= 1 for ln in head) >= len(head) - 1


def _temp_column(data: bytes) -> tuple[int, int] | None:
    """(header line index, column index) of a comma table's temperature column, or None."""
    if not _comma_table(data):
        return None
    for k, line in enumerate(_lines(data)[:5]):
        cells = line.split(b",")
        if any(re.search(rb"[A-Za-z]", c) for c in cells):
            for j, cell in enumerate(cells):
                if _TEMP_HEADER_RE.search(cell):
                    return k, j
            return None
    return None


def _scale_rows(data: bytes, start_share: float) -> bytes:
    where = _temp_column(data)
    if where is None:
        return data
    header, col = where
    lines = _lines(data)
    first = header + 1 + int((len(lines) - header - 1) * start_share)
    for k in range(first, len(lines)):
        cells = lines[k].split(b",")
        if col < len(cells):
            raw = cells[col].strip()
            try:
                value = float(raw)
            except ValueError:
                continue
            if math.isfinite(value):
                end = cells[col][len(cells[col].rstrip()) :]
                cells[col] = str(round(value * 1000)).encode() + end
                lines[k] = b",".join(cells)
    return b"".join(lines)


def millidegrees(data: bytes) -> bytes:
    """A logger that writes the sysfs value as it is: every temperature in m°C."""
    return _scale_rows(data, 0.0)


def millidegrees_midway(data: bytes) -> bytes:
    """A logger edited in place halfway: m°C rows after °C rows, no header written again."""
    return _scale_rows(data, 0.5)


def millidegrees_midway_headerless(data: bytes) -> bytes:
    """The same logger whose header line was lost as well: the column is named only by its
    values (session 31w)."""
    return drop_header(millidegrees_midway(data))


VARIANTS: dict[str, Callable[[bytes], bytes]] = {
    "crlf": crlf,
    "utf16-bom": utf16_bom,
    "truncated": truncate_mid_line,
    "nul-block": nul_block,
    "duplicated": duplicate_lines,
    "decimal-comma": decimal_comma,
    "no-header": drop_header,
    "millidegrees": millidegrees,
    "millidegrees-midway": millidegrees_midway,
    "millidegrees-midway-headerless": millidegrees_midway_headerless,
}
# Variants after which fewer samples are expected: lines cut off or damaged.
LOSSY = {"truncated", "nul-block", "no-header", "millidegrees-midway-headerless"}


@dataclass(frozen=True)
class Values:
    """What a log's samples hold, per quantity, as sorted value lists (names aside: a header
    dropped renames a column, and a misread is a value where it does not belong)."""

    temps: list[float]
    clocks: list[float]
    loads: list[float]
    powers: list[float]
    count: int


def values(log: ImportedLog) -> Values:
    temps: list[float] = []
    clocks: list[float] = []
    loads: list[float] = []
    powers: list[float] = []
    for s in log.samples:
        temps.extend(s.temps_c.values())
        clocks.extend(float(f) for f in s.freqs_hz.values())
        loads.extend(s.loads.values())
        powers.extend(s.rails_w.values())
        if s.power_w is not None:
            powers.append(s.power_w)
    return Values(sorted(temps), sorted(clocks), sorted(loads), sorted(powers), len(log.samples))


def _strays(got: Iterable[float], known: list[float], rel: float, absolute: float) -> list[float]:
    """Values in ``got`` with no value of ``known`` near them."""
    import bisect

    out: list[float] = []
    for v in got:
        k = bisect.bisect_left(known, v)
        near = [known[i] for i in (k - 1, k) if 0 <= i < len(known)]
        if not any(abs(v - n) <= max(absolute, rel * abs(n)) for n in near):
            out.append(v)
    return out


def misread(clean: Values, got: Values, lossy: bool, *, skip_loads: bool = False) -> str | None:
    """Why ``got`` is not the clean log's values, or None when it is.

    ``skip_loads``: loads are not compared (records written twice: sbc-bench drops a section's
    first %cpu, an average since boot, and its copy is a line like any other)."""
    for what, a, b, rel, absolute in (
        ("temperature", got.temps, clean.temps, 0.0, 0.051),
        ("clock", got.clocks, clean.clocks, 0.001, 1.0),
        ("load", [] if skip_loads else got.loads, [] if skip_loads else clean.loads, 0.0, 0.0051),
        ("power", got.powers, clean.powers, 0.001, 0.0011),
    ):
        if stray := _strays(a, b, rel, absolute):
            return f"{len(stray)} {what} value(s) not in the clean log, e.g. {stray[:3]}"
        if b and not a and not lossy:
            return f"every {what} value lost"
    if not lossy and got.count < 0.95 * clean.count:
        return f"{got.count} samples where the clean log has {clean.count}"
    return None


# --- session 32w: more of what copies, restarts and broken loggers do --------------------------


def bom_crlf_mix(data: bytes) -> bytes:
    """Appended to on two machines: a UTF-8 byte-order mark, then CR LF on every other line."""
    out = [
        ln.rstrip(b"\r\n") + b"\r\n" if k % 2 and ln.endswith(b"\n") else ln.replace(b"\r\n", b"\n")
        for k, ln in enumerate(_lines(data))
    ]
    return codecs.BOM_UTF8 + b"".join(out)


def column_renamed_midway(data: bytes) -> bytes:
    """A logger upgraded halfway: it writes its header again with the temperature column renamed."""
    where = _temp_column(data)
    if where is None:
        return data
    header, col = where
    lines = _lines(data)
    cells = lines[header].rstrip(b"\r\n").split(b",")
    cells[col] = b"SoC temperature (C)"
    mid = header + 1 + (len(lines) - header - 1) // 2
    return b"".join([*lines[:mid], b",".join(cells) + b"\n", *lines[mid:]])


def _record_lines(lines: list[bytes]) -> list[int]:
    return [k for k, ln in enumerate(lines) if any(ch in b"0123456789" for ch in ln)]


def time_backwards(data: bytes) -> bytes:
    """Two records written out of order at 60 % (a buffered writer): one time stamp goes back."""
    lines = _lines(data)
    recs = _record_lines(lines)
    if len(recs) < 10:
        return data
    a, b = recs[int(len(recs) * 0.6)], recs[int(len(recs) * 0.6) + 1]
    if not lines[b].endswith(b"\n"):
        return data
    lines[a], lines[b] = lines[b], lines[a]
    return b"".join(lines)


def concatenated(data: bytes) -> bytes:
    """Two runs' logs joined with `cat`: the whole file twice, the second's clock starting again."""
    return data + (b"" if data.endswith(b"\n") else b"\n") + data


def truncated_last_line(data: bytes) -> bytes:
    """Copied while the logger was writing its last record: the last line cut in half."""
    body = data.rstrip(b"\r\n")
    start = body.rfind(b"\n") + 1
    return body[: start + max(1, (len(body) - start) // 2)]


_LAST_NUMBER_RE = re.compile(rb"(\d+\.\d+|\d+)(?!.*\d)")


def nan_inf_text(data: bytes) -> bytes:
    """A logger that printed a failed read as C's `nan` and `inf`: two records' last number."""
    lines = _lines(data)
    recs = _record_lines(lines)
    if len(recs) < 10:
        return data
    for share, word in ((0.4, b"nan"), (0.6, b"inf")):
        k = recs[int(len(recs) * share)]
        lines[k] = _LAST_NUMBER_RE.sub(word, lines[k], count=1)
    return b"".join(lines)


def eight_bit_junk(data: bytes) -> bytes:
    """Line noise on a serial console: bytes that are no UTF-8 inside one line, and one line of them."""
    lines = _lines(data)
    recs = _record_lines(lines)
    if len(recs) < 10:
        return data
    k = recs[len(recs) // 3]
    mid = len(lines[k]) // 2
    lines[k] = lines[k][:mid] + b"\xe9\xff\x80\xc3(" + lines[k][mid:]
    j = recs[2 * len(recs) // 3]
    lines.insert(j, b"\xfe\xb0\x9c\xe4\xf1\x81\x00\xa7\n")
    return b"".join(lines)


VARIANTS_S32: dict[str, Callable[[bytes], bytes]] = {
    "bom-crlf-mix": bom_crlf_mix,
    "column-renamed-midway": column_renamed_midway,
    "time-backwards": time_backwards,
    "concatenated": concatenated,
    "truncated-last-line": truncated_last_line,
    "nan-inf": nan_inf_text,
    "8-bit-junk": eight_bit_junk,
}
# Of these, the variants that damage a record (fewer samples expected).
LOSSY_S32 = {"truncated-last-line", "nan-inf", "8-bit-junk"}


# --- session 33w: restarts, clocks set back, grouped digits, a unit renamed, `cat` without a line end


def _first_record(lines: list[bytes]) -> int | None:
    recs = _record_lines(lines)
    return recs[0] if recs else None


def header_repeated_midway(data: bytes) -> bytes:
    """A logger restarted into the same file: the lines before its first record (header,
    comments) written again halfway, the records after them unchanged."""
    lines = _lines(data)
    first = _first_record(lines)
    if not first:  # no header block (a line log), or no record
        return data
    recs = _record_lines(lines)
    if len(recs) < 10:
        return data
    mid = recs[len(recs) // 2]
    head = [ln if ln.endswith(b"\n") else ln + b"\n" for ln in lines[:first]]
    return b"".join([*lines[:mid], *head, *lines[mid:]])


_CLOCK_RE = re.compile(rb"(?<![\d:])(\d\d):(\d\d):(\d\d)(?![\d:])")
_EPOCH_RE = re.compile(rb"(?<![\d.])(1\d{9})(?=[.,;\s]|$)")


def _set_back(line: bytes, by_s: int) -> bytes:
    """``line`` with its first time of day (HH:MM:SS), or else its first epoch second, ``by_s``
    earlier; unchanged where the time of day would cross midnight."""
    if m := _CLOCK_RE.search(line):
        h, mi, s = (int(g) for g in m.groups())
        t = h * 3600 + mi * 60 + s - by_s
        if t < 0 or h > 23 or mi > 59 or s > 59:
            return line
        new = f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}".encode()
        return line[: m.start()] + new + line[m.end() :]
    if m := _EPOCH_RE.search(line):
        return line[: m.start()] + str(int(m.group(1)) - by_s).encode() + line[m.end() :]
    return line


def ntp_step_back(data: bytes) -> bytes:
    """The board's clock set back 90 s by NTP halfway: every stamp after it 90 s earlier."""
    lines = _lines(data)
    recs = _record_lines(lines)
    if len(recs) < 10:
        return data
    out = list(lines)
    for k in recs[len(recs) // 2 :]:
        out[k] = _set_back(lines[k], 90)
    return data if out == lines else b"".join(out)


_BIG_INT_RE = re.compile(rb"(?<![\d.,:\-])(\d{4,7})(?![\d.,:\-])")


def _grouped(m: re.Match[bytes]) -> bytes:
    """The number grouped, except a date's year (`12/7/2026`; `3964MB` after a `/` is grouped)."""
    text, start, end = m.string, m.start(), m.end()
    if start and text[start - 1 : start] == b"/" and not text[end : end + 1].isalpha():
        return m.group(1)
    return f"{int(m.group(1)):,}".encode()


def _csv_table(data: bytes) -> bool:
    """A comma table as a sheet writes one: the head's lines all hold the same number of commas
    (not a tegrastats CPU list, whose commas sit inside brackets)."""
    head = [ln for ln in _lines(data)[:20] if ln.strip()]
    counts = {ln.count(b",") for ln in head}
    return len(head) >= 3 and len(counts) == 1 and 0 not in counts and not any(b"[" in ln for ln in head)


def thousands_separators(data: bytes) -> bytes:
    """Numbers of 4 to 7 digits printed with grouping (`printf "%'d"` under en_US, a sheet's
    "1,000 separator" format): 1479 as 1,479; in a comma table the cell quoted, as a sheet
    writes it."""
    if _csv_table(data):
        return _BIG_INT_RE.sub(lambda m: g if (g := _grouped(m)) == m.group(1) else b'"' + g + b'"', data)
    return _BIG_INT_RE.sub(_grouped, data)


def unit_renamed_midway(data: bytes) -> bytes:
    """A logger upgraded halfway that writes its temperature in m°C and says so: the header
    written again with the column renamed `temp_mC`, the rows after it in m°C."""
    where = _temp_column(data)
    if where is None:
        return data
    header, col = where
    lines = _lines(_scale_rows(data, 0.5))
    first = header + 1 + int((len(lines) - header - 1) * 0.5)
    cells = lines[header].rstrip(b"\r\n").split(b",")
    cells[col] = b"temp_mC"
    return b"".join([*lines[:first], b",".join(cells) + b"\n", *lines[first:]])


def cat_without_line_end(data: bytes) -> bytes:
    """Two logs joined with `cat` where the first had no line end at its close: its last record
    and the second's first line run together on one line."""
    body = data.rstrip(b"\r\n")
    return body + data


VARIANTS_S33: dict[str, Callable[[bytes], bytes]] = {
    "header-repeated-midway": header_repeated_midway,
    "ntp-step-back": ntp_step_back,
    "thousands-separators": thousands_separators,
    "unit-renamed-midway": unit_renamed_midway,
    "cat-without-line-end": cat_without_line_end,
}
# Of these, the variants after which fewer samples may be read: records stamped before the
# last one may be dropped, and a joined line is damaged.
LOSSY_S33 = {"ntp-step-back", "cat-without-line-end"}
