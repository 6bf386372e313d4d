"""Policy variants (``stepped+release_frontier=true``): the one parser ``ab`` and ``compare`` share."""

from __future__ import annotations

import pytest

from thermogov.board import load_board
from thermogov.config import Config, parse_config
from thermogov.interfaces import ConfigError
from thermogov.sim.model.runner import build_policy, policy_context
from thermogov.variant import (
    Variant,
    check_distinct,
    check_same_policy,
    check_variant,
    effective_params,
    parse_variant,
    policy_or_variant,
)


def _build(cfg: Config) -> object:
    return build_policy(cfg, load_board("jetson-orin-nano"))


def test_a_variant_is_the_policy_with_its_table_merged_and_a_plain_name_is_unchanged() -> None:
    base = parse_config({"policies": {"stepped": {"limit_margin_c": 0.5}}})
    v = parse_variant("stepped + release_frontier =true+ margin_c=1e+1")  # keys padded, values one word (31h)
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
        ("stepped+trip_c=[1,nan]", "not a finite number"),
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


_CTX = policy_context(Config(), load_board("jetson-orin-nano"))


def _same(a: str, b: str, base: Config | None = None) -> bool:
    cfg = base or Config()
    return effective_params(parse_variant(a), cfg, _CTX) == effective_params(parse_variant(b), cfg, _CTX)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("stepped", "stepped+release_frontier=false"),  # a key at its default is the plain arm
        ("stepped", "stepped+limit_margin_c=1.5+follow_board=true"),
        ("stepped+margin_c=2", "stepped+margin_c=2.0"),  # a number is read as a float
        ("hysteresis", "hysteresis+trip_c=85+release_c=70"),
        ("bang_bang", "bang_bang+on_state=1"),
    ],
)
def test_arms_whose_policies_read_the_same_values_are_the_same_arm(a: str, b: str) -> None:
    assert _same(a, b)
    with pytest.raises(ConfigError, match=r"^--policy: '.*' and '.*' run the same policy .* once defaults"):
        check_same_policy([parse_variant(a), parse_variant(b)], Config(), _CTX)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("stepped", "stepped+release_frontier=true"),
        ("stepped", "stepped+limit_margin_c=0.5"),
        ("hysteresis", "stepped"),
        ("fixed:50%", "fixed:60%"),
        # power_allocator branches on whether a key is present: a given default stays distinct
        ("power_allocator", "power_allocator+integral_cutoff_c=0"),
    ],
)
def test_arms_that_read_different_values_stay_distinct(a: str, b: str) -> None:
    assert not _same(a, b)
    check_same_policy([parse_variant(a), parse_variant(b)], Config(), _CTX)


def test_the_configs_table_is_part_of_what_an_arm_reads() -> None:
    base = Config(policies={"stepped": {"release_frontier": True}})
    assert _same("stepped", "stepped+release_frontier=true", base)
    assert not _same("stepped", "stepped+release_frontier=false", base)


def test_sim_and_run_read_a_plain_name_exactly_as_before() -> None:
    assert policy_or_variant("fixed:1e+3") == Variant("fixed:1e+3")  # an argument's '+' is no variant
    # a padded name is read as the name (session 32h: " hysteresis" ran under that name and made a
    # run folder with a space in it)
    assert policy_or_variant(" stepped") == Variant("stepped")
    assert policy_or_variant("stepped+release_frontier=true").overrides == (("release_frontier", True),)
    with pytest.raises(ConfigError, match=r"cannot read '\+release_frontier'"):
        policy_or_variant("stepped+release_frontier")
    with pytest.raises(ConfigError, match=r"^--policy: unknown policy 'turbo'"):
        policy_or_variant("turbo")
