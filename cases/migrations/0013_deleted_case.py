# Deleted cases, kept so that a copy kept in sync learns of them (/api/cases/deleted/): the
# table, and cases/database.sql (whose triggers now fill it) applied as 0014 left it
# (0014_database.sql: the file's counts of 0015 write a table made only then), as
# 0007_database.sql is for 0007.

import importlib

from django.db import migrations, models

derived = importlib.import_module("cases.migrations.0007_derived_columns_and_generation")

DROP_TRIGGERS = """
DROP TRIGGER IF EXISTS cases_case_deleted ON cases_case;
DROP TRIGGER IF EXISTS cases_case_made_again ON cases_case;
DROP FUNCTION IF EXISTS cases_case_deleted();
DROP FUNCTION IF EXISTS cases_case_made_again();
"""


class Migration(migrations.Migration):
    dependencies = [("cases", "0012_case_duration_seconds")]

    operations = [
        migrations.CreateModel(
            name="DeletedCase",
            fields=[
                (
                    "case_id",
                    models.CharField(
                        max_length=20, primary_key=True, serialize=False, verbose_name="case id"
                    ),
                ),
                ("deleted_at", models.DateTimeField(verbose_name="deleted at")),
            ],
            options={
                "verbose_name": "deleted case",
                "verbose_name_plural": "deleted cases",
                "indexes": [
                    models.Index(fields=["-deleted_at", "case_id"], name="deleted_case_since_idx")
                ],
            },
        ),
        migrations.RunPython(derived.apply_database_sql_0014, migrations.RunPython.noop),
        migrations.RunSQL(migrations.RunSQL.noop, DROP_TRIGGERS),
    ]
