# The facet counts kept within each term as well as over the whole library (FacetCount.within,
# cases/database.sql "The library's facet counts"), and each change's transaction until its
# commit folds it (FacetCount.txid): the columns, the file applied as it is now, and the
# library counted again. Back: the file as 0015 left it, and the columns dropped.

import importlib

from django.db import migrations, models

derived = importlib.import_module("cases.migrations.0007_derived_columns_and_generation")


def back_to_0015(apps, schema_editor):
    schema_editor.execute("DELETE FROM cases_facetcount WHERE within <> 0")
    schema_editor.execute("DROP FUNCTION IF EXISTS cases_case_counts(integer[], bigint, boolean)")
    derived.apply_database_sql_0015(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("cases", "0017_search_vector_stored_uncompressed")]

    operations = [
        migrations.AddField(
            model_name="facetcount",
            name="within",
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name="facetcount",
            name="txid",
            field=models.BigIntegerField(editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name="facetcount",
            index=models.Index(fields=["within", "key"], name="facetcount_within_idx"),
        ),
        migrations.AddIndex(
            model_name="facetcount",
            index=models.Index(
                condition=models.Q(txid__isnull=False),
                fields=["txid"],
                name="facetcount_unfolded_idx",
            ),
        ),
        migrations.RunPython(derived.apply_current_database_sql, back_to_0015),
        migrations.RunSQL("SELECT cases_count_facets_again()", migrations.RunSQL.noop),
    ]
