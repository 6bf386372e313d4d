"""Undo what terminals, editors and copy-paste do to a log before any format looks at it.

A log captured with ``script`` (util-linux script(1)) starts with ``Script started on ...``,
ends with ``Script done on ...`` and carries CR line ends, ANSI colour/cursor sequences and
progress lines overwritten in place with a bare CR.  Windows editors add a UTF-8 BOM and CRLF.
All of that is removed here, once, so every importer sees plain lines; what was removed is
returned as notes.  A file that is mostly binary is refused instead of being mined for digits.

Two kinds of damage are undone too.  A log whose board lost power mid-write often ends in (or,
after a reboot, continues past) a run of NUL bytes: the file's size was committed before its
data (ext4 delayed allocation).  A NUL is never a character of a text log, so every NUL is
removed and counted, and only what is left is judged text or binary.  And a line longer than
``MAX_LINE_CHARS`` is no log line (a binary blob, a file whose line ends were lost, a runaway
logger): it is dropped and counted before any reader splits it into fields, so one 50 MB line
costs one pass over it, not millions of cells.
"""

from __future__ import annotations

import re

from thermogov.interfaces import LogFormatError

# ECMA-48 control sequences: CSI (ESC [ ... final byte), OSC (ESC ] ... BEL/ST), two-byte ESC x.
_ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_SCRIPT_START_RE = re.compile(r"^Script started(?: on|,)", re.I)
_SCRIPT_DONE_RE = re.compile(r"^Script done(?: on|,)", re.I)
# Either of the two at the start of any line of a whole text (`^` after each "\n", as the lines
# are split).
_SCRIPT_LINE_RE = re.compile(r"^Script (?:started|done)(?: on|,)", re.I | re.M)
_BINARY_SHARE = 0.05  # more than 5 % NUL/undecodable/control characters: not a text log
# The longest line a log holds.  The longest seen is a 2.3 kB power-GUI tegrastats CSV row; a
# jtop stats dict line is ~1-2 kB; 64 KiB leaves a wide margin and stays below the csv module's
# 128 KiB field limit, which a longer line would hit as an internal error.
MAX_LINE_CHARS = 64 * 1024
# A run of NULs with text after it on the same line: the text before the run is a line the power
# cut off (the lost data blocks read as NULs start at a block boundary, mid-line), and the text
# after is the next boot's first line.  Removing only the NULs glued the two into one row
# (``4`` + ``300,40.0`` read as t = 4300 s, and every later row then dropped as earlier).
# The same holds where the run ends at a line end or at the end of the file: the line the power
# cut off lost its tail all the same (``46.0,1`` + NULs + newline kept ``1`` as a 1 MHz clock),
# so the text before any long run is dropped, whatever follows it.
# A run shorter than 16 NULs is not a lost block (UTF-32 read as UTF-16 leaves single NULs
# between characters; a stray NUL inside a line cuts nothing) and is only removed.
_CUT_LINE_RE = re.compile(r"([^\n\x00]*)\x00{16,}(?=([^\x00\r\n])?)")


def _is_binary(text: str) -> bool:
    sample = text[:65536]
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch in "\x00\ufffd" or (ord(ch) < 32 and ch not in "\t\n\r\x1b\x08\x0c"))
    return bad / len(sample) > _BINARY_SHARE


def _cut_lines(text: str) -> tuple[str, int]:
    """The text with every line a long NUL run cut short dropped, and how many such lines.

    A run followed by text on the same line becomes a line end (the next boot's line starts
    there); a run at a line end or the file's end just goes.  Only a run with text before it on
    its line counts as a cut line: NULs after a complete line cut nothing.
    """
    cut = 0

    def _drop(m: re.Match[str]) -> str:
        nonlocal cut
        if m.group(1).strip():
            cut += 1
        return "\n" if m.group(2) else ""

    return _CUT_LINE_RE.sub(_drop, text), cut


