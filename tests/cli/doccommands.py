"""The ``thermogov ...`` command lines the README and docs show, checked against the click tree.

A user copies commands from the docs: a renamed option or subcommand leaves a line that fails
with "No such option" in the user's hands while every test still passes.  This module finds
every command line in the Markdown (fenced and indented code blocks, inline code, a span that
wraps a line included), parses it against the command tree *without running it* (each
subcommand exists, each ``--option`` belongs to that subcommand, a value of a declared
``click.Choice`` is one of its choices, a ``--board``/``--scenario``/``--policy`` value names a
built-in board, a suite scenario or a registered policy (or variant), a hidden deprecated option
is not shown as current), and says where each stale one is.  Placeholders (``NAME``, ``<run>``,
``...``, ``$f``) and optional brackets (``[--json]``) are read as a reader would.

What is not checked: whether the command would succeed (a required ``--policy`` that the code,
not click, insists on; a file that must exist), and an option written alone in prose
(```--json```), whose command a sentence names only loosely.

History is told apart by heading: a section whose heading names a session ("Session 28f",
"Reviewed, session 14", "Fifth session", "Measured in session 7") records what was true then,
and everything under it is history, skipped by :func:`current_commands`.

``python -m tests.cli.doccommands [--all]`` prints every stale line (``--all``: history too).
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
# "Session 28f", "session 14", "Fifth session", "previous session": a dated record, not the manual.
_HISTORY = re.compile(r"\bsessions?\b", re.IGNORECASE)
# CommonMark's code span: a run of backticks, then text up to a run of the same length.
_INLINE = re.compile(r"(?<!`)(`+)(?!`)(.{1,400}?)(?<!`)\1(?!`)", re.DOTALL)
# Words that may stand before the command on a shell line: sudo and its -E, env assignments, ...
_PREFIX_WORDS = {"sudo", "-E", "time", "exec", "nohup", "env", "$", "!", "do", "then"}
# Wrappers whose own options stand before the command: ``/usr/bin/time -f %U thermogov sim``.
_WRAPPERS = {"time", "nice", "timeout", "ionice", "taskset"}


@dataclass(frozen=True)
class DocCommand:
    """One ``thermogov`` command line as the docs show it."""

    path: Path
    line: int
    text: str  # the line as written (continuations joined)
    argv: tuple[str, ...]  # the words after ``thermogov``
    history: bool  # under a heading that names a session
    fenced: bool  # in a fenced code block (a command to copy) rather than inline code

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _is_history(stack: list[tuple[int, str]]) -> bool:
    return any(_HISTORY.search(title) for _level, title in stack)


def _words(text: str) -> list[str]:
    """Shell words of one line, brackets of optional parts dropped (``[--json]`` is ``--json``)."""
    try:
        lexer = shlex.shlex(text.replace("\\|", "|"), posix=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = list(lexer)
    except ValueError:  # an apostrophe in a placeholder (``[run's options]``): plain words
        words = text.replace("\\|", "|").split()
    kept: list[str] = []
    skip_next = False
    merged: list[str] = []
    for word in words:  # ``<profile or edited TOML>``: one placeholder
        if merged and merged[-1].startswith("<") and ">" not in merged[-1]:
            merged[-1] += " " + word
        else:
            merged.append(word)
    for word in merged:
        if skip_next:
            skip_next = False
            continue
        if re.fullmatch(r"\d*>>?|\d*<", word):  # a redirection and its file
            skip_next = True
            continue
        if re.fullmatch(r"\d*>>?\S+|\d*>&\d+", word):
            continue
        bare = word.strip("[]")
        if bare:
            kept.append(bare)
    return kept


def _is_script(word: str) -> bool:
    """``thermogov``, ``.venv/bin/thermogov`` or a unit file's ``ExecStopPost=/x/thermogov``."""
    return word.split("=", 1)[-1].rsplit("/", 1)[-1] == "thermogov"


def _is_prose(argv: tuple[str, ...]) -> bool:
    """A sentence about the program (``thermogov stops governing it``), or a message it prints,
    rather than a command: a first word that names no command, then two words or more and no
    option.  A stale command line (``thermogov oldname`` or ``thermogov oldname --x``) is kept."""
    from thermogov.cli import LAZY_COMMANDS, cli

    if argv[0] in LAZY_COMMANDS or argv[0] in cli.commands or "|" in argv[0]:
        return False
    return len(argv) >= 3 and not any(w.startswith("-") for w in argv)


def _commands_in(text: str) -> Iterator[tuple[str, ...]]:
    """The argument vectors of every ``thermogov`` invocation in one shell line (a pipeline,
    ``a && b``, ``sudo -E VAR=1 thermogov ...`` and ``/path/venv/bin/thermogov`` included).
    A ``|`` between words is a pipe; inside a word (``local|dask``) it separates alternatives."""
    for part in re.split(r"\s(?:\|\||&&|\\?\||;|&)\s|;\s|;$|\s&$", text):
        segment = _words(part)
        if not segment:
            continue
        start = 0
        while start < len(segment) and (
            segment[start] in _PREFIX_WORDS or re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", segment[start])
        ):
            start += 1
        if start < len(segment) and segment[start].rsplit("/", 1)[-1] in _WRAPPERS:
            start += 1
            while start < len(segment) and re.match(r"[-%\d]", segment[start]):
                start += 1
        if start < len(segment) and _is_script(segment[start]):
            argv = tuple(segment[start + 1 :])
            if argv and re.fullmatch(r"[a-z][a-z|-]*|-\S+", argv[0]) and not _is_prose(argv):
                yield argv


