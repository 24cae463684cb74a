# Incremental sync (/api/cases/?updated_since=) reads cases by the library's own time of each
# write, oldest first.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0007_derived_columns_and_generation"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="case",
            index=models.Index(fields=["changed_at", "id"], name="case_changed_idx"),
        ),
    ]