def _overwrite(line: str) -> str:
    """What a terminal shows for a line with bare CRs and backspaces: the last overwrite wins."""
    if "\r" in line:
        parts = [p for p in line.split("\r") if p.strip()]
        line = parts[-1] if parts else ""
    if "\b" not in line:
        return line
    # A backspace moves the cursor one column left (never past the start) and the next character
    # overwrites that column; what lies right of the cursor stays shown, as on a terminal.
    shown: list[str] = []
    col = 0
    for ch in line:
        if ch == "\b":
            col = max(col - 1, 0)
            continue
        if col < len(shown):
            shown[col] = ch
        else:
            shown.append(ch)
        col += 1
    return "".join(shown)


def clean_text(text: str, source: str) -> tuple[str, list[str]]:
    """(plain text, notes) of a decoded log; LogFormatError for a binary file."""
    notes: list[str] = []
    nuls = text.count("\x00")
    cut = 0
    if nuls:
        text, cut = _cut_lines(text)
        text = text.replace("\x00", "")
        if not text.strip():
            raise LogFormatError(
                f"{source}: holds only NUL bytes (space allocated but never written, e.g. after a power cut); "
                "pass another copy of the log"
            )
    if _is_binary(text):
        raise LogFormatError(f"{source}: looks like a binary file, not a text log; pass the log itself")
    if nuls:
        notes.append(f"{nuls} NUL byte(s) removed (a file cut by a power loss keeps them)")
    if cut:
        notes.append(f"{cut} line(s) cut off by a run of NULs: the cut part dropped")
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\ufeff", "")
    if "\r" in text and "\n" not in text:  # classic Mac line ends
        text = text.replace("\r", "\n")
    text = text.replace("\r\n", "\n")
    text = _drop_long_lines(text, source, notes)
    text = _drop_cut_tail(text, notes)
    ansi = len(_ANSI_RE.findall(text))
    if ansi:
        text = _ANSI_RE.sub("", text)
        notes.append(f"{ansi} terminal control sequence(s) removed")
    if "\r" not in text and "\b" not in text and not _SCRIPT_LINE_RE.search(text):
        # Nothing per line to undo (session 26m): the text is its own result, without a list of
        # its lines (~80 B a line) and their joined copy.
        return text, notes
    lines = text.split("\n")
    overwritten = sum(1 for ln in lines if "\r" in ln.rstrip("\r") or "\b" in ln)
    if overwritten:
        notes.append(f"{overwritten} line(s) overwritten in place (CR/backspace): the last version kept")
    lines = [_overwrite(ln) for ln in lines]
    kept: list[str] = []
    script = False
    for ln in lines:
        if _SCRIPT_START_RE.match(ln) or _SCRIPT_DONE_RE.match(ln):
            script = True
            continue
        kept.append(ln)
    if script:
        notes.append("script(1) capture: its 'Script started/done' lines removed")
    return "\n".join(kept), notes


# A line is cut short at its end: what survives of it has fewer fields, or a last field shorter, than
# the same kind of line before it.  Fields split as every reader here splits them.
_FIELD_SPLIT_RE = re.compile(r"[\s,;|]+")
_KIND_RE = re.compile(r"[^\d]*")  # the text before a line's first digit: `temp=`, `RAM `, `` (a row)
_CUT_LOOKBACK = 50  # lines searched back for one of the same kind


