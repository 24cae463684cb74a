# Whether each case was ever reviewed (Case.once_reviewed, DeletedCase.once_reviewed), kept by
# the database (cases/database.sql: cases_case_derive and cases_case_deleted, as written
# below, a copy of their own that this migration never reads from the file): with
# HIDE_DRAFTS, /api/cases/deleted/ names no draft the public never saw.
#
# The stored cases: those reviewed now were (a case returned to draft before this counts as
# never reviewed: nothing kept says otherwise). The deletions kept: listed before, they stay
# listed. The backfill runs with the case table's own triggers off: it changes nothing a page
# shows, and would derive every reviewed case's search vector again.
# Back: the two functions as 0018 left them, then the columns dropped.

from django.db import migrations, models

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION cases_case_derive() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    organisation text;
    steps_en text;
    steps_ko text;
BEGIN
    IF current_setting('incidentlib.vectors', true) IS DISTINCT FROM 'given'
            OR NEW.title_vector IS NULL OR NEW.search_vector IS NULL
            OR (TG_OP = 'UPDATE' AND NEW.search_vector IS NOT DISTINCT FROM OLD.search_vector) THEN
        SELECT name INTO organisation FROM cases_organisation WHERE id = NEW.organisation_id;
        SELECT string_agg(text_en, E'\n' ORDER BY position),
               string_agg(text_ko, E'\n' ORDER BY position)
          INTO steps_en, steps_ko
          FROM cases_remediationstep WHERE case_id = NEW.id;
        NEW.title_vector := cases_case_title_vector(
            NEW.id, NEW.title_en, cases_korean_tsvector(NEW.title_ko));
        NEW.search_vector := NEW.title_vector || cases_case_body_vector(
            NEW.summary_en,
            organisation,
            concat_ws(E'\n', NEW.trigger_en, NEW.symptoms_text_en, NEW.detection_en, NEW.lessons_en),
            steps_en,
            cases_korean_tsvector(NEW.summary_ko),
            cases_korean_tsvector(organisation),
            cases_korean_tsvector(concat_ws(E'\n',
                NEW.trigger_ko, NEW.symptoms_text_ko, NEW.detection_ko, NEW.lessons_ko)),
            cases_korean_tsvector(steps_ko));
    END IF;
    NEW.term_ids := cases_case_term_ids(NEW);
    -- Whether the public may have seen the case (drafts hidden or not): it is or was reviewed,
    -- or it is made again under the id of a deleted case that was (see "Deleted cases").
    NEW.once_reviewed := NEW.reviewed_at IS NOT NULL
        OR (TG_OP = 'UPDATE' AND OLD.once_reviewed)
        OR (TG_OP = 'INSERT' AND EXISTS (
            SELECT 1 FROM cases_deletedcase WHERE case_id = NEW.id AND once_reviewed));
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION cases_case_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO cases_deletedcase (case_id, deleted_at, once_reviewed)
    SELECT id, now(), once_reviewed FROM old_rows
    ON CONFLICT (case_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at,
        once_reviewed = cases_deletedcase.once_reviewed OR EXCLUDED.once_reviewed;
    RETURN NULL;
END
$$;
"""

FUNCTIONS_BEFORE = r"""
CREATE OR REPLACE FUNCTION cases_case_derive() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    organisation text;
    steps_en text;
    steps_ko text;
BEGIN
    IF current_setting('incidentlib.vectors', true) IS DISTINCT FROM 'given'
            OR NEW.title_vector IS NULL OR NEW.search_vector IS NULL
            OR (TG_OP = 'UPDATE' AND NEW.search_vector IS NOT DISTINCT FROM OLD.search_vector) THEN
        SELECT name INTO organisation FROM cases_organisation WHERE id = NEW.organisation_id;
        SELECT string_agg(text_en, E'\n' ORDER BY position),
               string_agg(text_ko, E'\n' ORDER BY position)
          INTO steps_en, steps_ko
          FROM cases_remediationstep WHERE case_id = NEW.id;
        NEW.title_vector := cases_case_title_vector(
            NEW.id, NEW.title_en, cases_korean_tsvector(NEW.title_ko));
        NEW.search_vector := NEW.title_vector || cases_case_body_vector(
            NEW.summary_en,
            organisation,
            concat_ws(E'\n', NEW.trigger_en, NEW.symptoms_text_en, NEW.detection_en, NEW.lessons_en),
            steps_en,
            cases_korean_tsvector(NEW.summary_ko),
            cases_korean_tsvector(organisation),
            cases_korean_tsvector(concat_ws(E'\n',
                NEW.trigger_ko, NEW.symptoms_text_ko, NEW.detection_ko, NEW.lessons_ko)),
            cases_korean_tsvector(steps_ko));
    END IF;
    NEW.term_ids := cases_case_term_ids(NEW);
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION cases_case_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO cases_deletedcase (case_id, deleted_at)
    SELECT id, now() FROM old_rows
    ON CONFLICT (case_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at;
    RETURN NULL;
END
$$;
"""

BACKFILL = """
ALTER TABLE cases_case DISABLE TRIGGER USER;
UPDATE cases_case SET once_reviewed = true WHERE reviewed_at IS NOT NULL;
ALTER TABLE cases_case ENABLE TRIGGER USER;
"""


class Migration(migrations.Migration):
    dependencies = [("cases", "0023_source_url_with_case")]

    operations = [
        migrations.AddField(
            model_name="case",
            name="once_reviewed",
            field=models.BooleanField(default=False, editable=False, verbose_name="once reviewed"),
        ),
        migrations.AddField(
            model_name="deletedcase",
            name="once_reviewed",
            field=models.BooleanField(default=True, verbose_name="once reviewed"),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.RunSQL(FUNCTIONS, FUNCTIONS_BEFORE),
    ]
