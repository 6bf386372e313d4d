"""Session 31h: a policy variant's value is one word, whatever it is meant as.

30l put a variant's *number* under the numeric options' one-word rule (29i): ``trip_c=85 `` is
refused, ``trip_c=٨٥`` is 85, ``trip_c=0x55`` is no decimal number.  A string and an array were
still read as TOML after a strip: ``board_throttle= avoid`` was ``avoid``, ``levels=[1, 2]`` a
list, ``[85,0x55]`` was ``[85, 85]`` and ``[٨٥]`` refused.  Now every value is one word outside
quotes (a string's own spaces go inside quotes, where TOML keeps them), and each number in an
array or inline table is read as a lone number is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.interfaces import ConfigError
from thermogov.tomlread import loads
from thermogov.variant import parse_variant

READ = {
    "a quoted string keeps its spaces": ('stepped+mode=" fast "', " fast "),
    "a bare word": ("stepped+mode=fast", "fast"),
    "an array of one word": ("stepped+levels=[1,2]", [1, 2]),
    "an array in other digits": ("stepped+levels=[٨٥,٩٠]", [85, 90]),
    "an array with a trailing comma": ("stepped+levels=[1,2,]", [1, 2]),
    "an inline table in other digits": (
        "step_wise+trips=[{temp_c=٨٥,hyst_c=2}]",
        [{"temp_c": 85, "hyst_c": 2}],
    ),
    "a boolean": ("stepped+release_frontier=true", True),
}


@pytest.mark.parametrize("text,value", READ.values(), ids=list(READ))
def test_a_one_word_value_is_read(text: str, value: Any) -> None:
    ((_, got),) = parse_variant(text).overrides
    assert got == value and type(got) is type(value)


REFUSED = {
    "a padded word": ("stepped+mode= fast ", "holds a space or a control character outside quotes"),
    "a word and a newline": ("stepped+mode=fast\n", "holds a space or a control character outside quotes"),
    "a padded boolean": ("stepped+release_frontier= true", "holds a space or a control character"),
    "a space in an array": ("stepped+levels=[1, 2]", "e.g. levels=[1,2]"),
    "a tab in an inline table": ("step_wise+trips=[{temp_c=85,\thyst_c=2}]", "holds a space or a control"),
    "hex in an array": ("stepped+levels=[85,0x55]", "holds 0x55, which is not a decimal number"),
    "octal in an inline table": ("step_wise+trips=[{temp_c=0o125,hyst_c=2}]", "holds 0o125, which is not"),
}


@pytest.mark.parametrize("text,needle", REFUSED.values(), ids=list(REFUSED))
def test_a_value_that_is_not_one_word_is_refused(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=r"^--policy: ") as e:
        parse_variant(text)
    assert needle in str(e.value) and "\n" not in str(e.value).rstrip()


@pytest.mark.parametrize(
    "policy,needle",
    [
        ("stepped+board_throttle= avoid", "board_throttle=' avoid' holds a space or a control character"),
        ("step_wise+trips=[{temp_c=85,hyst_c=0x2}]", "holds 0x2, which is not a decimal number"),
    ],
    ids=["padded string", "hex in an array"],
)
def test_sim_refuses_the_value_with_one_line_and_no_run_folder(
    tmp_path: Path, policy: str, needle: str
) -> None:
    out = tmp_path / "out"
    p = thermogov("sim", "--board", "rpi5", "--duration", "5", "--policy", policy, "--out", str(out))
    one_line_error(p, needle)
    assert not out.exists()


def test_sim_runs_an_array_written_in_other_digits_and_records_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = thermogov(
        "sim", "--board", "rpi5", "--duration", "5", "--policy", "step_wise+trips=[{temp_c=٨٥,hyst_c=2}]",
        "--out", str(out),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    (conf,) = out.glob("*/config.toml")
    assert loads(conf.read_text())["policies"]["step_wise"]["trips"] == [{"temp_c": 85, "hyst_c": 2}]
