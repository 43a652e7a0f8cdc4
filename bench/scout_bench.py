"""Scouting, simulated (docs/fair-play.md, "Measured"): how many cheating main accounts reach
the staff's review queue with the scout link as evidence, and how many honest players reach
it at all.

Run from the repository root (a SQLite file of its own, fresh each run; nothing shared)::

    .venv/bin/python -m bench.scout_bench
    .venv/bin/python -m bench.scout_bench --honest 600 --cheaters 100 --seed 7

Everything goes through the services, not HTTP: accounts are created, seen (the sighting a
sign-up, a log-in and a daily's start record: device cookie, client address, client), start
today's daily (``attempt_start_ranked``), post their actions one at a time at the server times a
human would (``attempt_push_actions`` with ``now``), and resign; the reviews are filed by the
app's own listener when each attempt ends, as in production.

The population, on each of two dailies (spider1 and astrocyte):

- honest players: a reference policy (a move that turns a card up or builds a same-suit
  run if there is one, else two to six idle moves, then a deal; 10 % of choices a random
  legal move instead, a mistake), stopping after 40-250 actions or when stuck, at a
  person's pace (``human_gap``: log-normal, median 3 s, a long think before some deals).
  5 % are impatient: they deal whenever no move turns a card up or builds, and give up
  after 8-25 actions.
  Many share an address: 55 % alone, 30 % households of 2-4 (a third of them on one family
  browser: the same device cookie), 15 % offices of 5-20 (one address, various clients).
  10 % signed up today, the rest days to months ago.
- cheaters: one to three spare accounts, then the main account. The first spare deals all
  five stock deals and resigns; the others play 4-10 actions of the reference policy and
  resign (they scout the tableau). Then the main account plays the reference policy, except
  that before each deal it moves cards so that more of the dealt cards, which it knows,
  land on their same-suit successor (the foreknowledge evidence looks for that).
  How they connect: 40 % by browser (spares and main on
  one browser: one device cookie), 40 % by API client (token clients from one address and
  client), 20 % from a phone and a laptop on one home network (one address, two devices).
  The spares are made today; the main account is an old one.
- ``--other-network`` cheaters (reported apart, never in the scout link's target): the spares
  on another network (mobile data) and another device than the main: nothing links them;
  only the main game's own play (the foreknowledge evidence) can give them away.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_DB = Path("/tmp/scout_bench.sqlite3")
DEALS = (("spider1", 2), ("astrocyte", 4))
AGENTS = ("Firefox/140", "Chrome/141 Windows", "Chrome/141 Android", "Safari/18 iPhone")


def setup_django(path: Path) -> None:
    if path.exists():
        path.unlink()
    os.environ["DATABASE_URL"] = f"sqlite:///{path.resolve()}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["LOG_LEVEL"] = "ERROR"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


@dataclass
class Seen:
    """Where an account is seen from."""

    device: str
    address: str
    client: str


class Day:
    """Today's daily of one variant, and the simulated clock of its players."""

    def __init__(self, variant: str, seed: int, rng: random.Random) -> None:
        from django.utils import timezone

        from games.services.deals import deal_create, deal_schedule, deal_verify

        deal = deal_verify(deal_id=deal_create(variant=variant, seed=seed).pk, seconds=30)
        self.challenge = deal_schedule(deal=deal, date=timezone.now().date())
        self.rng = rng
        opened = dt.datetime.combine(self.challenge.date, dt.time(0), tzinfo=dt.UTC)
        self.clock = opened + dt.timedelta(minutes=5)  # the next player's start

    def next_start(self) -> dt.datetime:
        self.clock += dt.timedelta(seconds=self.rng.uniform(5, 40))
        return self.clock


_names = iter(range(10**9))


def account(rng: random.Random, joined_today: bool, day: Day) -> Any:
    from django.contrib.auth import get_user_model

    joined = day.clock - dt.timedelta(
        minutes=rng.uniform(1, 30) if joined_today else rng.uniform(2 * 1440, 200 * 1440)
    )
    return get_user_model().objects.create(
        username=f"p{next(_names)}", password="!", date_joined=joined
    )


