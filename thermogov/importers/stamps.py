"""Timestamps as loggers write them: ISO, European and tegrastats dates, `date` in any locale.

A shell loop ``while :; do date; vcgencmd measure_temp; sleep 1; done`` prints ``date`` in the
board's locale: ``Thu Dec  3 08:23:31 UTC 2026``, ``Do 3. Dez 08:23:31 CET 2026``,
``jeu. 03 déc. 2026 08:23:31 CET`` (coreutils date(1), the LC_TIME of glibc locales).  Rather
than one strptime pattern per locale, a stamp is taken apart by token kind: the ``HH:MM:SS``
clock, a month name (matched by prefix against the month names of the common European
locales), a 4-digit year, a 1-2 digit day.  Weekday names and zone abbreviations are ignored
(the axis only needs differences; a zone change mid-log is not representable and rare).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import datetime, timedelta

# Month names of en, de, fr, es, it, nl, pt, pl (C/glibc LC_TIME abbreviations are prefixes).
_MONTHS: tuple[tuple[str, ...], ...] = (
    (
        "january",
        "januar",
        "janvier",
        "enero",
        "gennaio",
        "januari",
        "janeiro",
        "jan",
        "ene",
        "gen",
        "janv",
        "sty",
    ),
    (
        "february",
        "februar",
        "fevrier",
        "febrero",
        "febbraio",
        "februari",
        "fevereiro",
        "feb",
        "fev",
        "fevr",
        "lut",
    ),
    ("march", "marz", "mars", "marzo", "maart", "marco", "mar", "mrz", "maa", "mär", "mar"),
    ("april", "avril", "abril", "aprile", "apr", "avr", "abr", "kwi"),
    ("may", "mai", "mayo", "maggio", "mei", "maio", "mag", "maj"),
    ("june", "juni", "juin", "junio", "giugno", "junho", "jun", "giu", "cze"),
    ("july", "juli", "juillet", "julio", "luglio", "julho", "jul", "juil", "lug", "lip"),
    ("august", "aout", "agosto", "augustus", "aug", "ago", "sie"),
    ("september", "septembre", "septiembre", "settembre", "setembro", "sep", "sept", "set", "wrz"),
    ("october", "oktober", "octobre", "octubre", "ottobre", "outubro", "oct", "okt", "ott", "out", "paz"),
    ("november", "novembre", "noviembre", "novembro", "nov", "lis"),
    ("december", "dezember", "decembre", "diciembre", "dicembre", "dezembro", "dec", "dez", "dic", "gru"),
)

# ISO dates; s-tui's CSV joins date and time with "_" ("2024-05-01_12:00:00").  A `Z` before an
# offset (`date +'%FT%TZ%:z'`: `2024-05-01T10:00:00Z+02:00`, the Z a literal in the format) is the
# offset's: the clock is local, as `date` prints it; such a log was refused as "no usable rows".
_ISO_RE = re.compile(
    r"^(\d{4})[-/](\d\d)[-/](\d\d)[T _](\d\d):(\d\d):(\d\d(?:[.,]\d+)?)\s*(Z|Z?[+-]\d\d:?\d\d)?$"
)
# ISO 8601's basic date before a `T` (`date +%Y%m%dT%H:%M:%S` -> `20250316T09:01:00`, a Pi logger's
# CSV; ISO 8601-1:2019 5.4.2 has the basic forms): read as the extended form.  Only with the `T`,
# so an 8-digit counter beside a clock is never a date.
_ISO_BASIC_RE = re.compile(
    r"^(\d{4})(\d\d)(\d\d)T(\d\d):?(\d\d):?(\d\d(?:[.,]\d+)?)(?=\s*(?:Z|[+-]\d\d:?\d\d)?$)"
)
# German/Dutch/Nordic dates; a spreadsheet in those locales shows (and exports) `05.12.2026 10:00`
# or `05.12.26 10:00` without seconds by default, which was refused as "no usable table rows".
_DMY_RE = re.compile(r"^(\d\d?)\.(\d\d?)\.(\d{4}|\d\d),?\s+(\d\d?):(\d\d)(?::(\d\d(?:[.,]\d+)?))?$")
# tegrastats' MM-DD-YYYY; the same dashes day-first (`%d-%m-%Y`, a common logger format: nl, da,
# en_IN) when the first number exceeds 12 or the column says so (slash_day_first)
_MDY_RE = re.compile(r"^(\d\d)-(\d\d)-(\d{4})\s+(\d\d):(\d\d):(\d\d(?:[.,]\d+)?)$")
# "07: 00: 58": a strftime format written "%H: %M: %S" (spaces after the colons); refused before
_SPACED_CLOCK_RE = re.compile(r"(?<![\d:])(\d\d?):[ \t]*(\d\d):[ \t]*(\d\d)(?![\d:])")
# a `date` line's 12-hour clock (glibc en_US since 2.29: `Tue 23 Jun 2020 04:41:00 PM EDT`)
_AMPM_WORDS = {"am": "AM", "pm": "PM", "a.m.": "AM", "p.m.": "PM"}
_TOD_RE = re.compile(r"^(\d\d?):(\d\d):(\d\d(?:[.,]\d+)?)$")
# Slash dates as spreadsheets and US/UK locales write them: "05/01/2020 1:00:10 PM",
# "01/05/2020,13:00:10" (a Date and a Time column joined), two-digit years, seconds optional.
# Day-first or month-first cannot be told from one stamp below the 13th: see slash_day_first.
_SLASH_RE = re.compile(
    r"^(\d\d?)/(\d\d?)/(\d{4}|\d\d),?\s+(\d\d?):(\d\d)(?::(\d\d(?:[.,]\d+)?))?\s*([AaPp]\.?[Mm]\.?)?$"
)
_TOD_AMPM_RE = re.compile(r"^(\d\d?):(\d\d):(\d\d(?:[.,]\d+)?)\s*([AaPp]\.?[Mm]\.?)$")
_CLOCK_IN_RE = re.compile(r"(?<![\d:])(\d\d?):(\d\d):(\d\d(?:[.,]\d+)?)(?![\d:])")
_EPOCH = datetime(1970, 1, 1)


def _fold(word: str) -> str:
    """Lower-case without accents: ``déc.`` -> ``dec``, ``März`` -> ``marz``."""
    norm = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in norm if c.isalpha() and not unicodedata.combining(c))


def month_number(word: str) -> int | None:
    """1..12 for a month name or abbreviation in any of the locales above, else None."""
    w = _fold(word)
    if len(w) < 3:
        return None
    for i, names in enumerate(_MONTHS, start=1):
        for name in names:
            folded = _fold(name)
            if folded.startswith(w) or (len(folded) >= 3 and w.startswith(folded)):
                return i
    return None


def _seconds(dt: datetime) -> float:
    return (dt - _EPOCH).total_seconds()


def _sec(text: str) -> float:
    return float(text.replace(",", "."))


def _hour12(hour: int, ampm: str | None) -> int:
    """24-hour clock hour of a 12-hour ``h AM/PM`` (12 AM is midnight, 12 PM noon)."""
    if not ampm:
        return hour
    if not 1 <= hour <= 12:
        raise ValueError("hour out of range for a 12-hour clock")
    return hour % 12 + (12 if ampm[0] in "Pp" else 0)


def slash_day_first(cells: Iterable[str]) -> bool | None:
    """Whether the slash dates of one column are day-first (True), month-first (False) or
    cannot be told (None: every day and month is 12 or below).

    A column is read in one order for all its rows: deciding per stamp would read 12/05 as
    5 December and 13/05 as 13 May in the same log."""
    first_over = second_over = False
    for c in cells:
        if m := _SLASH_RE.match(c.strip()) or _MDY_RE.match(c.strip()):
            first_over |= int(m.group(1)) > 12
            second_over |= int(m.group(2)) > 12
    if first_over != second_over:
        return first_over
    return None


def parse_stamp(text: str, day_first: bool | None = None) -> tuple[float, bool] | None:
    """(seconds, absolute) of one timestamp cell; absolute False means time of day only.

    Absolute stamps are seconds since 1970 on the log's own clock (zone offsets applied when
    written, e.g. ISO ``+02:00``).  None when the text is no timestamp (never raises).
    ``day_first`` orders a slash date (:func:`slash_day_first` decides it for a column); left
    None, a stamp whose first number exceeds 12 is day-first and any other month-first.
    """
    s = text.strip()
    if ": " in s or ":\t" in s:
        s = _SPACED_CLOCK_RE.sub(r"\1:\2:\3", s)
    if s[8:9] == "T" and (basic := _ISO_BASIC_RE.match(s)) is not None:
        s = "{}-{}-{}T{}:{}:{}".format(*basic.groups()) + s[basic.end() :]
    try:
        if m := _SLASH_RE.match(s):
            a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
            y += 2000 if y < 100 else 0
            first = day_first if day_first is not None else a > 12
            d, mo = (a, b) if first else (b, a)
            h = _hour12(int(m.group(4)), m.group(7))
            sec = _sec(m.group(6)) if m.group(6) else 0.0
            return _seconds(datetime(y, mo, d, h, int(m.group(5))) + timedelta(seconds=sec)), True
        if m := _TOD_AMPM_RE.match(s):
            h, mi, sec = _hour12(int(m.group(1)), m.group(4)), int(m.group(2)), _sec(m.group(3))
            if mi > 59 or sec >= 61:
                return None
            return h * 3600 + mi * 60 + sec, False
        if m := _ISO_RE.match(s):
            y, mo, d, h, mi = (int(g) for g in m.groups()[:5])
            dt = datetime(y, mo, d, h, mi) + timedelta(seconds=_sec(m.group(6)))
            tz = m.group(7)
            if tz and tz != "Z":
                tz = tz.removeprefix("Z")
                sign = 1 if tz[0] == "+" else -1
                digits = tz[1:].replace(":", "")
                dt -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
            return _seconds(dt), True
        if m := _DMY_RE.match(s):
            d, mo, y, h, mi = (int(g) for g in m.groups()[:5])
            y += 2000 if y < 100 else 0
            sec = _sec(m.group(6)) if m.group(6) else 0.0
            return _seconds(datetime(y, mo, d, h, mi) + timedelta(seconds=sec)), True
        if m := _MDY_RE.match(s):
            a, b, y, h, mi = (int(g) for g in m.groups()[:5])
            first = day_first if day_first is not None else a > 12
            d, mo = (a, b) if first else (b, a)
            return _seconds(datetime(y, mo, d, h, mi) + timedelta(seconds=_sec(m.group(6)))), True
    except ValueError:
        return None
    if m := _TOD_RE.match(s):
        h, mi, sec = int(m.group(1)), int(m.group(2)), _sec(m.group(3))
        if h > 23 or mi > 59 or sec >= 61:
            return None
        return h * 3600 + mi * 60 + sec, False
    return parse_date_line(s)


def parse_date_line(text: str) -> tuple[float, bool] | None:
    """A ``date``-style line in any of the known locales (see module doc), else None."""
    clock = _CLOCK_IN_RE.search(text)
    if clock is None:
        return None
    rest = (text[: clock.start()] + " " + text[clock.end() :]).replace(",", " ")
    month = year = day = None
    ampm: str | None = None
    for tok in rest.split():
        bare = tok.strip(".")
        if tok.lower() in _AMPM_WORDS:
            ampm = _AMPM_WORDS[tok.lower()]  # read, not skipped as a zone: 01:00 PM is 13:00
        elif bare.isdigit():
            if len(bare) == 4 and year is None:
                year = int(bare)
            elif len(bare) <= 2 and day is None:
                day = int(bare)
            else:
                return None
        elif (n := month_number(bare)) is not None:
            month = n  # the last month word wins: a weekday abbreviation (fr "mar.") comes first
        elif not re.fullmatch(r"[^\W\d_]+\.?|[+-]\d{4}|[A-Z]{2,5}[+-]?\d*", tok):
            return None  # not a weekday, zone or month word: this is no date line
    if month is None or year is None or day is None:
        return None
    mi, sec = int(clock.group(2)), _sec(clock.group(3))
    try:
        h = _hour12(int(clock.group(1)), ampm)
        dt = datetime(year, month, day, h, mi) + timedelta(seconds=sec)
    except ValueError:
        return None
    return _seconds(dt), True


def date_prefix(tokens: list[str]) -> int:
    """How many leading whitespace tokens of a line form a ``date`` stamp (0 when they do not).

    A table written by ``echo "$(date)<TAB>$temp"`` in a locale whose ``date`` is not the C one
    (en_US: ``Tue 23 Jun 2020 04:41:00 PM EDT``, de: ``Di 23. Jun 16:41:00 EDT 2020``): split on
    whitespace the stamp became seven columns, wider than the real table, and the log was refused.
    The stamp runs from the first token to the clock, then over the AM/PM word, zone words and
    the year that follow it; :func:`parse_date_line` must accept the whole of it."""
    clock = next((i for i, t in enumerate(tokens[:6]) if _TOD_RE.match(t)), None)
    if clock is None or clock == 0:
        return 0
    end = clock + 1
    while end < len(tokens) and end <= clock + 3:
        tok = tokens[end]
        if tok.lower() in _AMPM_WORDS or re.fullmatch(r"[A-Z]{2,5}|[+-]\d{4}|\d{4}", tok):
            end += 1
        else:
            break
    while end > clock and parse_date_line(" ".join(tokens[:end])) is None:
        end -= 1  # a 4-digit number after the stamp may be a reading, not the year
    return end if end > clock else 0
