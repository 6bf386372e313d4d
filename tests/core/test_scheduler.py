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


def _popped(plan: MultiRatePlan, n: int) -> list[tuple[int, tuple[str, ...]]]:
    return [(t, tuple(due)) for t, due in (plan.pop() for _ in range(n))]


def _replayed(plan: MultiRatePlan, n: int) -> list[tuple[int, tuple[str, ...]]]:
    it = plan.instants()
    return [next(it) for _ in range(n)]


def test_replayed_instants_are_the_popped_ones_across_many_hyperperiods() -> None:
    for periods, ctrl, start in (
        ([("cpu", 100), ("gpu", 150), ("battery", 200)], 100, 0),
        ([("cpu", 70), ("gpu", 110)], 250, 1234),
        ([("a", 1)], 3, 5),
    ):
        want = _popped(MultiRatePlan(periods, ctrl, start_ms=start), 5000)
        assert _replayed(MultiRatePlan(periods, ctrl, start_ms=start), 5000) == want


def test_a_pattern_too_long_to_keep_falls_back_to_popping(monkeypatch) -> None:
    import thermogov.scheduler as scheduler

    monkeypatch.setattr(scheduler, "MAX_CYCLE_INSTANTS", 10)
    periods = [("cpu", 97), ("gpu", 101)]
    want = _popped(MultiRatePlan(periods, 89), 3000)
    assert _replayed(MultiRatePlan(periods, 89), 3000) == want
