import importlib

import django.db.models.deletion
from django.db import migrations, models

# cases/database.sql's cases_case_term_ids now takes the kinds of the remediation steps too:
# this migration applies the file as 0014 left it (0014_database.sql: the file's counts of
# 0015 write a table made only then), as 0007_database.sql is for 0007.
derived = importlib.import_module("cases.migrations.0007_derived_columns_and_generation")

# Back: the term ids of 0007, without the steps' kinds (the column is dropped after this).
TERM_IDS_WITHOUT_KINDS = """
CREATE OR REPLACE FUNCTION cases_case_term_ids(c cases_case) RETURNS integer[]
LANGUAGE sql STABLE AS $$
    SELECT ARRAY(
        SELECT term_id::integer FROM cases_caseterm WHERE case_id = c.id
        UNION
        SELECT c.severity_id::integer
        UNION
        SELECT c.root_cause_id::integer
        ORDER BY 1
    )
$$;
UPDATE cases_case SET search_vector = NULL
 WHERE id IN (SELECT case_id FROM cases_remediationstep WHERE kind_id IS NOT NULL);
"""


class Migration(migrations.Migration):
    dependencies = [("cases", "0010_case_translations")]

    operations = [
        migrations.RemoveConstraint(model_name="term", name="term_facet_is_known"),
        migrations.AddField(
            model_name="remediationstep",
            name="kind",
            field=models.ForeignKey(
                blank=True,
                limit_choices_to={"facet": "fix"},
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="cases.term",
                verbose_name="kind of fix",
            ),
        ),
        migrations.AlterField(
            model_name="term",
            name="facet",
            field=models.CharField(
                choices=[
                    ("domain", "Domain"),
                    ("symptoms", "Symptoms"),
                    ("components", "Components"),
                    ("root_cause", "Root cause"),
                    ("contributing", "Contributing factors"),
                    ("severity", "Severity"),
                    ("fix", "Kind of fix"),
                ],
                max_length=20,
                verbose_name="facet",
            ),
        ),
        migrations.AddConstraint(
            model_name="term",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "facet__in",
                        [
                            "domain",
                            "symptoms",
                            "components",
                            "root_cause",
                            "contributing",
                            "severity",
                            "fix",
                        ],
                    )
                ),
                name="term_facet_is_known",
            ),
        ),
        # No step has a kind yet: no stored case's term ids change, none to derive again.
        migrations.RunSQL(migrations.RunSQL.noop, TERM_IDS_WITHOUT_KINDS),
        migrations.RunPython(derived.apply_database_sql_0014, migrations.RunPython.noop),
    ]
