"""The changes of cases' texts, kept a while, so that a search's page can outlive a write that
does not change it.

A search's page (`/cases/?q=`) shows the cases whose words match, in an order that only
their words, their titles and the shape decide (cases/listing/search.py), with counts of
the same cases. A write that changes a case's texts (its title, a summary) changes that page
only if the case's words, or its title's, match the search's words differently than before,
or if the page shows the case. So each such write leaves here the case's search vectors as
they were before it, with the transaction that made it: a search's page kept in the cache
(cases/caching.py) is served again while no change made since the page was read (one its
snapshot did not see) matches the search's words differently before and after, and while
the rows it shows are the same.

The import writes no row here: it raises the shape at its end (0028), which makes every
search's page anew. The worker drops the rows older than a while (cases/text_changes.py),
and `cases_textchange_pruned` keeps the newest transaction it dropped a row of: a page read
by a snapshot that had not seen that one cannot be checked, and is made again.
"""

from django.db import migrations

TEXT_CHANGES = r"""
CREATE TABLE cases_textchange (
    id bigserial PRIMARY KEY,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    case_id varchar(20) NOT NULL,
    title_before tsvector,
    search_before tsvector,
    changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX cases_textchange_xid ON cases_textchange (xid);

CREATE TABLE cases_textchange_pruned (
    id integer PRIMARY KEY CHECK (id = 1),
    through xid8 NOT NULL
);

CREATE FUNCTION cases_case_text_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('incidentlib.bulk_write', true) = 'on' THEN
        RETURN NULL;  -- the import raises the shape at its end
    END IF;
    INSERT INTO cases_textchange (case_id, title_before, search_before)
    VALUES (OLD.id, OLD.title_vector, OLD.search_vector);
    RETURN NULL;
END
$$;

CREATE TRIGGER cases_case_text_changed
    AFTER UPDATE ON cases_case
    FOR EACH ROW
    WHEN (OLD.title_vector IS DISTINCT FROM NEW.title_vector
          OR OLD.search_vector IS DISTINCT FROM NEW.search_vector)
    EXECUTE FUNCTION cases_case_text_changed();
"""

DROP_TEXT_CHANGES = """
DROP TRIGGER cases_case_text_changed ON cases_case;
DROP FUNCTION cases_case_text_changed();
DROP TABLE cases_textchange, cases_textchange_pruned;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0028_library_shape"),
    ]

    operations = [migrations.RunSQL(TEXT_CHANGES, DROP_TEXT_CHANGES)]
