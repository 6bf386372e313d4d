from thermogov.scheduler import CONTROL, MultiRatePlan


def test_multirate_times_are_exact_over_a_simulated_hour() -> None:
    plan = MultiRatePlan([("cpu", 100), ("gpu", 150), ("battery", 200)], 100)
    seen: dict[str, list[int]] = {"cpu": [], "gpu": [], "battery": [], CONTROL: []}
    while plan.peek_ms() <= 3_600_000:
        t, due = plan.pop()
        for name in due:
            seen[name].append(t)
    assert seen["cpu"] == list(range(0, 3_600_001, 100))
    assert seen["gpu"] == list(range(0, 3_600_001, 150))
    assert seen["battery"] == list(range(0, 3_600_001, 200))
    assert seen[CONTROL] == list(range(0, 3_600_001, 100))


def test_sensors_come_before_the_control_tick_at_the_same_instant() -> None:
    plan = MultiRatePlan([("cpu", 100), ("gpu", 150), ("battery", 200)], 100)
    instants = [plan.pop() for _ in range(8)]
    assert instants[0] == (0, ["cpu", "gpu", "battery", CONTROL])
    assert instants[1] == (100, ["cpu", CONTROL])
    assert instants[2] == (150, ["gpu"])
    assert instants[3] == (200, ["cpu", "battery", CONTROL])
    assert instants[4] == (300, ["cpu", "gpu", CONTROL])
    assert instants[5] == (400, ["cpu", "battery", CONTROL])
    assert instants[6] == (450, ["gpu"])


def test_start_in_the_middle_rounds_up_to_each_grid() -> None:
    plan = MultiRatePlan([("gpu", 150)], 100, start_ms=1010)
    assert plan.pop() == (1050, ["gpu"])
    assert plan.pop() == (1100, [CONTROL])