def _fields(line: str) -> list[str]:
    return [f for f in _FIELD_SPLIT_RE.split(line.strip()) if f]


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _drop_cut_tail(text: str, notes: list[str]) -> str:
    """The text without its last line where the log was cut while that line was being written.

    A logger writes each line with its line end, so a file whose last line has none was copied,
    or the board stopped, mid-write (``tegrastats`` killed, power lost, ``tail -c`` of a growing
    file).  What is left of the line reads as a line: ``20,46.1,15`` stored a 15 MHz clock,
    ``10:00:20,4`` a 4 °C board, ``EMC_FREQ 0%@21`` a 21 MHz memory clock.  The last line is
    dropped, and said, only where it holds a number and has fewer fields, or a shorter last number,
    than the nearest line of the same kind before it (the same text before its first digit: ``temp=`` beside
    ``temp=``, a row beside a row); a complete last line without a line end (sbc-bench reports,
    an editor that strips it) reads as long as its neighbour and is kept.
    """
    if not text or text.endswith("\n"):
        return text
    idx = text.rfind("\n")
    last = text[idx + 1 :]
    if idx < 0 or not last.strip():
        return text
    kind = _KIND_RE.match(last.strip())
    key = kind.group() if kind else ""
    # The last _CUT_LOOKBACK lines before it, cut out of the text without copying all of it.
    end, start = idx, 0
    for _ in range(_CUT_LOOKBACK):
        nl = text.rfind("\n", 0, end)
        if nl < 0:
            break
        end = nl
    else:
        start = end + 1
    before = [ln for ln in text[start:idx].split("\n") if ln.strip()]
    ref = next((ln for ln in reversed(before) if _KIND_RE.match(ln.strip()).group() == key), None)  # type: ignore[union-attr]
    if ref is None:
        return text
    got, want = _fields(last), _fields(ref)
    shorter = len(got) < len(want) or (
        len(got) == len(want)
        and len(got[-1]) < len(want[-1])
        and _has_digit(got[-1])
        and _has_digit(want[-1])
    )
    if not shorter or not _has_digit(last):  # a shorter word (`Unified` after `Instruction`) is no cut value
        return text
    notes.append(
        "the last line has no line end and is shorter than the line before it (the log was cut while "
        "it was written): dropped"
    )
    return text[: idx + 1]


def _has_long_line(text: str) -> bool:
    """Whether a line of ``text`` is over ``MAX_LINE_CHARS``, found without splitting it."""
    start, size = 0, len(text)
    while start <= size:
        nl = text.find("\n", start)
        end = size if nl < 0 else nl
        if end - start > MAX_LINE_CHARS:
            return True
        if nl < 0:
            return False
        start = nl + 1
    return False


def _drop_long_lines(text: str, source: str, notes: list[str]) -> str:
    """The text without its lines over ``MAX_LINE_CHARS``; LogFormatError when none is left."""
    if len(text) <= MAX_LINE_CHARS or not _has_long_line(text):
        return text
    lines = text.split("\n")
    kept = [ln for ln in lines if len(ln) <= MAX_LINE_CHARS]
    dropped = len(lines) - len(kept)
    k, first = next((i, ln) for i, ln in enumerate(lines, 1) if len(ln) > MAX_LINE_CHARS)
    size = len(first.encode("utf-8", "replace"))
    limit = f"{MAX_LINE_CHARS // 1024} KiB"
    if not any(ln.strip() for ln in kept):
        if dropped == 1:  # one line and no line end in it: what a binary or a lost-line-ends file is
            raise LogFormatError(
                f"{source}: no line shorter than {limit} (one line of {size} bytes: a binary or a file "
                "without line ends); pass the log itself"
            )
        # Session 25l: lines there, each too long (a 100 000-column table), is no binary.
        fields = max(first.count(sep) for sep in ",;\t ") + 1
        about = f" (about {fields} fields)" if fields > 1 else ""
        raise LogFormatError(
            f"{source}: line {k} is {size} bytes{about}, over the {limit} a log line may "
            f"hold, and so are the other {dropped - 1} line(s); keep the columns to import "
            "(e.g. cut -d, -f1-20 FILE > SMALLER.csv) and pass that file"
        )
    notes.append(
        f"{dropped} line(s) longer than {limit} dropped (the first: line {k}, {size} bytes): "
        "no log line is that long"
    )
    return "\n".join(kept)
