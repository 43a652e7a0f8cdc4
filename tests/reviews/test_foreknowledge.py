"""A game played as if it knew the stock: its deals' fits against the exact chances of a
player who did not know the cards; one game, or a player's recent games together, that fit
too well reach the staff's queue; honest play does not, and only staff see why."""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections import Counter
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.engine import Board
from games.engine.cards import TEXT_TO_CODE
from games.models import Attempt, DailyChallenge
from reviews.foreknowledge import FOREKNOWLEDGE_P, chance_of_at_least, deal_fits
from reviews.models import GameFits, Review
from tests.factories import make_challenge, make_player, verified_deal

VARIANTS = ("spider1", "spider2", "spider4", "astrocyte")


def test_the_chance_of_at_least_k_fits_is_the_exact_tail() -> None:
    rng = random.Random(5)
    for _ in range(40):
        chances = [rng.random() for _ in range(rng.randint(0, 7))]
        count = rng.randint(0, len(chances) + 1)
        brute = 0.0
        for outcome in itertools.product((0, 1), repeat=len(chances)):
            if sum(outcome) >= count:
                weight = 1.0
                for hit, p in zip(outcome, chances, strict=True):
                    weight *= p if hit else 1 - p
                brute += weight
        assert chance_of_at_least(chances, count) == pytest.approx(brute, abs=1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_first_deals_chances_come_from_what_the_player_has_seen(variant: str) -> None:
    # Each chance is (the unseen copies of the card that fits the top) / (the unseen
    # cards), counted here from the player's own view: no face-down card is needed.
    start = Board.deal(variant, 11)
    view = start.view()
    seen = Counter(TEXT_TO_CODE[card] for column in view["tableau"] for card in column if card)
    deck: Counter[int] = Counter()
    for column in start.state()["tableau"]:
        deck.update(TEXT_TO_CODE[card] for card in column)
    deck.update(TEXT_TO_CODE[card] for card in start.state()["stock"])
    unseen = deck - seen
    total = sum(unseen.values())
    tops = [TEXT_TO_CODE[column[-1]] for column in view["tableau"]]
    wanted = [unseen[top - 1] / total for top in tops if top & 15 != 1]
    fits = deal_fits(start, ["deal"])
    assert list(fits.chances) == pytest.approx(wanted)
    board = start.copy()
    dealt = board.play("deal").revealed[: len(tops)]
    assert fits.fits == sum(1 for column, card in dealt if tops[column] == card + 1)


def test_a_deal_taken_back_and_dealt_again_is_no_second_trial() -> None:
    # The cards were seen the first time: setting the tops for them is no foreknowledge.
    start = Board.deal("spider1", 2)
    once = deal_fits(start, ["deal"])
    assert once.trials > 0
    assert deal_fits(start, ["deal", "undo", "deal"]) == once


def test_honest_play_is_seldom_improbable_whatever_its_style() -> None:
    # Random legal moves, undo and early deals included: a style no model of players
    # foresaw. The chances stay exact, so improbable games stay as rare as they should.
    rng = random.Random(8)
    p_values = []
    for game in range(120):
        board = Board.deal(VARIANTS[game % 4], rng.getrandbits(32))
        start, log = board.copy(), []
        for _ in range(rng.randint(60, 250)):
            actions = board.legal_actions()
            if not actions:
                break
            action = rng.choice(actions)
            board.play(action)
            log.append(action)
        p_values.append(deal_fits(start, log).p_value)
    assert sum(p < 0.05 for p in p_values) <= 12  # 6 expected at most
    assert min(p_values) >= FOREKNOWLEDGE_P


# --- the review --------------------------------------------------------------------------


def past_days(count: int) -> list[DailyChallenge]:
    today = timezone.now().date()
    return [
        make_challenge(today - dt.timedelta(days=back), "spider1") for back in range(1, count + 1)
    ]


def ended_game(player: Any, challenge: DailyChallenge, chances: list[float], fits: int) -> Attempt:
    """An ended ranked game of a past daily whose deals were weighed already (GameFits)."""
    started = dt.datetime.combine(challenge.date, dt.time(12), tzinfo=dt.UTC)
    attempt = Attempt.objects.create(
        player=player,
        deal=challenge.deal,
        challenge=challenge,
        kind=Attempt.Kind.RANKED,
        started_at=started,
        ended_at=started + dt.timedelta(minutes=20),
        end_reason=Attempt.EndReason.RESIGNED,
        log=[],
    )
    GameFits.objects.create(attempt=attempt, chances=chances, fits=fits)
    return attempt


def queue(challenge_id: int) -> list[dict[str, Any]]:
    staffer = make_player("fk-staff")
    staffer.is_staff = True
    staffer.save(update_fields=["is_staff"])
    staff = APIClient()
    staff.force_authenticate(staffer)
    response = staff.get(f"/api/v1/admin/reviews/?challenge={challenge_id}")
    assert response.status_code == 200, response.content
    return list(response.json()["reviews"])


@pytest.mark.django_db(transaction=True)
def test_games_that_fit_too_well_together_reach_the_queue_and_honest_ones_do_not() -> None:
    from games.services.attempts import attempt_resign, attempt_start_ranked

    today = timezone.now().date()
    # Each earlier game a little lucky (8 fits where 4 were expected: p about 0.05 alone);
    # six of them are not luck.
    cheat, honest = make_player("fk-cheat"), make_player("fk-honest")
    for day in past_days(6):
        ended_game(cheat, day, [0.1] * 40, 8)
        ended_game(honest, day, [0.1] * 40, 4)
    challenge = make_challenge(today, "spider1", deal=verified_deal("spider1", 2))
    for player in (cheat, honest):
        attempt, _ = attempt_start_ranked(player=player, challenge_id=challenge.pk)
        attempt_resign(attempt_id=attempt.pk, player=player)

    [review] = queue(challenge.pk)
    assert review["player"] == "fk-cheat" and review["severity"] == "medium"
    [item] = review["evidence"]
    assert item["kind"] == "foreknowledge" and len(item["attempt_ids"]) == 7
    assert "7 ranked games" in item["text"] and "48 landed" in item["text"]
    # Nothing of the cards in the staff's text either: counts and a probability only.
    assert not any(card in item["text"] for card in TEXT_TO_CODE)
    # The cheat's own view of its game says nothing of a review.
    own = APIClient()
    own.force_authenticate(cheat)
    seen = own.get(f"/api/v1/attempts/{review['attempt_id']}/").content.decode().lower()
    assert "foreknowledge" not in seen and "review" not in seen


@pytest.mark.django_db(transaction=True)
def test_voided_games_are_left_out_of_the_recent_games() -> None:
    from games.services.attempts import attempt_resign, attempt_start_ranked

    today = timezone.now().date()
    cheat = make_player("fk-voided")
    for day in past_days(6):
        game = ended_game(cheat, day, [0.1] * 40, 8)
        Attempt.objects.filter(pk=game.pk).update(voided=True)
    challenge = make_challenge(today, "spider1", deal=verified_deal("spider1", 2))
    attempt, _ = attempt_start_ranked(player=cheat, challenge_id=challenge.pk)
    attempt_resign(attempt_id=attempt.pk, player=cheat)
    assert not Review.objects.filter(attempt_id=attempt.pk).exists()
    assert GameFits.objects.filter(attempt_id=attempt.pk).exists()  # weighed once, kept