def seen(user: Any, where: Seen, at: dt.datetime) -> None:
    from reviews.sightings import sighting_note

    sighting_note(
        user=user, device=where.device, address=where.address, client=where.client, now=at
    )


RANKS = {r: i + 1 for i, r in enumerate("A23456789TJQK")}


def order(board: Any) -> int:
    """Cards face up plus cards lying on their same-suit successor: what a player builds."""
    state = board.state()
    built = 0
    for column, down in zip(state["tableau"], state["face_down"], strict=True):
        up = column[down:]
        built += len(up)
        for lower, upper in zip(up[1:], up, strict=False):
            if lower[1] == upper[1] and RANKS[lower[0]] + 1 == RANKS[upper[0]]:
                built += 1
    return built


def choose(board: Any, rng: random.Random, impatient: bool, idle: int) -> tuple[str | None, bool]:
    """The reference player's next action (None: it gives up). A move that turns a card up
    or builds a same-suit run; else a few idle moves (``idle``: those made since the last
    useful one), then a deal; 10 % of choices a random legal move (a mistake). Also says
    whether the action was a useful one."""
    legal = [a for a in board.legal_actions() if a != "undo"]
    moves = [a for a in legal if a != "deal"]
    if not legal:
        return None, False
    if moves and rng.random() < 0.1:
        return rng.choice(moves), False
    before = order(board)
    useful = []
    for action in moves:
        trial = board.copy(keep_history=False)
        if trial.play(action).revealed or order(trial) > before:
            useful.append(action)
    if useful:
        return rng.choice(useful), True
    if moves and (not impatient) and (idle < rng.randint(2, 6) or "deal" not in legal):
        return rng.choice(moves), False
    return ("deal" if "deal" in legal else None), True


def next_deal(board: Any) -> list[tuple[int, int]]:
    """What the next deal brings, column by column: what a scout's main account knows."""
    trial = board.copy(keep_history=False)
    return list(trial.play("deal").revealed[: board.variant.columns])


def fits(board: Any, dealt: list[tuple[int, int]]) -> int:
    """How many of ``dealt`` would land on their same-suit successor."""
    tops = [column[-1] if column else None for column, _ in board.iter_columns()]
    return sum(1 for column, card in dealt if tops[column] == card + 1)


def choose_knowing(
    board: Any, rng: random.Random, impatient: bool, idle: int
) -> tuple[str | None, bool]:
    """The scout's main account: the reference player, except that before each deal it
    moves cards so that more of the dealt cards (which it knows) land on their successor."""
    action, useful = choose(board, rng, impatient, idle)
    if action != "deal":
        return action, useful
    dealt = next_deal(board)
    now = fits(board, dealt)
    better = []
    for move in board.legal_actions():
        if move in ("deal", "undo"):
            continue
        trial = board.copy(keep_history=False)
        trial.play(move)
        if "deal" in trial.legal_actions() and fits(trial, dealt) > now:
            better.append(move)
    return (rng.choice(better), False) if better else ("deal", True)


def reference_game(
    board: Any,
    rng: random.Random,
    most: int,
    knows_stock: bool = False,
    gives_up_after: int | None = None,
) -> list[str]:
    """The reference player's actions on ``board`` (played on it): until it gives up, wins or
    has made ``most``; with ``gives_up_after``, also once that many idle moves in a row are
    all it has left to do with the stock dealt out (a person stops there)."""
    policy = choose_knowing if knows_stock else choose
    log: list[str] = []
    idle = 0
    while len(log) < most and not board.is_won:
        action, useful = policy(board, rng, False, idle)
        if action is None:
            break
        board.play(action)
        log.append(action)
        idle = 0 if useful else idle + 1
        if gives_up_after and idle >= gives_up_after and "deal" not in board.legal_actions():
            break
    return log


