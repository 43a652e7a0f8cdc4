# The board counts' model now lives in games (games.0005); its table stays: state only.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboards", "0002_counts_by_outcome"),
        ("games", "0005_board_score_counts_move_here"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="BoardScoreCount")],
            database_operations=[],
        ),
    ]