def _joined_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Fenced-block lines with ``\\`` continuations joined, numbered by their first line."""
    held: list[str] = []
    first = 0
    for i, line in enumerate(lines):
        if not held:
            first = i
        if line.rstrip().endswith("\\"):
            held.append(line.rstrip()[:-1])
            continue
        held.append(line)
        yield first, " ".join(held)
        held = []
    if held:
        yield first, " ".join(held)


def _block_commands(path: Path, block: list[str], start: int, history: bool) -> Iterator[DocCommand]:
    """Commands in a code block whose first line is ``start + 1``, one per (joined) line."""
    for offset, joined in _joined_lines(block):
        for argv in _commands_in(joined.strip()):
            yield DocCommand(path, start + 1 + offset, joined.strip(), argv, history, True)


def _inline_commands(path: Path, first: int, text: str, history: bool) -> Iterator[DocCommand]:
    """Commands in the inline code of a paragraph starting at line ``first`` (a span may wrap)."""
    for match in _INLINE.finditer(text):
        code = " ".join(match.group(2).split())
        number = first + text.count("\n", 0, match.start())
        for argv in _commands_in(code):
            yield DocCommand(path, number, code, argv, history, False)


def doc_commands(path: Path) -> Iterator[DocCommand]:
    """Every ``thermogov`` command line in one Markdown file: fenced and indented code blocks
    (each line a command to copy) and inline code (``thermogov sim --board rpi5``, which may wrap
    to the next line of its paragraph)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    stack: list[tuple[int, str]] = []
    fence: str | None = None
    block: list[str] = []
    block_start = 0
    block_history = False
    paragraph: list[str] = []
    paragraph_start = 0
    indented = False  # inside an indented code block (four spaces after a blank line)
    for number, line in [*enumerate(lines, 1), (len(lines) + 1, "")]:
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1) == fence:
                yield from _block_commands(path, block, block_start, block_history)
                fence = None
            else:
                block.append(line)
            continue
        code_line = line.startswith("    ") and (
            indented or (not paragraph and not re.match(r"\s*([-*+|]|\d+\.)\s", line))  # not a nested list
        )
        if indented and not code_line and (line.strip() or number > len(lines)):
            yield from _block_commands(path, block, block_start, block_history)
            indented = False
        heading = _HEADING.match(line)
        if not line.strip() or opening or heading or code_line:
            yield from _inline_commands(path, paragraph_start, "\n".join(paragraph), _is_history(stack))
            paragraph = []
        if opening:
            fence, block, block_start, block_history = opening.group(1), [], number, _is_history(stack)
            continue
        if heading:
            level = len(heading.group(1))
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, heading.group(2))]
            yield from _inline_commands(path, number, heading.group(2), _is_history(stack))
            continue
        if code_line:
            if not indented:
                block, block_start, block_history = [], number - 1, _is_history(stack)
            indented = True
            block.append(line)
            # A list item's indented paragraph reads as code here: its inline code still counts.
            yield from _inline_commands(path, number, line, _is_history(stack))
            continue
        if not line.strip():
            if indented:
                block.append(line)  # a blank line inside an indented block keeps it open
            continue
        if not paragraph:
            paragraph_start = number
        paragraph.append(line)


# Files shipped beside the docs whose comments and lines show commands: the example sweep and
# config (``thermogov doctor --config ...``, ``thermogov run --policy NAME``) and the unit template.
SHIPPED = [
    *sorted((ROOT / "examples").glob("*.toml")),
    ROOT / "thermogov" / "examples" / "thermogov.toml",
    ROOT / "hw" / "thermogov.service",
    ROOT / "traces" / "README.md",
]


def shipped_commands(paths: list[Path] | None = None) -> list[DocCommand]:
    """Command lines in the shipped example files: each line with its ``#`` taken off, read as
    a shell line (``#   thermogov sweep FILE``, ``ExecStart=/x/thermogov run ...``) and for its
    inline code."""
    found: list[DocCommand] = []
    for path in paths or SHIPPED:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = line.lstrip("#").strip()
            found += [DocCommand(path, number, text, argv, False, True) for argv in _commands_in(text)]
            found += _inline_commands(path, number, text, False)
    return found


def all_commands(paths: list[Path] | None = None) -> list[DocCommand]:
    return [c for p in paths or DOCS for c in doc_commands(p)]


def current_commands(paths: list[Path] | None = None) -> list[DocCommand]:
    """The command lines a user would copy as today's: outside every session's history."""
    return [c for c in all_commands(paths) if not c.history]


