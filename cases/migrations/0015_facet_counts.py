# The facet counts over the whole library, kept by the database at every write
# (cases/database.sql, "The library's facet counts"): the table, the file applied as it was
# then (0015_database.sql), and the library counted once. Back: the counting triggers and functions dropped, and the
# file as 0014 left it applied again (cases_library_changed without the fold).

import importlib

from django.db import migrations, models

derived = importlib.import_module("cases.migrations.0007_derived_columns_and_generation")

DROP_COUNTING = """
DROP TRIGGER IF EXISTS cases_case_counted_insert ON cases_case;
DROP TRIGGER IF EXISTS cases_case_counted_update ON cases_case;
DROP TRIGGER IF EXISTS cases_case_counted_delete ON cases_case;
DROP TRIGGER IF EXISTS cases_case_counts_emptied ON cases_case;
DROP FUNCTION IF EXISTS cases_case_counted();
DROP FUNCTION IF EXISTS cases_case_emptied();
DROP FUNCTION IF EXISTS cases_fold_facet_counts();
DROP FUNCTION IF EXISTS cases_count_facets_again();
DROP FUNCTION IF EXISTS cases_case_keys(integer[], bigint, boolean);
"""


def back_to_0014(apps, schema_editor):
    schema_editor.execute(DROP_COUNTING)
    derived.apply_database_sql_0014(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("cases", "0014_import_korean_vectors")]

    operations = [
        migrations.CreateModel(
            name="FacetCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.IntegerField()),
                ("reviewed", models.BooleanField()),
                ("cases", models.IntegerField()),
            ],
            options={"verbose_name": "facet count"},
        ),
        migrations.RunPython(derived.apply_database_sql_0015, back_to_0014),
        migrations.RunSQL("SELECT cases_count_facets_again()", migrations.RunSQL.noop),
    ]
