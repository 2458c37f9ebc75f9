import pytest
from lore_runtime.breaker import Breaker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_failure_opens_it_for_the_cooldown_then_the_store_is_asked_again() -> None:
    clock = Clock()
    breaker = Breaker(cooldown=1.0, clock=clock)
    assert not breaker.open
    assert breaker.failed() is True  # it opened: worth one log line
    clock.now += 0.9
    assert breaker.open
    assert breaker.failed() is False  # already open: not logged again
    clock.now += 0.5
    assert breaker.open  # the second failure restarted the cooldown
    clock.now += 0.6
    assert not breaker.open


def test_a_success_closes_it_at_once() -> None:
    breaker = Breaker(cooldown=60.0, clock=Clock())
    breaker.failed()
    breaker.succeeded()
    assert not breaker.open


def test_a_negative_cooldown_is_refused() -> None:
    with pytest.raises(ValueError, match="cooldown"):
        Breaker(cooldown=-1.0)
