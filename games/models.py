"""Deals proven winnable by the solver, and the daily schedule that points at them."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.engine import VARIANTS

VARIANT_CHOICES = [(name, name) for name in VARIANTS]


def commitment_for(variant: str, seed: int, nonce: str) -> str:
    """The public SHA-256 commitment to a deal: revealed with its seed and nonce after the day."""
    return hashlib.sha256(f"{variant}:{seed}:{nonce}".encode()).hexdigest()


class Deal(models.Model):
    """One (variant, secret seed), and what the solver proved about it."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VERIFYING = "verifying"
        VERIFIED = "verified"
        UNSOLVABLE = "unsolvable"
        UNKNOWN = "unknown"
        FAILED = "failed"

    class Pool(models.TextChoices):
        DAILY = "daily"
        PRACTICE = "practice"

    variant = models.CharField(max_length=16, choices=VARIANT_CHOICES)
    # The seed's decimal digits (canonical: no sign, no leading zero). Seeds fill all 64
    # unsigned bits, which a signed bigint cannot hold; a decimal column kept them on
    # PostgreSQL but not on SQLite, which reads decimals back through a float (15 digits).
    # deal_create checks the range (engine.check_seed) and writes str(seed).
    seed = models.CharField(max_length=20)
    nonce = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, unique=True)
    pool = models.CharField(max_length=16, choices=Pool.choices, default=Pool.DAILY)
    rules_version = models.PositiveSmallIntegerField()
    solver_version = models.CharField(max_length=32, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    retired = models.BooleanField(default=False)

    solution = models.JSONField(null=True, blank=True)
    par = models.PositiveIntegerField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    difficulty_label = models.CharField(max_length=8, blank=True)
    solver_nodes = models.BigIntegerField(null=True, blank=True)
    solver_seconds = models.FloatField(null=True, blank=True)
    solver_peak_mb = models.FloatField(null=True, blank=True)
    # The improve phase's budget the stored line was found with: `python -m games.solver
    # VARIANT SEED --improve-nodes N` finds it again (games/services/deals.py).
    solver_improve_nodes = models.PositiveIntegerField(null=True, blank=True)
    verify_runs = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    verify_started_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["variant", "seed"], name="deal_unique_variant_seed"),
        ]
        indexes = [models.Index(fields=["variant", "pool", "status"])]

    def __str__(self) -> str:
        return f"Deal #{self.pk} ({self.variant}, {self.status})"

    @property
    def seed_int(self) -> int:
        return int(self.seed)

    @property
    def is_playable(self) -> bool:
        return self.status == self.Status.VERIFIED and not self.retired


class DailyChallenge(models.Model):
    """The deal everyone plays in one variant on one UTC date."""

    date = models.DateField()
    variant = models.CharField(max_length=16, choices=VARIANT_CHOICES)
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="dailies")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["date", "variant"], name="daily_unique_date_variant"),
            models.UniqueConstraint(fields=["deal"], name="daily_deal_used_once"),
        ]
        ordering = ["date", "variant"]

    def __str__(self) -> str:
        return f"{self.variant} of {self.date}"


# What puts an attempt on its challenge's board (docs/rules.md, "How boards rank"): ranked,
# ended, not voided, and ended with at least one action (one started and then left is not
# ranked).
BOARD_CONDITION = Q(kind="ranked", voided=False, ended_at__isnull=False, action_count__gt=0)


