"""Boards rank games not won by progress (docs/rules.md, "How boards rank"): each attempt's
cards turned up, replayed from its log, and the boards' counts keyed by progress too."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import Count

from games import engine

KEY = ("challenge_id", "won", "runs_completed", "cards_turned_up", "score")
GROUP = KEY[:-1]
BOARD = models.Q(kind="ranked", voided=False, ended_at__isnull=False, action_count__gt=0)


def fill_progress(apps, schema_editor):
    """Every attempt's cards turned up, from its log (an attempt of no action turned none)."""
    Attempt = apps.get_model("games", "Attempt")
    BoardScoreCount = apps.get_model("games", "BoardScoreCount")
    BoardProgressCount = apps.get_model("games", "BoardProgressCount")
    played = Attempt.objects.filter(action_count__gt=0).select_related("deal")
    for attempt in played.only("log", "deal__variant", "deal__seed").iterator(chunk_size=500):
        board = engine.replay(attempt.deal.variant, int(attempt.deal.seed), attempt.log).board
        turned = engine.cards_turned_up(board)
        Attempt.objects.filter(pk=attempt.pk).update(cards_turned_up=turned)
    BoardScoreCount.objects.all().delete()
    rows = (
        Attempt.objects.filter(BOARD, score__isnull=False)
        .values(*KEY)
        .annotate(n=Count("id"))
        .order_by()
    )
    BoardScoreCount.objects.bulk_create(
        BoardScoreCount(**{name: row[name] for name in KEY}, attempts=row["n"]) for row in rows
    )
    groups = (
        Attempt.objects.filter(BOARD, score__isnull=False)
        .values(*GROUP)
        .annotate(n=Count("id"))
        .order_by()
    )
    BoardProgressCount.objects.bulk_create(
        BoardProgressCount(**{name: row[name] for name in GROUP}, attempts=row["n"])
        for row in groups
    )


def merge_progress(apps, schema_editor):
    """Back to counts by outcome and score alone (the constraint before this migration)."""
    BoardScoreCount = apps.get_model("games", "BoardScoreCount")
    rows = list(
        BoardScoreCount.objects.values("challenge_id", "won", "score")
        .annotate(n=models.Sum("attempts"))
        .order_by()
    )
    BoardScoreCount.objects.all().delete()
    BoardScoreCount.objects.bulk_create(
        BoardScoreCount(
            challenge_id=row["challenge_id"], won=row["won"], score=row["score"], attempts=row["n"]
        )
        for row in rows
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_attempt_analysis"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="boardscorecount",
            name="board_score_count_unique_won",
        ),
        migrations.RemoveIndex(
            model_name="attempt",
            name="attempt_board_order",
        ),
        migrations.AddField(
            model_name="attempt",
            name="cards_turned_up",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="boardscorecount",
            name="cards_turned_up",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="boardscorecount",
            name="runs_completed",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="BoardProgressCount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("won", models.BooleanField(default=False)),
                ("runs_completed", models.PositiveSmallIntegerField(default=0)),
                ("cards_turned_up", models.PositiveSmallIntegerField(default=0)),
                ("attempts", models.IntegerField(default=0)),
                ("challenge", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="progress_counts", to="games.dailychallenge")),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("challenge", "won", "runs_completed", "cards_turned_up"), name="board_progress_count_unique_key")],
            },
        ),
        migrations.RunPython(fill_progress, merge_progress, elidable=True),
        migrations.AlterModelOptions(
            name="attemptanalysis",
            options={"verbose_name_plural": "attempt analyses"},
        ),
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(
                models.F("challenge"),
                models.OrderBy(models.F("won"), descending=True),
                models.OrderBy(models.F("runs_completed"), descending=True),
                models.OrderBy(models.F("cards_turned_up"), descending=True),
                models.OrderBy(models.F("score"), descending=True),
                models.F("elapsed_seconds"),
                models.F("ended_at"),
                condition=models.Q(
                    ("action_count__gt", 0),
                    ("ended_at__isnull", False),
                    ("kind", "ranked"),
                    ("voided", False),
                ),
                name="attempt_board_order",
            ),
        ),
        migrations.AddConstraint(
            model_name="boardscorecount",
            constraint=models.UniqueConstraint(
                fields=("challenge", "won", "runs_completed", "cards_turned_up", "score"),
                name="board_score_count_unique_key",
            ),
        ),
    ]