def human_gap(rng: random.Random, action: str) -> float:
    """Seconds before an action, as people take them: log-normal (median 3 s, most from
    1 to 9 s), and now and then a long think before a deal."""
    gap = rng.lognormvariate(math.log(3.0), 0.6)
    if action == "deal" and rng.random() < 1 / 3:
        gap += rng.uniform(8, 30)
    return max(0.4, gap)


def play(
    user: Any,
    day: Day,
    where: Seen,
    rng: random.Random,
    *,
    scripted: list[str] | None = None,
    impatient: bool = False,
    limit: int | None = None,
    knows_stock: bool = False,
) -> Any:
    """One ranked game at human pace through the services; the ended attempt."""
    from games import engine
    from games.models import Attempt
    from games.services.attempts import (
        PlayCursor,
        attempt_push_actions,
        attempt_resign,
        attempt_start_ranked,
    )

    now = day.next_start()
    seen(user, where, now)
    attempt, _ = attempt_start_ranked(player=user, challenge_id=day.challenge.pk, now=now)
    board = engine.Board.deal(day.challenge.variant, day.challenge.deal.seed_int)
    cursor = PlayCursor()
    if limit is None:
        limit = rng.randint(8, 25) if impatient else rng.randint(40, 250)
    actions: list[str] = []
    idle = 0
    while len(actions) < limit and not board.is_won:
        if scripted is not None:
            if len(actions) >= len(scripted):
                break
            action: str | None = scripted[len(actions)]
            useful = True
        else:
            policy = choose_knowing if knows_stock else choose
            action, useful = policy(board, rng, impatient, idle)
        if action is None:
            break
        now += dt.timedelta(seconds=human_gap(rng, action))
        board.play(action)
        idle = 0 if useful else idle + 1
        attempt_push_actions(
            attempt_id=attempt.pk,
            player=user,
            offset=len(actions),
            actions=[action],
            now=now,
            cursor=cursor,
        )
        actions.append(action)
    attempt = Attempt.objects.get(pk=attempt.pk)
    if not attempt.is_over:
        attempt = attempt_resign(
            attempt_id=attempt.pk, player=user, now=now + dt.timedelta(seconds=3)
        )
    return attempt


def honest_population(day: Day, rng: random.Random, count: int) -> list[int]:
    """Honest players' attempt ids."""
    groups: list[list[Seen]] = []
    made = 0
    while made < count:
        draw = rng.random()
        address = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        if draw < 0.55:
            size, family_browser = 1, False
        elif draw < 0.85:
            size, family_browser = rng.randint(2, 4), rng.random() < 1 / 3
        else:
            size, family_browser = rng.randint(5, 20), False
        size = min(size, count - made)
        shared_device = f"dev-{rng.getrandbits(64):x}"
        groups.append(
            [
                Seen(
                    shared_device if family_browser else f"dev-{rng.getrandbits(64):x}",
                    address,
                    rng.choice(AGENTS),
                )
                for _ in range(size)
            ]
        )
        made += size
    players = [(where, account(rng, rng.random() < 0.1, day)) for g in groups for where in g]
    rng.shuffle(players)
    return [
        play(user, day, where, rng, impatient=rng.random() < 0.05).pk for where, user in players
    ]


def cheater(day: Day, rng: random.Random, other_network: bool = False) -> int:
    """One cheater's main attempt id, after its spares scouted."""
    address = f"172.16.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    agent = rng.choice(AGENTS)
    draw = rng.random()
    main_device = f"dev-{rng.getrandbits(64):x}"
    if other_network:
        mobile = f"100.64.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        spare_where = Seen(f"dev-{rng.getrandbits(64):x}", mobile, "Chrome/141 Android")
    elif draw < 0.4:  # one browser
        spare_where = Seen(main_device, address, agent)
    elif draw < 0.8:  # API clients: no cookie, one address and client
        main_device = ""
        spare_where = Seen("", address, "astro-cli/1.0")
        agent = "astro-cli/1.0"
    else:  # phone and laptop at home
        spare_where = Seen(f"dev-{rng.getrandbits(64):x}", address, "Safari/18 iPhone")
    for number in range(rng.randint(1, 3)):
        spare = account(rng, True, day)
        seen(spare, spare_where, day.clock)
        if number == 0:
            play(spare, day, spare_where, rng, scripted=["deal"] * 5)
        else:
            play(spare, day, spare_where, rng, limit=rng.randint(4, 10), scripted=None)
    main = account(rng, False, day)
    return int(play(main, day, Seen(main_device, address, agent), rng, knows_stock=True).pk)


