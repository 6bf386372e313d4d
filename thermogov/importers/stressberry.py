"""stressberry run files (``stressberry-run`` output, YAML) read without PyYAML.

The files use a tiny, stable subset of YAML: a ``#`` header comment, ``key: scalar``,
flow lists ``key: [a, b,`` continued over indented lines ``c]``, and block lists ``key:``
followed by ``- value`` lines (stressberry >= 0.2).  A dedicated parser for exactly that
keeps PyYAML out of the dependencies (boards often lack it) and lets one bad number cost one
sample instead of the whole file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from thermogov.importers.cells import lines_of
from thermogov.importers.common import (
    ImportedLog,
    ImportedSample,
    Mark,
    mhz_to_hz,
    no_samples_error,
    read_text,
    rebase,
)
from thermogov.importers.models import board_from_model
from thermogov.interfaces import LogFormatError

FMT = "stressberry"

_HEADER_RE = re.compile(r"created by stressberry v?(\S+) on (.+)$")
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_ ]*):(?:\s+(.*))?$")
_MISSING = object()


def detect(text: str) -> Mark | None:
    """stressberry's header comment, or a ``temperature`` and a ``time`` list at top level."""
    head = text[:4096]
    if "created by stressberry" in head:
        return Mark(FMT, "header comment")
    keys = {m.group(1) for ln in lines_of(text) if (m := _KEY_RE.match(ln))}
    return Mark(FMT, "temperature and time lists") if {"temperature", "time"} <= keys else None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _number(item: str) -> float | object:
    item = item.strip()
    if _DECIMAL_COMMA_RE.fullmatch(item):  # `- 600,16992`: one block-list item, a decimal comma
        item = item.replace(",", ".")
    try:
        return float(item)
    except ValueError:
        return _MISSING


# A number written under a locale with decimal commas (`48,3`).
_DECIMAL_COMMA_RE = re.compile(r"[-+]?\d+,\d+")
# Between two items of a YAML flow list: a comma and a space (PyYAML writes `[48.3, 47.8]`).  A
# comma with a digit on both sides is no separator: split at every comma, `[48,3, 47,8]` read
# as 48, 3, 47, 8 (a decimal-comma stressberry file, session 30w).
_FLOW_ITEM_SEP_RE = re.compile(r",(?=\s)|,$")


def _flow_pieces(body: str) -> list[str]:
    """The item texts of a flow list's body; decimal commas kept inside their item when every
    item separator is a comma and a space and some comma sits between two digits."""
    if re.search(r"\d,\d", body) and re.search(r",\s", body):
        return [x for x in _FLOW_ITEM_SEP_RE.split(body) if x.strip()]
    return [x for x in body.split(",") if x.strip()]


def _flow_items(body: str) -> list[float | object]:
    """The numbers of a flow list's body."""
    return [_number(x) for x in _flow_pieces(body)]


@dataclass(frozen=True)
class _CutList:
    """A flow list the file ends inside: its name, the whole items kept, the last item dropped."""

    key: str
    kept: int
    dropped: str | None


def _cut_list(key: str, flow: list[str]) -> tuple[list[float | object], _CutList]:
    """The items of a flow list the file ends inside, read up to its last whole item.

    The copy stopped mid-write, so the text after the last separator may be a number cut short
    (`20.2708` of `20.270849227905273`, `6.` of `6.08`), and it reads as a number: it is dropped.
    Where the text ends at a separator (the cut fell at a line end) every item is whole."""
    body = " ".join(flow)[1:].rstrip()
    pieces = _flow_pieces(body)
    dropped = None
    if pieces and not body.endswith(","):
        dropped = pieces.pop().strip()
    return [_number(x) for x in pieces], _CutList(key, len(pieces), dropped)


def _read_document(
    text: str, cuts: list[_CutList]
) -> tuple[dict[str, str | list[float | object]], list[str], int]:
    """Top-level mapping of the subset; returns (data, header comments, malformed line count).
    A flow list the file ends inside is appended to ``cuts``."""
    data: dict[str, str | list[float | object]] = {}
    comments: list[str] = []
    bad = 0
    key: str | None = None
    flow: list[str] | None = None  # pieces of a flow list still waiting for its "]"
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        if flow is not None and key is not None:
            flow.append(line.strip())
            if line.endswith("]"):
                body = " ".join(flow)[1:-1]
                data[key] = _flow_items(body)
                flow = None
            continue
        if line.lstrip().startswith("#"):
            comments.append(line.lstrip("# ").strip())
            continue
        if line.startswith("-") and key is not None and isinstance(data.get(key), list):
            items = data[key]
            assert isinstance(items, list)
            items.append(_number(line[1:]))
            continue
        m = _KEY_RE.match(line)
        if m is None:
            bad += 1
            continue
        key, value = m.group(1).strip(), (m.group(2) or "").strip()
        if not value:
            data[key] = []  # a block list follows (or the key is empty)
        elif value.startswith("["):
            if value.endswith("]"):
                data[key] = _flow_items(value[1:-1])
            else:
                flow = [value]
        else:
            data[key] = _scalar(value)
    if flow is not None and key is not None:
        # unterminated flow list at end of file: a copy taken while stressberry wrote it
        data[key], cut = _cut_list(key, flow)
        bad += cut.dropped is not None
        cuts.append(cut)
    return data, comments, bad


