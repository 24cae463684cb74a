# The seconds of each case's time to detect and to resolve, computed by the database from
# the durations as written (cases/durations.py), indexed for /cases/?detected_after=1h-4h;
# /stats/ reads them for its duration charts.

from django.conf import settings
from django.db import migrations, models

import cases.durations


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0011_remediation_kind"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="case",
            name="detected_seconds",
            field=models.GeneratedField(
                db_persist=True,
                expression=cases.durations.DurationSeconds("detected_after"),
                output_field=models.FloatField(),
                verbose_name="seconds to detect",
            ),
        ),
        migrations.AddField(
            model_name="case",
            name="resolved_seconds",
            field=models.GeneratedField(
                db_persist=True,
                expression=cases.durations.DurationSeconds("resolved_after"),
                output_field=models.FloatField(),
                verbose_name="seconds to resolve",
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(fields=["detected_seconds"], name="case_detected_seconds_idx"),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(fields=["resolved_seconds"], name="case_resolved_seconds_idx"),
        ),
    ]
