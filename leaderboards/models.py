"""The leaderboards' own table: how many counted attempts of a board have each score."""

from __future__ import annotations

from django.db import models

from games.models import DailyChallenge


class BoardScoreCount(models.Model):
    """Counted attempts of one challenge's board with one outcome and score (kept by
    leaderboards/tally.py).

    A player's rank is "attempts strictly better + 1"; the attempts with a better outcome or
    a higher score are the sum of these rows above the player's (won, score) (a few hundred
    rows at most, as scores are small whole numbers) instead of a count over every index
    entry above the player (100,000 for the last of 100,000). The size of the board is
    their total.
    """

    challenge = models.ForeignKey(
        DailyChallenge, on_delete=models.CASCADE, related_name="score_counts"
    )
    won = models.BooleanField(default=False)  # won attempts rank above all others
    score = models.IntegerField()
    attempts = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "won", "score"], name="board_score_count_unique_won"
            )
        ]

    def __str__(self) -> str:
        outcome = "won" if self.won else "not won"
        return (
            f"{self.attempts} attempts ({outcome}) scored {self.score} "
            f"on challenge {self.challenge_id}"
        )
