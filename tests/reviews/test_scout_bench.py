"""bench/scout_bench.py's simulation, small: through the services and the app's own listener,
every cheating main account reaches the queue with the scout link, no honest player does,
and spares on another network and device go unseen (what docs/fair-play.md says)."""

from __future__ import annotations

import random

import pytest

from bench.scout_bench import reached, simulate

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_small_day_of_honest_players_and_cheaters() -> None:
    found = simulate(random.Random(3), 16, 4, 2, deals=(("spider1", 2),))
    assert len(found.cheats) == 4 and len(found.honest) == 16
    assert reached(found.cheats, "scout_link") == 4
    assert reached(found.honest) == 0
    assert reached(found.unlinked, "scout_link") == 0
