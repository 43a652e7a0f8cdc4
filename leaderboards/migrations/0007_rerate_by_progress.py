"""The ratings learn from boards that rank games not won by progress (docs/rules.md, "How boards
rank"): every rated day is rated again, in date order, from its board as it now ranks."""

from django.db import migrations


def rerate(apps, schema_editor):
    RatedDay = apps.get_model("leaderboards", "RatedDay")
    variants = sorted(set(RatedDay.objects.values_list("variant", flat=True)))
    if not variants:
        return  # a new database: nothing was rated under the old order
    # The service itself (the same code as the rating job: the same numbers). It reads the
    # models as they are at this migration: a later migration of these models must keep
    # this one runnable or squash it.
    from leaderboards.ratings.services import ratings_recompute

    for variant in variants:
        ratings_recompute(variant=variant)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_rank_by_progress"),
        ("leaderboards", "0006_player_profile"),
    ]

    operations = [migrations.RunPython(rerate, migrations.RunPython.noop, elidable=True)]
