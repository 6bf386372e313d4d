"""The command lines the README, docs/*.md and every --help example show parse against today's CLI.

A renamed option, subcommand, board, scenario or policy leaves a line a user copies and gets
"No such option" from; these tests fail instead, naming the file and line.  Nothing is run:
each line is parsed against the click command tree (``tests/cli/doccommands.py``).  Sections
whose heading names a session are history and are skipped (they say what was true then).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest

from tests.cli import doccommands as dc
from tests.cliutil import run_cli
from thermogov.cli import LAZY_COMMANDS, cli


def _report(bad: list[tuple[dc.DocCommand, list[str]]]) -> str:
    return "\n".join(f"{c.where()}: {c.text}: {'; '.join(found)}" for c, found in bad)


@pytest.mark.parametrize("path", dc.DOCS, ids=lambda p: p.name)
def test_current_doc_commands_parse(path: Path) -> None:
    bad = dc.stale(dc.current_commands([path]))
    assert not bad, "stale command lines (fix the doc, or the CLI if it regressed):\n" + _report(bad)


def test_shipped_example_commands_parse() -> None:
    """The example sweep and config and the unit template show commands in their comments and
    lines (``thermogov doctor --config ...``, ``ExecStart=... thermogov run --config ...``)."""
    bad = dc.stale(dc.shipped_commands())
    assert not bad, _report(bad)


def _help_texts() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def walk(cmd: click.Command, ctx: click.Context) -> None:
        found.append((ctx.command_path, cmd.get_help(ctx)))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None, name
                walk(sub, click.Context(sub, parent=ctx, info_name=name))

    walk(cli, click.Context(cli, info_name="thermogov"))
    return found


def test_help_examples_parse() -> None:
    """Every ``thermogov ...`` line in a command's --help (its Example: block) parses too."""
    examples = [
        (where, argv)
        for where, text in _help_texts()
        for line in text.splitlines()
        for argv in dc._commands_in(line)
    ]
    assert {argv[0] for _w, argv in examples} >= {*LAZY_COMMANDS, "boards"}
    bad = [(where, argv, p) for where, argv in examples if (p := dc.problems(argv))]
    assert not bad, bad


def test_every_command_shown_in_code_is_read() -> None:
    """The extractor misses nothing the docs show: each code span or code line that starts
    with ``thermogov CMD`` is among what was checked (else a stale line could hide from the
    parse tests above).  A message that names a command inside its text is not a command."""
    cmds = "|".join(sorted({*LAZY_COMMANDS, *cli.commands}))
    command = re.compile(rf"\s*(?:\$ )?(?:sudo (?:-E )?)?thermogov (?:{cmds})(?![\w:-])")
    checked = {(c.path, c.line) for c in dc.all_commands()}
    missed = []
    for path in dc.DOCS:
        text = path.read_text(encoding="utf-8")
        shown = [n for n, line in enumerate(text.splitlines(), 1) if command.match(line)]
        # Code spans over the whole text, fenced blocks blanked: a span may wrap a line.
        prose = re.sub(r"^```.*?^```", lambda m: "\n" * m.group().count("\n"), text, flags=re.M | re.S)
        for span in dc._INLINE.finditer(prose):
            if command.match(span.group(2)):
                shown.append(prose.count("\n", 0, span.start()) + 1)
        missed += [f"{path.name}:{n}" for n in shown if (path, n) not in checked]
    assert not missed, missed


def _doc(tmp_path: Path, text: str) -> list[dc.DocCommand]:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    return dc.all_commands([path])


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("thermogov sim --boardd rpi5", "no option --boardd"),
        ("thermogov simulate --board rpi5", "no command 'simulate'"),
        ("thermogov sweep S.toml --executor ray", "'ray' is not one of"),
        ("thermogov sweep S.toml --executor local|ray", "'ray' is not one of"),
        ("thermogov sim --board-file x.toml", "hidden, deprecated"),
        ("thermogov sim --board rpi9", "'rpi9' is no built-in board"),
        ("thermogov compare --scenario orin-steady-99 --policy stepped", "no built-in scenario"),
        ("thermogov compare --policy stepped,nosuch+x=1", "unknown policy"),
        ("thermogov service install|uninstall --venv DIR", "service uninstall: no option --venv"),
        ("sudo -E X=1 .venv/bin/thermogov run --dry-run --nosuch", "no option --nosuch"),
        ("thermogov boards | head -1 && thermogov plot R --lable x", "no option --lable"),
    ],
)
def test_the_checker_finds_a_stale_line(tmp_path: Path, line: str, needle: str) -> None:
    """Fenced, indented and inline: each shape of a stale line is reported (the parse tests
    above would pass vacuously if the checker could not fail)."""
    for text in (f"```sh\n{line}\n```\n", f"Text:\n\n    {line}\n", f"Run `{line}` to see.\n"):
        (command,) = [c for c in _doc(tmp_path, text) if dc.problems(c.argv)]
        assert any(needle in p for p in dc.problems(command.argv)), (text, dc.problems(command.argv))


def test_history_and_prose_are_told_apart(tmp_path: Path) -> None:
    text = (
        "# Guide\n\nRun `thermogov sim --old-flag`.\n\n"
        "## Session 12a: what changed\n\n`thermogov sim --older-flag` was the way.\n\n"
        "### Its details\n\n```\nthermogov run --gone\n```\n\n"
        "## Limits\n\n`thermogov stops governing it` is a message; `thermogov plot R\n--x`.\n"
    )
    commands = _doc(tmp_path, text)
    assert [(c.line, c.history) for c in commands] == [(3, False), (7, True), (12, True), (17, False)]
    assert [" ".join(c.argv) for c in dc.current_commands([tmp_path / "doc.md"])] == [
        "sim --old-flag",
        "plot R --x",
    ]


def _sim_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run_cli(["sim", "--out", str(tmp_path), "--json", *args], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert isinstance(summary, dict)
    return summary


def test_readme_default_run_says_what_thermogov_sim_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """README's "What `thermogov sim` does" quotes the default run and the hysteresis one: the
    figures are read from the README and compared with today's run at the README's precision
    (session 33d: it said 227 / 227.4 inf/s after the default policy's change gave 227.8)."""
    text = (dc.ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## What `thermogov sim` does", 1)[1].split("\n## ", 1)[0]
    printed = re.search(r"sustained throughput\s+(\S+) inf/s", section)
    fused = re.search(r"max fused temperature\s+(\S+) °C", section)
    hyst = re.search(r"\((\d+) inf/s sustained\)", section)
    held = re.search(r"holds just under the trip \((\S+) inf/s, \+(\d+) %\)", section)
    assert printed and fused and hyst and held, "README's default-run figures moved: update this test"
    stepped = _sim_summary(tmp_path / "stepped", capsys)
    hysteresis = _sim_summary(tmp_path / "hysteresis", capsys, "--policy", "hysteresis")
    ips, hyst_ips = float(stepped["sustained_throughput_ips"]), float(hysteresis["sustained_throughput_ips"])
    assert stepped["policy"] == "stepped" and stepped["time_above_trip_s"] == 0
    assert printed.group(1) == f"{ips:.3g}"  # the table's three significant digits
    assert fused.group(1) == f"{float(stepped['max_fused_c']):.3g}"
    assert held.group(1) == f"{ips:.1f}"
    assert hyst.group(1) == f"{hyst_ips:.3g}"
    assert held.group(2) == f"{(ips / hyst_ips - 1) * 100:.0f}"