def parse(path: str | Path) -> ImportedLog:
    """Parse a stressberry ``.dat`` file."""
    return parse_text(read_text(path), str(path))


def parse_text(text: str, source: str = "<text>") -> ImportedLog:
    """Zip the ``time``/``temperature``/``cpu frequency``/``ambient`` lists into samples."""
    cuts: list[_CutList] = []
    data, comments, bad = _read_document(text, cuts)
    times = data.get("time")
    temps = data.get("temperature")
    if not isinstance(times, list) or not isinstance(temps, list) or not times or not temps:
        if cuts and cuts[0].key in ("time", "temperature"):
            # the list ends at the end of the file with no "]" and no whole item in it
            raise LogFormatError(
                f"{source}: the stressberry {cuts[0].key!r} list is cut (no closing ']' before the end "
                "of the file: a copy made while it was written?) with no whole item left in it, or "
                "the lists after it are missing; copy the whole file again and import it"
            )
        raise no_samples_error(source, "stressberry 'time' and 'temperature' lists")
    freqs = data.get("cpu frequency")
    ambient = data.get("ambient")
    notes: list[str] = []
    for cut in cuts:
        lost = f", its last item {cut.dropped!r} dropped (it may be cut short)" if cut.dropped else ""
        notes.append(
            f"the stressberry {cut.key!r} list is cut (no closing ']' before the end of the file: a copy "
            f"made while it was written?): read to its last whole item ({cut.kept} items){lost}"
        )
    for c in comments:
        if m := _HEADER_RE.search(c):
            notes.append(f"stressberry {m.group(1)}, run started {m.group(2)}")
    name = data.get("name")
    if isinstance(name, str) and name:
        notes.append(f"setup: {name}")
    n = min(len(times), len(temps))
    if len(times) != len(temps):
        notes.append(f"time has {len(times)} entries, temperature {len(temps)}: extra entries dropped")
    freq_list = freqs if isinstance(freqs, list) and freqs else None
    if freq_list is not None and len(freq_list) != n:
        notes.append(f"cpu frequency has {len(freq_list)} entries for {n} samples: unmatched ones ignored")
    amb_list = ambient if isinstance(ambient, list) and ambient else None
    if freq_list is None:
        notes.append("no cpu frequency list (stressberry < 0.2): clocks unknown")
    notes.append("load not logged; stressberry protocol is idle, stress --cpu 4, cool-down")
    kept_t: list[float] = []
    rows: list[tuple[dict[str, float], dict[str, int]]] = []
    skipped = bad
    for i in range(n):
        t, temp = times[i], temps[i]
        if not isinstance(t, float) or not isinstance(temp, float) or (kept_t and t < kept_t[-1]):
            skipped += 1
            continue
        sample_temps = {"cpu": temp}
        amb = amb_list[i] if amb_list is not None and i < len(amb_list) else None
        if isinstance(amb, float):
            sample_temps["ambient"] = amb
        sample_freqs: dict[str, int] = {}
        mhz = freq_list[i] if freq_list is not None and i < len(freq_list) else None
        if isinstance(mhz, float):
            sample_freqs["cpu"] = mhz_to_hz(mhz)
        kept_t.append(t)
        rows.append((sample_temps, sample_freqs))
    if not rows:
        raise no_samples_error(source, "usable stressberry samples")
    samples = tuple(
        ImportedSample(t_s=t, temps_c=tc, freqs_hz=fq, loads={}, power_w=None, rails_w={})
        for t, (tc, fq) in zip(rebase(kept_t), rows, strict=True)
    )
    # stressberry records no hardware model; the user's run name or a comment often says it
    said = " ".join([name if isinstance(name, str) else "", *comments])
    board = board_from_model(said)
    if board is not None:
        notes.append(f"board {board} from the run name/comments")
    setup = name.strip() if isinstance(name, str) else ""
    return ImportedLog(FMT, source, board, samples, skipped, tuple(notes), setup=setup)