def reached(attempt_ids: list[int], with_evidence: str | None = None) -> int:
    """How many of these attempts are in the queue (with that kind of evidence, if given)."""
    from reviews.models import Review

    reviews = Review.objects.filter(attempt_id__in=attempt_ids)
    if with_evidence is None:
        return reviews.count()
    return sum(1 for r in reviews if any(item["kind"] == with_evidence for item in r.evidence))


@dataclass
class Population:
    """The simulated day's attempt ids, by who played them."""

    honest: list[int]
    cheats: list[int]
    unlinked: list[int]


def simulate(
    rng: random.Random,
    honest_count: int,
    cheater_count: int,
    other_network: int,
    deals: tuple[tuple[str, int], ...] = DEALS,
) -> Population:
    """Play each daily of ``deals`` with the population, interleaved as a day is."""
    found = Population([], [], [])
    for variant, seed in deals:
        day = Day(variant, seed, rng)
        kinds = ["h"] * honest_count + ["c"] * cheater_count + ["o"] * other_network
        rng.shuffle(kinds)
        for start in range(0, len(kinds), 20):
            run = kinds[start : start + 20]
            found.honest += honest_population(day, rng, run.count("h")) if "h" in run else []
            found.cheats += [cheater(day, rng) for kind in run if kind == "c"]
            found.unlinked += [cheater(day, rng, True) for kind in run if kind == "o"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--honest", type=int, default=400, help="honest players a daily")
    parser.add_argument("--cheaters", type=int, default=60, help="cheaters a daily")
    parser.add_argument("--other-network", type=int, default=10, help="unlinkable cheaters a daily")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show-honest", action="store_true", help="print honest reviews")
    parser.add_argument("--database", type=Path, default=DEFAULT_DB, help="SQLite file (replaced)")
    args = parser.parse_args()
    setup_django(args.database)
    started = time.monotonic()
    found = simulate(random.Random(args.seed), args.honest, args.cheaters, args.other_network)
    honest, cheats, unlinked = found.honest, found.cheats, found.unlinked
    caught = reached(cheats, "scout_link")
    false = reached(honest)
    print(f"dailies: {', '.join(f'{v} (seed {s})' for v, s in DEALS)}; seed {args.seed}")
    print(
        f"cheating main accounts in the queue with the scout link: {caught}/{len(cheats)} "
        f"({caught / max(1, len(cheats)):.1%})"
    )
    knew = reached(cheats + unlinked, "foreknowledge")
    print(
        f"cheating main accounts with the foreknowledge evidence (linked or not): "
        f"{knew}/{len(cheats) + len(unlinked)} ({knew / max(1, len(cheats) + len(unlinked)):.1%})"
    )
    print(
        f"honest players in the queue at all: {false}/{len(honest)} "
        f"({false / max(1, len(honest)):.1%}); with the foreknowledge evidence: "
        f"{reached(honest, 'foreknowledge')}"
    )
    from games.models import Attempt
    from reviews.scouting import scout_shape

    shaped = sum(1 for a in Attempt.objects.filter(pk__in=honest) if scout_shape(a))
    print(f"honest attempts with the scout's shape (linked or not): {shaped}/{len(honest)}")
    print(
        f"cheaters whose spares were on another network and device: "
        f"{reached(unlinked)}/{len(unlinked)} in the queue "
        f"({reached(unlinked, 'scout_link')} with the scout link)"
    )
    if args.show_honest:
        from reviews.models import Review

        for review in Review.objects.filter(attempt_id__in=honest):
            print("honest in the queue:", review.attempt_id, review.evidence)
    print(f"{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