def _option_index(cmd: click.Command, ctx: click.Context) -> dict[str, click.Parameter]:
    index: dict[str, click.Parameter] = {}
    for param in cmd.get_params(ctx):
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                index[name] = param
    return index


def _is_placeholder(value: str) -> bool:
    """A value the docs leave for the reader to fill in: ``<board>``, ``NAME``, ``...``, ``$X``."""
    return bool(re.fullmatch(r"<.*>?|[A-Z][A-Z_]*|\.\.\.|…|\$.*|\{.*\}|\[.*\]", value))


def problems(argv: tuple[str, ...], root: click.Group | None = None) -> list[str]:
    """What is wrong with ``thermogov ARGV`` against today's command tree (empty: it parses)."""
    if root is None:
        from thermogov.cli import cli

        root = cli
    ctx = click.Context(root, info_name="thermogov")
    cmd: click.Command = root
    words = list(argv)
    found: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("...", "…") or _is_placeholder(word):
            i += 1
            continue
        if word.startswith("-") and word != "-":
            name, eq, value = word.partition("=")
            if name in ctx.help_option_names or (cmd is root and name == "--version"):
                i += 1
                continue
            param = _option_index(cmd, ctx).get(name)
            if param is None:
                found.append(f"{ctx.command_path}: no option {name}")
                i += 1
                continue
            if getattr(param, "hidden", False):
                found.append(f"{ctx.command_path}: {name} is a hidden, deprecated option")
            takes_value = not (isinstance(param, click.Option) and (param.is_flag or param.count))
            if takes_value and not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if takes_value and not _is_placeholder(value):
                found += [f"{ctx.command_path} {name}: {why}" for why in value_problems(name, value)]
            if takes_value and isinstance(param.type, click.Choice) and not _is_placeholder(value):
                choices = [str(c) for c in param.type.choices]
                for alternative in value.split("|"):  # ``local|dask``: each one the docs offer
                    if alternative not in choices:
                        found.append(f"{ctx.command_path} {name}: {alternative!r} is not one of {choices}")
            i += 1
            continue
        if isinstance(cmd, click.Group):
            names = word.split("|")  # ``service install|uninstall``: every one must exist
            subs = [cmd.get_command(ctx, name) for name in names]
            missing = [name for name, sub in zip(names, subs, strict=True) if sub is None]
            if missing:
                found += [f"{ctx.command_path}: no command {name!r}" for name in missing]
                return found
            first = subs[0]
            assert first is not None
            if len(subs) > 1:  # options after alternatives must belong to each of them
                rest = tuple(words[i + 1 :])
                for name in names:
                    found += problems((*ctx_path(ctx), name, *rest), root)
                return sorted(set(found))
            cmd = first
            ctx = click.Context(first, parent=ctx, info_name=word)
        i += 1
    return found


def _named_value_problems(value: str, kind: str, known: list[str]) -> list[str]:
    """A board or scenario: a built-in name, or a file (a path or a ``.toml``) left to the reader."""
    found = []
    for piece in re.split(r"[,|]", value):
        if piece and not (
            _is_placeholder(piece) or "/" in piece or piece.endswith(".toml") or piece in known
        ):
            found.append(f"{piece!r} is no built-in {kind}; the built-in ones: {', '.join(known)}")
    return found


def value_problems(name: str, value: str) -> list[str]:
    """Values the CLI checks against a list it names: ``--board`` (built-in profiles),
    ``--scenario`` (the suite), ``--policy`` (registered policies and the variant syntax)."""
    if name == "--board":
        from thermogov.board import builtin_board_names

        return _named_value_problems(value, "board", builtin_board_names())
    if name == "--scenario":
        from thermogov.sim.scenarios import scenario_names

        return _named_value_problems(value, "scenario", scenario_names())
    if name == "--policy":
        from thermogov.interfaces import ThermogovError
        from thermogov.variant import policy_or_variant

        found = []
        for piece in re.split(r",(?![^\[]*\])|\|", value):  # compare's list; a variant's [..] kept
            if not piece or _is_placeholder(re.split(r"[+:[]", piece, maxsplit=1)[0]):
                continue
            try:
                policy_or_variant(piece)
            except ThermogovError as e:
                found.append(str(e))
        return found
    return []


def ctx_path(ctx: click.Context) -> tuple[str, ...]:
    """The subcommand words from the root to ``ctx`` (``("service",)``)."""
    names: list[str] = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return tuple(reversed(names))


def stale(commands: list[DocCommand]) -> list[tuple[DocCommand, list[str]]]:
    return [(c, p) for c in commands if (p := problems(c.argv))]


def main(argv: list[str]) -> int:
    commands = all_commands() if "--all" in argv else current_commands()
    bad = stale(commands)
    for c, found in bad:
        mark = " (history)" if c.history else ""
        print(f"{c.where()}{mark}: {c.text}\n    " + "\n    ".join(found))
    print(f"{len(commands)} command lines, {len(bad)} stale", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
