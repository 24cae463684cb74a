"""The library's shape: a second number, raised only by the writes that change which cases a
list holds, in which order, and the counts beside it.

A list without a search (`/cases/`, a term's page, an organisation's page, the home page) and
the counts (`/taxonomy/`, `/orgs/`) show the cases that a filter chooses, in the order of their
dates, and how many have each term. Which cases those are changes only when a case is added or
deleted, or one of its terms, organisation, date, review or durations changes, or a term or
an organisation does. A change of a case's texts (its title, say) changes only that case's
row in the lists that show it: such pages are kept under the shape and the versions of the
rows they show (cases/caching.py), so that the other lists, and every count, stay cached.

The shape is raised as the generation is (0001's "The library's generation"): at commit, once
per transaction, by deferred triggers; by the import once at its end (bulk_write); and by a
TRUNCATE of any table of the library. A list's key holds the server's start time too
(cases/caching.py), as a case page's does: a restored backup gives transaction ids, so row
versions, again.
"""

from django.db import migrations, models

# The columns of a case that choose or order the cases of a list, or count them.
SHAPE_COLUMNS = (
    "id",  # the order's last key
    "term_ids",
    "organisation_id",
    "date",
    "reviewed_at",
    "detected_seconds",
    "resolved_seconds",
)

SHAPE = rf"""
CREATE FUNCTION cases_raise_shape() RETURNS bigint
LANGUAGE sql AS $$
    INSERT INTO cases_library (id, generation, changed_at, shape, shape_changed_at)
    SELECT 1, number, clock_timestamp(), number, clock_timestamp()
      FROM nextval('cases_library_generation') AS number
    ON CONFLICT (id) DO UPDATE
        SET shape = EXCLUDED.shape, shape_changed_at = EXCLUDED.shape_changed_at
    RETURNING shape
$$;

CREATE FUNCTION cases_shape_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('incidentlib.shape_raised', true)
            IS DISTINCT FROM txid_current()::text THEN
        PERFORM cases_raise_shape();
        PERFORM set_config('incidentlib.shape_raised', txid_current()::text, true);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION cases_shape_emptied() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM cases_raise_shape();
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER cases_case_shape_added AFTER INSERT OR DELETE ON cases_case
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (current_setting('incidentlib.bulk_write', true) IS DISTINCT FROM 'on')
EXECUTE FUNCTION cases_shape_changed();

CREATE CONSTRAINT TRIGGER cases_case_shape_changed AFTER UPDATE ON cases_case
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (current_setting('incidentlib.bulk_write', true) IS DISTINCT FROM 'on'
      AND ({" OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in SHAPE_COLUMNS)}))
EXECUTE FUNCTION cases_shape_changed();

CREATE CONSTRAINT TRIGGER cases_term_shape_changed AFTER INSERT OR UPDATE OR DELETE ON cases_term
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (current_setting('incidentlib.bulk_write', true) IS DISTINCT FROM 'on')
EXECUTE FUNCTION cases_shape_changed();

CREATE CONSTRAINT TRIGGER cases_organisation_shape_changed
AFTER INSERT OR UPDATE OR DELETE ON cases_organisation
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (current_setting('incidentlib.bulk_write', true) IS DISTINCT FROM 'on')
EXECUTE FUNCTION cases_shape_changed();

-- A TRUNCATE fires no row trigger and touches no case row: of any table of the library (a
-- case's tags, which a list shows, are cases_caseterm's rows), it raises the shape.
DO $$
DECLARE
    library_table text;
BEGIN
    FOREACH library_table IN ARRAY ARRAY[
        'cases_case', 'cases_caseterm', 'cases_relatedcase', 'cases_source',
        'cases_remediationstep', 'cases_actionitem', 'cases_term', 'cases_organisation'
    ] LOOP
        EXECUTE format(
            'CREATE TRIGGER %I AFTER TRUNCATE ON %I '
            'FOR EACH STATEMENT EXECUTE FUNCTION cases_shape_emptied()',
            library_table || '_shape_emptied', library_table
        );
    END LOOP;
END
$$;

-- The library's row made again (it never is, but for a test's flush) starts a new shape too,
-- never one given before.
CREATE OR REPLACE FUNCTION cases_raise_generation() RETURNS bigint
LANGUAGE sql AS $$
    INSERT INTO cases_library (id, generation, changed_at, shape, shape_changed_at)
    SELECT 1, number, clock_timestamp(), number, clock_timestamp()
      FROM nextval('cases_library_generation') AS number
    ON CONFLICT (id) DO UPDATE
        SET generation = EXCLUDED.generation, changed_at = EXCLUDED.changed_at
    RETURNING generation
$$;

SELECT cases_raise_shape();
"""

DROP_SHAPE = """
DROP FUNCTION cases_raise_shape(), cases_shape_changed(), cases_shape_emptied() CASCADE;
CREATE OR REPLACE FUNCTION cases_raise_generation() RETURNS bigint
LANGUAGE sql AS $$
    INSERT INTO cases_library (id, generation, changed_at)
    VALUES (1, nextval('cases_library_generation'), clock_timestamp())
    ON CONFLICT (id) DO UPDATE
        SET generation = EXCLUDED.generation, changed_at = EXCLUDED.changed_at
    RETURNING generation
$$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0027_korean_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="library",
            name="shape",
            field=models.BigIntegerField(db_default=0, verbose_name="shape"),
        ),
        migrations.AddField(
            model_name="library",
            name="shape_changed_at",
            field=models.DateTimeField(null=True, verbose_name="shape changed at"),
        ),
        migrations.RunSQL(SHAPE, DROP_SHAPE),
    ]
