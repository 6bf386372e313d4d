import pytest

from thermogov import tomlread
from thermogov.board import load_board, parse_board
from thermogov.config import Config, load_config, parse_config
from thermogov.interfaces import ConfigError
from thermogov.tomlwrite import dumps
from thermogov.units import parse_duration_s


@pytest.mark.parametrize(
    ("text", "seconds"), [("600", 600), ("600s", 600), ("10m", 600), ("1h", 3600), (90, 90)]
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration_s(text) == seconds


@pytest.mark.parametrize("text", ["-5", "0", "ten", "5 parsecs", "-1m"])
def test_bad_durations_name_the_field(text: str) -> None:
    with pytest.raises(ConfigError, match=r"^--duration: "):
        parse_duration_s(text, "--duration")


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"run": {"bord": "rpi5"}}, r"run\.bord: unknown key; did you mean 'board'"),
        ({"run": {"policy": "nope"}}, "unknown policy"),
        ({"sensors": {"cpu": {"weight": 0}}}, r"sensors\.cpu\.weight: 0 is out of range"),
        ({"sensors": {"cpu": {"weight": -1}}}, r"sensors\.cpu\.weight"),
        ({"governor": {"control_period_ms": 0}}, "control_period_ms"),
        ({"sim": {"duration_s": "-3m"}}, r"sim\.duration_s"),
        ({"sim": {"workload": {"kind": "firehose"}}}, "not one of"),
        ({"sim": {"events": [{"at_s": 1, "kind": "sensor_spike"}]}}, "needs a target"),
        ({"extra": 1}, "extra: unknown key"),
    ],
)
def test_config_errors_are_one_line_naming_the_field(data: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment) as e:
        parse_config(data)
    assert "\n" not in str(e.value)


def test_sensor_override_of_unknown_sensor_is_rejected() -> None:
    cfg = parse_config({"sensors": {"npu": {"weight": 1.0}}})
    with pytest.raises(ConfigError, match=r"sensors\.npu: board jetson-orin-nano has no such sensor"):
        cfg.sensor_specs(load_board("jetson-orin-nano"))


def test_overrides_and_disabling_reach_the_sensor_specs() -> None:
    cfg = parse_config({"sensors": {"gpu": {"weight": 0.5, "period_ms": 250}, "battery": {"enabled": False}}})
    specs = {s.name: s for s in cfg.sensor_specs(load_board("jetson-orin-nano"))}
    assert set(specs) == {"cpu", "gpu"}
    assert (specs["gpu"].weight, specs["gpu"].period_ms) == (0.5, 250)
    assert specs["cpu"].weight == 0.6


def test_resolved_config_round_trips_through_toml() -> None:
    cfg = parse_config(
        {
            "run": {"seed": 7, "policy": "fixed:1200"},
            "sim": {"ambient_c": 31.5, "events": [{"at_s": 5, "kind": "ambient", "value": 40}]},
            "policies": {"hysteresis": {"trip_c": 80.0}},
        }
    )
    board = load_board("jetson-orin-nano")
    text = dumps(cfg.resolved(board).to_dict())
    again = parse_config(tomlread.loads(text))
    assert again == cfg.resolved(board)
    assert again.sensor_specs(board) == cfg.sensor_specs(board)


def test_malformed_toml_names_the_file(tmp_path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text("[run\nboard = 1\n")
    with pytest.raises(ConfigError, match=r"bad\.toml: malformed TOML"):
        load_config(p)


def test_default_config_is_the_default_board() -> None:
    assert Config().board == "jetson-orin-nano"


def test_board_profile_validation_names_the_key() -> None:
    raw = tomlread.loads(
        (__import__("importlib").resources.files("thermogov.boards") / "rpi5.toml").read_text()
    )
    raw["domains"]["cpu"]["opp_mhz"] = [1500, 1400]
    raw["domains"]["cpu"]["volt_v"] = [0.7, 0.8]
    with pytest.raises(ConfigError, match="opp_mhz: must be strictly ascending"):
        parse_board(raw, "rpi5.toml")
    raw = tomlread.loads(
        (__import__("importlib").resources.files("thermogov.boards") / "rpi5.toml").read_text()
    )
    raw["sensors"]["cpu"]["node"] = "nowhere"
    with pytest.raises(ConfigError, match="is not a thermal node"):
        parse_board(raw, "rpi5.toml")


def test_voltage_of_an_opp_the_profile_does_not_list_is_interpolated() -> None:
    cpu = load_board("jetson-orin-nano").domain("cpu")
    v_lo, v_hi = cpu.volt_at(1_497_600_000), cpu.volt_at(1_574_400_000)
    v = cpu.volt_at(1_510_400_000)  # a real Orin OPP missing from the profile
    assert v_lo < v < v_hi
    assert cpu.volt_at(100_000_000) == cpu.volt_v[0] and cpu.volt_at(9_000_000_000) == cpu.volt_v[-1]
