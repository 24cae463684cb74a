# An import derives the search vectors of its cases itself, a batch ahead of its writes, and
# cases_case_derive keeps them (cases/exchange/vectors.py): the title and body vector
# functions take texts and Korean vectors instead of a case row. This applies cases/database.sql
# as it was then (0014_database.sql: the file's counts of 0015 write a table made only then),
# and drops the
# functions of one argument it replaces. Back: those functions and the trigger's function
# as they were (below), and the new ones dropped.

import importlib

from django.db import migrations

derived = importlib.import_module("cases.migrations.0007_derived_columns_and_generation")

DROP_ONE_ARGUMENT_FUNCTIONS = """
DROP FUNCTION cases_case_title_vector(cases_case);
DROP FUNCTION cases_case_body_vector(cases_case);
"""

BEFORE = r"""
-- The title alone (with the id) has a vector of its own, GIN-indexed too: a search matching
-- most of the library puts title matches first without reading every matching case's vector.
CREATE OR REPLACE FUNCTION cases_case_title_vector(c cases_case) RETURNS tsvector
LANGUAGE sql IMMUTABLE AS $$
    SELECT setweight(to_tsvector('simple'::regconfig, c.id), 'A')
        || setweight(cases_english_tsvector(c.title_en), 'A')
        || setweight(cases_korean_tsvector(c.title_ko), 'A')
$$;

-- Everything else a search reads, to follow the title's vector.
CREATE OR REPLACE FUNCTION cases_case_body_vector(c cases_case) RETURNS tsvector
LANGUAGE plpgsql STABLE AS $$
DECLARE
    organisation text;
    steps_en text;
    steps_ko text;
BEGIN
    SELECT name INTO organisation FROM cases_organisation WHERE id = c.organisation_id;
    SELECT string_agg(text_en, E'\n' ORDER BY position),
           string_agg(text_ko, E'\n' ORDER BY position)
      INTO steps_en, steps_ko
      FROM cases_remediationstep WHERE case_id = c.id;
    RETURN setweight(cases_english_tsvector(c.summary_en), 'B')
        || setweight(cases_korean_tsvector(c.summary_ko), 'B')
        || setweight(cases_english_tsvector(organisation), 'B')
        || setweight(cases_korean_tsvector(organisation), 'B')
        || setweight(cases_english_tsvector(concat_ws(E'\n',
               c.trigger_en, c.symptoms_text_en, c.detection_en, c.lessons_en)), 'C')
        || setweight(cases_korean_tsvector(concat_ws(E'\n',
               c.trigger_ko, c.symptoms_text_ko, c.detection_ko, c.lessons_ko)), 'C')
        || setweight(cases_english_tsvector(steps_en), 'D')
        || setweight(cases_korean_tsvector(steps_ko), 'D');
END
$$;

-- Writing a case row derives them all, once.
CREATE OR REPLACE FUNCTION cases_case_derive() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.title_vector := cases_case_title_vector(NEW);
    NEW.search_vector := NEW.title_vector || cases_case_body_vector(NEW);
    NEW.term_ids := cases_case_term_ids(NEW);
    RETURN NEW;
END
$$;

DROP FUNCTION cases_case_title_vector(text, text, tsvector);
DROP FUNCTION cases_case_body_vector(
    text, text, text, text, tsvector, tsvector, tsvector, tsvector);
"""


class Migration(migrations.Migration):
    dependencies = [("cases", "0013_deleted_case")]

    operations = [
        migrations.RunPython(derived.apply_database_sql_0014, migrations.RunPython.noop),
        migrations.RunSQL(DROP_ONE_ARGUMENT_FUNCTIONS, BEFORE),
    ]
