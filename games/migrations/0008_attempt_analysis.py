import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_deal_solver_improve_nodes"),
    ]

    operations = [
        migrations.CreateModel(
            name="AttemptAnalysis",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("done", "Done"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=8,
                    ),
                ),
                ("positions", models.JSONField(default=list)),
                ("planned", models.PositiveIntegerField(default=0)),
                ("lost_at", models.JSONField(blank=True, null=True)),
                ("alternative", models.JSONField(default=list)),
                ("saved", models.JSONField(blank=True, null=True)),
                ("worker_seconds", models.FloatField(default=0.0)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "attempt",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="analysis",
                        to="games.attempt",
                    ),
                ),
            ],
        ),
    ]
