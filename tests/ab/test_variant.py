"""Policy variants (``stepped+release_frontier=true``): the one parser ``ab`` and ``compare`` share."""

from __future__ import annotations

import pytest

from thermogov.board import load_board
from thermogov.config import Config, parse_config
from thermogov.interfaces import ConfigError
from thermogov.sim.model.runner import build_policy
from thermogov.variant import Variant, check_distinct, check_variant, parse_variant


def _build(cfg: Config) -> object:
    return build_policy(cfg, load_board("jetson-orin-nano"))


def test_a_variant_is_the_policy_with_its_table_merged_and_a_plain_name_is_unchanged() -> None:
    base = parse_config({"policies": {"stepped": {"limit_margin_c": 0.5}}})
    v = parse_variant("stepped + release_frontier = true + margin_c=1e+1")
    assert v == Variant("stepped", (("release_frontier", True), ("margin_c", 10.0)))
    assert v.label == "stepped+release_frontier=true+margin_c=10.0"
    assert parse_variant(v.label) == v  # the label reads back as the same arm
    cfg = v.apply(base)
    assert cfg.policy == "stepped"
    assert cfg.policies["stepped"] == {"limit_margin_c": 0.5, "release_frontier": True, "margin_c": 10.0}
    assert base.policies["stepped"] == {"limit_margin_c": 0.5}  # the base is not edited
    plain = parse_variant("fixed:50%")
    assert plain.apply(base) == Config(policy="fixed:50%", policies=base.policies)
    on, off = _build(cfg), _build(base)
    assert on.p.release_frontier is True and off.p.release_frontier is False  # type: ignore[attr-defined]
    assert on.ladder[-1] != off.ladder[-1]  # type: ignore[attr-defined]  # the release rung moved


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("stepped+release_frontier", "cannot read '+release_frontier' as +key=value"),
        ("stepped+release_frontier=", "release_frontier= has no value"),
        ("stepped+trip_c=80+trip_c=81", "trip_c is given twice"),
        ("stepped+trip_c=nan", "not a finite number"),
        ("stepped+trip_c=-inf", "not a finite number"),
        ("stepped+trip_c=[1, nan]", "not a finite number"),
        ("turbo+trip_c=80", "unknown policy 'turbo'"),
    ],
)
def test_bad_text_is_one_config_error_naming_the_arm(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=r"^--policy") as e:
        parse_variant(text)
    assert needle in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "stepped+release_frontier=maybe",
            "'stepped+release_frontier=maybe': release_frontier: expected true",
        ),
        ("stepped+relase_frontier=true", "'stepped+relase_frontier=true': relase_frontier: unknown key"),
        ("stepped+trip_c=true", "trip_c: expected a number"),
        ("stepped+trip_c=400", "trip_c: 400 is out of range"),
        ("fixed:50%+trip_c=80", "'fixed:50%+trip_c=80': trip_c: unknown key"),
        ("stepped+trip_c=60", "'stepped+trip_c=60': policies.stepped.release_c: 70 must be below trip_c 60"),
    ],
)
def test_overrides_meet_the_config_tables_checks_and_the_error_names_arm_and_key(
    text: str, needle: str
) -> None:
    with pytest.raises(ConfigError) as e:
        check_variant(parse_variant(text), Config(), _build)
    assert str(e.value).startswith("--policy '") and needle in str(e.value)


def test_an_error_in_the_files_own_table_still_names_the_file() -> None:
    base = Config(policies={"stepped": {"trip_c": "hot"}}, source="my.toml")
    with pytest.raises(ConfigError, match=r"^my\.toml: policies\.stepped\.trip_c"):
        check_variant(parse_variant("stepped"), base, _build)
    # with overrides, the arm is named too (the merged table broke), and the file still is
    with pytest.raises(ConfigError, match=r"^--policy 'stepped\+release_frontier=true': my\.toml: policies"):
        check_variant(parse_variant("stepped+release_frontier=true"), base, _build)


def test_two_arms_with_the_same_parameters_are_refused() -> None:
    a, b = parse_variant("stepped+release_frontier=true"), parse_variant("stepped")
    check_distinct([a, b], Config())
    with pytest.raises(ConfigError, match="run the same policy with the same parameters"):
        check_distinct([a, b], Config(policies={"stepped": {"release_frontier": True}}))
    with pytest.raises(ConfigError, match="same parameters"):
        check_distinct([a, parse_variant(" stepped + release_frontier=true")], Config())
