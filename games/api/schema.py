"""Serializers that describe the games API's shared shapes in the OpenAPI schema: docs/rules.md's
State JSON in its view form (every position the API sends), attempts, challenges. The one
error shape is core.api_errors'."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


def card() -> serializers.CharField:
    return serializers.CharField(allow_null=True, help_text="Rank then suit (TH); null if hidden.")


class StateViewSerializer(serializers.Serializer[Any]):
    """docs/rules.md's State JSON, view form: face-down and stock cards are null."""

    variant = serializers.CharField()
    tableau = serializers.ListField(
        child=serializers.ListField(child=card()), help_text="Bottom card first."
    )
    face_down = serializers.ListField(child=serializers.IntegerField())
    cells = serializers.ListField(child=card())
    foundations = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    stock = serializers.ListField(child=card(), help_text="Always null cards in the view form.")
    won = serializers.BooleanField()

    def to_representation(self, instance: Any) -> Any:
        # The engine's board_view/board_state already is this object, key for key: copying
        # its ~110 cards field by field cost more than the rest of an answer's rendering.
        return instance


class StateFullSerializer(StateViewSerializer):
    """docs/rules.md's State JSON with every card shown (only once it is no longer secret)."""


class ScoreSerializer(serializers.Serializer[Any]):
    total = serializers.IntegerField()
    base = serializers.IntegerField()
    actions = serializers.IntegerField()
    time_penalty = serializers.IntegerField()
    foundations = serializers.IntegerField()
    foundation_bonus = serializers.IntegerField()
    win_bonus = serializers.IntegerField()


class AttemptSummarySerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["ranked", "practice"])
    started_at = serializers.DateTimeField()
    action_count = serializers.IntegerField()
    over = serializers.BooleanField()
    won = serializers.BooleanField()
    end_reason = serializers.CharField(allow_null=True)
    score = serializers.IntegerField(allow_null=True)
    elapsed_seconds = serializers.FloatField()


class RevealedDealSerializer(serializers.Serializer[Any]):
    seed = serializers.CharField(help_text="Decimal digits of the unsigned 64-bit seed.")
    nonce = serializers.CharField()
    start_state = StateFullSerializer()
    solution = serializers.ListField(child=serializers.CharField())
    improve_nodes = serializers.IntegerField(
        allow_null=True,
        help_text="The solver's improve budget this solution was found with: "
        "`python -m games.solver VARIANT SEED --improve-nodes N` prints it again (the par).",
    )
    solver_version = serializers.CharField(
        help_text="The solver's SOLVER_VERSION that proved the deal: the command prints this "
        "solution again when run by that version (a later one may find a shorter line)."
    )


class ChallengeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    date = serializers.DateField()
    variant = serializers.CharField()
    commitment = serializers.CharField(
        help_text='sha256 of f"{variant}:{seed}:{nonce}", checkable once the day is over.'
    )
    par = serializers.IntegerField(allow_null=True)
    difficulty = serializers.CharField(allow_null=True)
    state = StateViewSerializer(help_text="The starting layout as a player sees it.")
    open = serializers.BooleanField()
    seconds_left = serializers.IntegerField(help_text="Until 00:00 UTC closes the day.")
    my_attempt = AttemptSummarySerializer(allow_null=True)
    revealed = RevealedDealSerializer(
        allow_null=True, help_text="Seed, nonce, full deal and solution, once the day is over."
    )


class AttemptSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    challenge_id = serializers.IntegerField(allow_null=True)
    date = serializers.DateField(allow_null=True)
    variant = serializers.CharField()
    commitment = serializers.CharField()
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    end_reason = serializers.ChoiceField(choices=["won", "resigned", "day_closed"], allow_null=True)
    state = StateViewSerializer()
    legal_actions = serializers.ListField(child=serializers.CharField())
    action_count = serializers.IntegerField()
    offset = serializers.IntegerField(help_text="Where the next batch of actions starts.")
    over = serializers.BooleanField()
    won = serializers.BooleanField()
    deals_left = serializers.IntegerField()
    runs_completed = serializers.IntegerField()
    cards_turned_up = serializers.IntegerField(
        help_text="The deal's face-down tableau cards no longer face down (docs/rules.md)."
    )
    face_down_dealt = serializers.IntegerField(
        help_text="The deal's face-down tableau cards: what cards_turned_up counts against."
    )
    race = serializers.BooleanField(help_text="A race room's attempt: its place is the race's.")
    elapsed_seconds = serializers.FloatField()
    score = serializers.IntegerField(
        help_text="Final once over; so far (at the last action) before."
    )
    score_parts = ScoreSerializer(help_text="The parts of `score` (docs/rules.md's formula).")
    voided = serializers.BooleanField()
    log = serializers.ListField(child=serializers.CharField(), allow_null=True)
    action_times = serializers.ListField(child=serializers.FloatField(), allow_null=True)
    start_state = StateViewSerializer(
        allow_null=True,
        help_text=(
            "Once the attempt is over: the deal as it started, whole when `deal_revealed`, "
            "else as the player saw it (face-down and stock cards null)."
        ),
    )
    deal_revealed = serializers.BooleanField(
        help_text=(
            "Whether `start_state` shows every card: a daily's once its day is over (for "
            "everyone at once), a practice deal's once the attempt is over."
        )
    )
    seed = serializers.CharField(allow_null=True, help_text="Once the day is over (ranked).")
    nonce = serializers.CharField(allow_null=True)