class Attempt(models.Model):
    """One player's game of one deal: ranked (the daily, once) or practice (any number).

    The log is the truth: the position, the score and every answer to the player are
    recomputed from it by the engine. Times are the server's.
    """

    class Kind(models.TextChoices):
        RANKED = "ranked"
        PRACTICE = "practice"

    class EndReason(models.TextChoices):
        WON = "won"
        RESIGNED = "resigned"
        DAY_CLOSED = "day_closed"

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts"
    )
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="attempts")
    challenge = models.ForeignKey(
        DailyChallenge,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="attempts",
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)

    log = models.JSONField(default=list)  # action texts, docs/rules.md notation
    action_times = models.JSONField(default=list)  # server seconds since started_at, per action
    started_at = models.DateTimeField()
    last_action_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=EndReason.choices, blank=True)

    action_count = models.PositiveIntegerField(default=0)
    elapsed_seconds = models.FloatField(null=True, blank=True)
    score = models.IntegerField(null=True, blank=True)
    won = models.BooleanField(default=False)
    runs_completed = models.PositiveSmallIntegerField(default=0)
    # The deal's face-down tableau cards no longer face down (engine.cards_turned_up): with
    # the runs home, the progress by which a game not won ranks (docs/rules.md).
    cards_turned_up = models.PositiveSmallIntegerField(default=0)
    deals_left = models.PositiveSmallIntegerField(default=5)
    # Hints answered in this (practice) game: at most HINTS_PER_GAME (games/services/hints.py).
    hints_used = models.PositiveSmallIntegerField(default=0)

    # A race's attempt (rooms): no action before ``started_at`` (the race's start signal) nor
    # after ``play_until`` (its time limit: the attempt is then resigned where it stands), no
    # hints, and its cards stay secret while ``cards_sealed`` (until the race is over for every
    # racer, not when this one ends). Null and False for every other attempt.
    play_until = models.DateTimeField(null=True, blank=True)
    cards_sealed = models.BooleanField(default=False)

    flagged = models.BooleanField(default=False)
    flag_reason = models.CharField(max_length=200, blank=True)
    voided = models.BooleanField(default=False)
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "challenge"],
                condition=Q(kind="ranked"),
                name="attempt_one_ranked_per_player_and_challenge",
            ),
            models.CheckConstraint(
                condition=Q(kind="practice") | Q(challenge__isnull=False),
                name="attempt_ranked_has_challenge",
            ),
        ]
        indexes = [
            # The daily board: finished, counted attempts in docs/rules.md's order (won first,
            # then progress: runs home, cards turned up; then score).
            models.Index(
                "challenge",
                models.F("won").desc(),
                models.F("runs_completed").desc(),
                models.F("cards_turned_up").desc(),
                models.F("score").desc(),
                "elapsed_seconds",
                "ended_at",
                name="attempt_board_order",
                condition=BOARD_CONDITION,
            ),
            models.Index(fields=["player", "kind", "ended_at"], name="attempt_player_history"),
            models.Index(
                fields=["challenge"],
                name="attempt_open_by_challenge",
                condition=Q(ended_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"Attempt #{self.pk} ({self.kind}, {self.player_id})"

    @property
    def is_over(self) -> bool:
        return self.ended_at is not None

    @property
    def is_race(self) -> bool:
        return self.play_until is not None


class BoardScoreCount(models.Model):
    """Counted attempts of one challenge's board with one outcome, progress and score (kept
    by games/services/board_counts.py, in the transaction of every write that changes a
    board), beside ``BoardProgressCount``, the same counts without the score.

    A player's rank is "attempts strictly better + 1": those with a better outcome or more
    progress are the sum of the progress counts above the player's (at most 514 rows: won,
    runs home 0-7, cards turned up 0-56), those with the same and a higher score the sum of
    these rows above the player's score within that one group (a few hundred, as scores are
    small whole numbers), instead of a count over every index entry above the player
    (100,000 for the last of 100,000).
    """

    challenge = models.ForeignKey(
        DailyChallenge, on_delete=models.CASCADE, related_name="score_counts"
    )
    won = models.BooleanField(default=False)  # won attempts rank above all others
    runs_completed = models.PositiveSmallIntegerField(default=0)
    cards_turned_up = models.PositiveSmallIntegerField(default=0)
    score = models.IntegerField()
    attempts = models.IntegerField(default=0)

    class Meta:
        # The table the leaderboards app made: the model moved here, the table stayed.
        db_table = "leaderboards_boardscorecount"
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "won", "runs_completed", "cards_turned_up", "score"],
                name="board_score_count_unique_key",
            )
        ]

    def __str__(self) -> str:
        outcome = (
            "won"
            if self.won
            else f"not won, {self.runs_completed} runs home, {self.cards_turned_up} turned up"
        )
        return (
            f"{self.attempts} attempts ({outcome}) scored {self.score} "
            f"on challenge {self.challenge_id}"
        )


class BoardProgressCount(models.Model):
    """Counted attempts of one challenge's board with one outcome and progress (runs home,
    cards turned up), whatever their score: ``BoardScoreCount`` summed over the score, kept
    with it. The size of the board is their total."""

    challenge = models.ForeignKey(
        DailyChallenge, on_delete=models.CASCADE, related_name="progress_counts"
    )
    won = models.BooleanField(default=False)
    runs_completed = models.PositiveSmallIntegerField(default=0)
    cards_turned_up = models.PositiveSmallIntegerField(default=0)
    attempts = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "won", "runs_completed", "cards_turned_up"],
                name="board_progress_count_unique_key",
            )
        ]

    def __str__(self) -> str:
        outcome = (
            "won"
            if self.won
            else f"not won, {self.runs_completed} runs home, {self.cards_turned_up} turned up"
        )
        return f"{self.attempts} attempts ({outcome}) on challenge {self.challenge_id}"


class AttemptAnalysis(models.Model):
    """The solver's analysis of one finished attempt whose cards are public (issue 31).

    One row per attempt (asked twice, computed once); ``positions`` holds the analysed
    positions as ``{step, status, moves_to_win}``; the rest is written by
    games/services/analysis.py when the job ends.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    positions = models.JSONField(default=list)
    planned = models.PositiveIntegerField(default=0)
    lost_at = models.JSONField(null=True, blank=True)  # {"index": k, "action": text}
    alternative = models.JSONField(default=list)  # a winning line from before lost_at
    saved = models.JSONField(null=True, blank=True)  # won games: {"actions": n, "shortest": m}
    worker_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "attempt analyses"

    def __str__(self) -> str:
        return f"Analysis of attempt {self.attempt_id} ({self.status})"
