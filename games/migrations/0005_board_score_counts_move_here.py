# The board counts' model moves from the leaderboards app to games (whose services write
# them); the table stays where it is: state only, no database operation.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0004_board_ranks_won_first_and_skips_empty"),
        ("leaderboards", "0002_counts_by_outcome"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="BoardScoreCount",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("won", models.BooleanField(default=False)),
                        ("score", models.IntegerField()),
                        ("attempts", models.IntegerField(default=0)),
                        (
                            "challenge",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="score_counts",
                                to="games.dailychallenge",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "leaderboards_boardscorecount",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("challenge", "won", "score"),
                                name="board_score_count_unique_won",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
