"""The cases app's tables, and what the database keeps up to date by itself, as migrations
0001 to 0025 left them: one migration in place of the 25.

`replaces` names those 25. A database that has recorded all of them takes this one as applied
without running it; a fresh database runs it. One that stopped part of the way cannot be
migrated by this release (CHANGELOG.md): it must reach 0025 with the release before.

The database keeps, whatever writes the library (the import, the admin, a review, plain SQL):
each case's search vectors and term ids, the library's generation, the deleted cases and the
facet counts. Their functions and triggers are the SQL text below, and only here. A change to
one is a migration of its own that carries the SQL it changes (CREATE OR REPLACE ...), as text
of its own: no migration reads a file. tests/test_database_sql.py holds the database to the
last text each function was given.

A transaction that writes whole cases, lists included (the import), sets
`incidentlib.bulk_write` to `on` for itself: the list triggers then leave the case rows alone
(the case row written after its lists derives everything once), no change event is queued per
row, and it raises the generation itself, once, at its end.
"""

import cases.durations
import cases.models
import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.core.validators
import django.db.models.constraints
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

# The search vector -----------------------------------------------------------------------------
SEARCH_VECTOR = r"""
-- English texts go through the 'english' configuration (stemmed: "timeouts" -> "timeout").
-- Korean texts are kept as written words plus every ending of a word that starts with a
-- Hangul syllable, all at the word's position, so that a prefix query ('데이터':*) finds a
-- word inside its inflected forms (스토리지의) and compounds (메타데이터가), and phrases still
-- match. A word holding Hangul that starts with something else (NFS의, S3가, timeouts가) also
-- gives that leading run (nfs, s3, timeouts) and its 'english' lexemes (timeout).
-- Weights: id and title A, summary and organisation B, trigger, symptoms, detection and
-- lessons C, remediation D. cases/listing/search.py builds the queries that read it.

-- A tsvector holds at most 1 MB, and the endings of every word of a long text would pass it:
-- only words of at most 32 characters, in a text of at most 20,000, give their endings (any
-- case text the format allows is then indexed: its words as written, if not their endings).
-- Each text is read up to its first 100,000 characters, the longest a case text may be (the
-- remediation steps, joined, may be longer).
CREATE FUNCTION cases_korean_tsvector(body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH word AS (
        SELECT lexeme, positions
        FROM unnest(to_tsvector('simple'::regconfig, left(coalesce(body, ''), 100000)))
    ), lead AS (
        SELECT substring(word.lexeme FROM '^[^가-힣]+') AS run, word.positions
        FROM word
        WHERE word.lexeme ~ '[가-힣]'
    )
    SELECT coalesce(
        string_agg(
            '''' || replace(replace(token.lexeme, '\', '\\'), '''', '''''') || ''':'
                || array_to_string(token.positions, ','),
            ' '
        ),
        ''
    )::tsvector
    FROM (
        SELECT word.lexeme, word.positions FROM word
        UNION ALL
        SELECT substr(word.lexeme, start), word.positions
        FROM word, generate_series(2, char_length(word.lexeme) - 1) AS start
        WHERE substr(word.lexeme, start, 1) ~ '[가-힣]'
          AND char_length(word.lexeme) <= 32
          AND char_length(body) <= 20000
        UNION ALL
        SELECT lead.run, lead.positions FROM lead WHERE lead.run IS NOT NULL
        UNION ALL
        SELECT stem.lexeme, lead.positions
        FROM lead, unnest(to_tsvector('english'::regconfig, lead.run)) AS stem
        WHERE lead.run IS NOT NULL
    ) AS token
$$;

-- English texts likewise, up to their first 100,000 characters.
CREATE FUNCTION cases_english_tsvector(body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('english'::regconfig, left(coalesce(body, ''), 100000))
$$;

-- A case's two vectors are made of its texts, each vectorised on its own, in this order: the
-- id, the title (A); the summary, the organisation's name (B); the trigger, symptoms,
-- detection and lessons, joined (C); the remediation steps, joined (D); each text in English,
-- then in Korean. An import derives them in its own process, a batch ahead of its writes
-- (cases/exchange/vectors.py: the Korean vectors by cases_korean_tsvector's own rule, asked
-- once a word, as migration 0027 has it; the rest with the functions
-- below, over a connection of its own), and writes them with the case rows, with
-- `incidentlib.vectors` set to `given` for its transaction: the trigger then keeps them.

-- The title alone (with the id) has a vector of its own, GIN-indexed too: a search matching
-- most of the library puts title matches first without reading every matching case's vector.
CREATE FUNCTION cases_case_title_vector(id text, title_en text, title_ko tsvector)
RETURNS tsvector
LANGUAGE sql IMMUTABLE AS $$
    SELECT setweight(to_tsvector('simple'::regconfig, id), 'A')
        || setweight(cases_english_tsvector(title_en), 'A')
        || setweight(title_ko, 'A')
$$;

-- Everything else a search reads, to follow the title's vector.
CREATE FUNCTION cases_case_body_vector(
    summary_en text, organisation text, body_en text, steps_en text,
    summary_ko tsvector, organisation_ko tsvector, body_ko tsvector, steps_ko tsvector
) RETURNS tsvector
LANGUAGE sql IMMUTABLE AS $$
    SELECT setweight(cases_english_tsvector(summary_en), 'B')
        || setweight(summary_ko, 'B')
        || setweight(cases_english_tsvector(organisation), 'B')
        || setweight(organisation_ko, 'B')
        || setweight(cases_english_tsvector(body_en), 'C')
        || setweight(body_ko, 'C')
        || setweight(cases_english_tsvector(steps_en), 'D')
        || setweight(steps_ko, 'D')
$$;
"""

# Back (cases migrated to zero): the functions dropped, each trigger function with its
# triggers (CASCADE); the tables go with their models.
DROP_SEARCH_VECTOR = """
DROP FUNCTION cases_korean_tsvector(text), cases_english_tsvector(text),
    cases_case_title_vector(text, text, tsvector),
    cases_case_body_vector(text, text, text, text, tsvector, tsvector, tsvector, tsvector);
"""

# The term ids, and the trigger that derives them and the search vectors ------------------------

# A change to a case's remediation steps or tags outside a bulk write touches the case rows it
# affects, which makes the trigger cases_case_derive derive them again: one function for each
# statement's rows, inserted, deleted, or changed (the rows before and after).
LIST_TOUCHED = r"""
CREATE FUNCTION cases_case_list_{event}() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('incidentlib.bulk_write', true) IS DISTINCT FROM 'on' THEN
        UPDATE cases_case SET search_vector = NULL{rows});
    END IF;
    RETURN NULL;
END
$$;
"""
DERIVED_COLUMNS = r"""
-- Every taxonomy term of a case (its tags, severity, root cause and the kinds of fix of its
-- remediation steps), sorted: the list filters (`term_ids && ARRAY[...]`, GIN-indexed) and the
-- facet counts (cases/listing/facet_counts.py) read this one column instead of joining the tags.
-- A step's kind counts once however many steps have it; the list triggers below derive the
-- ids again when a step is inserted, changed or deleted.

CREATE FUNCTION cases_case_term_ids(c cases_case) RETURNS integer[]
LANGUAGE sql STABLE AS $$
    SELECT ARRAY(
        SELECT term_id::integer FROM cases_caseterm WHERE case_id = c.id
        UNION
        SELECT c.severity_id::integer
        UNION
        SELECT c.root_cause_id::integer
        UNION
        SELECT kind_id::integer FROM cases_remediationstep
         WHERE case_id = c.id AND kind_id IS NOT NULL
        ORDER BY 1
    )
$$;

-- Writing a case row derives them all, once; in an import, the vectors it gives are kept.
CREATE FUNCTION cases_case_derive() RETURNS trigger
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

CREATE TRIGGER cases_case_derive
    BEFORE INSERT OR UPDATE ON cases_case
    FOR EACH ROW EXECUTE FUNCTION cases_case_derive();

""" + "".join(
    LIST_TOUCHED.format(event=event, rows=rows)
    for event, rows in [
        ("changed", "\n         WHERE id IN (SELECT case_id FROM old_rows UNION SELECT case_id FROM new_rows"),
        ("inserted", " WHERE id IN (SELECT case_id FROM new_rows"),
        ("deleted", " WHERE id IN (SELECT case_id FROM old_rows"),
    ]
) + r"""
DO $$
DECLARE
    list_table text;
BEGIN
    FOREACH list_table IN ARRAY ARRAY['cases_remediationstep', 'cases_caseterm'] LOOP
        EXECUTE format(
            'CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
            'FOR EACH STATEMENT EXECUTE FUNCTION cases_case_list_inserted()',
            list_table || '_inserted', list_table
        );
        EXECUTE format(
            'CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
            'FOR EACH STATEMENT EXECUTE FUNCTION cases_case_list_deleted()',
            list_table || '_deleted', list_table
        );
        EXECUTE format(
            'CREATE TRIGGER %I AFTER UPDATE ON %I '
            'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
            'FOR EACH STATEMENT EXECUTE FUNCTION cases_case_list_changed()',
            list_table || '_updated', list_table
        );
    END LOOP;
END
$$;

-- A renamed organisation touches its cases (its name is in their search vectors).
CREATE FUNCTION cases_organisation_renamed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE cases_case SET search_vector = NULL WHERE organisation_id = NEW.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER cases_organisation_renamed
    AFTER UPDATE OF name ON cases_organisation
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name)
    EXECUTE FUNCTION cases_organisation_renamed();
"""

DROP_DERIVED_COLUMNS = """
DROP FUNCTION cases_case_term_ids(cases_case), cases_case_derive(), cases_case_list_changed(),
    cases_case_list_inserted(), cases_case_list_deleted(), cases_organisation_renamed() CASCADE;
"""

# Case rows hold their long texts out of line (TOAST) once past 256 bytes, instead of 2 kB:
# the row itself stays small, so the list filters and facet counts, which scan many rows for
# their term ids, dates and review, read a few hundred bytes a case instead of kilobytes.
# The columns those scans read stay in the row (MAIN: compressed if need be, never out of
# line). The search vector, some 8 KB a case, is stored out of line as it is (EXTERNAL): pglz
# never gains a quarter on lexemes and positions, and the failed attempt took a sixth of the
# writing backend's time in an import (perf, 10,000 cases).
NARROW_ROWS = """
ALTER TABLE cases_case SET (toast_tuple_target = 256);
ALTER TABLE cases_case ALTER COLUMN term_ids SET STORAGE MAIN;
ALTER TABLE cases_case ALTER COLUMN title_vector SET STORAGE MAIN;
ALTER TABLE cases_case ALTER COLUMN search_vector SET STORAGE EXTERNAL;
"""
WIDE_ROWS = """
ALTER TABLE cases_case RESET (toast_tuple_target);
ALTER TABLE cases_case ALTER COLUMN term_ids SET STORAGE EXTENDED;
ALTER TABLE cases_case ALTER COLUMN title_vector SET STORAGE EXTENDED;
ALTER TABLE cases_case ALTER COLUMN search_vector SET STORAGE EXTENDED;
"""

# The library's generation ----------------------------------------------------------------------
GENERATION = r"""
CREATE SEQUENCE cases_library_generation;

-- One number that every committed change to what the public pages show replaces with a new
-- one: a case or any of its lists, a term, an organisation. Pages and counts are cached under
-- it (cases/caching.py), so a cache can never answer with what a write made stale. It comes
-- from a sequence, so that no number is ever given twice, even after the table is emptied.
-- It is raised at commit (deferred triggers), once per transaction: the row lock it takes is
-- held for the commit only, and a reader never sees the new number before the new content.

CREATE FUNCTION cases_raise_generation() RETURNS bigint
LANGUAGE sql AS $$
    INSERT INTO cases_library (id, generation, changed_at)
    VALUES (1, nextval('cases_library_generation'), clock_timestamp())
    ON CONFLICT (id) DO UPDATE
        SET generation = EXCLUDED.generation, changed_at = EXCLUDED.changed_at
    RETURNING generation
$$;

CREATE FUNCTION cases_library_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('incidentlib.generation_raised', true)
            IS DISTINCT FROM txid_current()::text THEN
        PERFORM cases_raise_generation();
        PERFORM set_config('incidentlib.generation_raised', txid_current()::text, true);
    END IF;
    -- This transaction's changes to the facet counts, folded (see cases_case_counted below).
    IF current_setting('incidentlib.counts_changed', true) IS NOT DISTINCT FROM txid_current()::text THEN
        PERFORM cases_fold_facet_counts();
        PERFORM set_config('incidentlib.counts_changed', '', true);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION cases_library_emptied() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM cases_raise_generation();
    RETURN NULL;
END
$$;

DO $$
DECLARE
    library_table text;
BEGIN
    FOREACH library_table IN ARRAY ARRAY[
        'cases_case', 'cases_caseterm', 'cases_relatedcase', 'cases_source',
        'cases_remediationstep', 'cases_actionitem', 'cases_term', 'cases_organisation'
    ] LOOP
        EXECUTE format(
            'CREATE CONSTRAINT TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I '
            'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW '
            'WHEN (current_setting(''incidentlib.bulk_write'', true) IS DISTINCT FROM ''on'') '
            'EXECUTE FUNCTION cases_library_changed()',
            library_table || '_changed', library_table
        );
        EXECUTE format(
            'CREATE TRIGGER %I AFTER TRUNCATE ON %I '
            'FOR EACH STATEMENT EXECUTE FUNCTION cases_library_emptied()',
            library_table || '_emptied', library_table
        );
    END LOOP;
END
$$;

-- The library starts at a first generation.
SELECT cases_raise_generation();
"""

DROP_GENERATION = """
DROP FUNCTION cases_raise_generation(), cases_library_changed(), cases_library_emptied() CASCADE;
DROP SEQUENCE cases_library_generation;
"""

# Deleted cases ---------------------------------------------------------------------------------
DELETED_CASES = r"""
-- Each deleted case's id and the time of the deleting transaction (now(): a sync time taken
-- before the deletion is never later), so that a copy kept in sync learns of it
-- (/api/cases/deleted/?since=); whatever deletes (the admin, SQL), in a bulk write too. A case
-- made again under the same id takes its id out (the copy then finds it by updated_since).
-- Emptying the case table (TRUNCATE) keeps no record. Each keeps whether the case was ever
-- reviewed (`once_reviewed`): with drafts hidden, a draft the public never saw is never
-- named there.

CREATE FUNCTION cases_case_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO cases_deletedcase (case_id, deleted_at, once_reviewed)
    SELECT id, now(), once_reviewed FROM old_rows
    ON CONFLICT (case_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at,
        once_reviewed = cases_deletedcase.once_reviewed OR EXCLUDED.once_reviewed;
    RETURN NULL;
END
$$;

CREATE FUNCTION cases_case_made_again() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM cases_deletedcase WHERE case_id IN (SELECT id FROM new_rows);
    RETURN NULL;
END
$$;

CREATE TRIGGER cases_case_deleted AFTER DELETE ON cases_case
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cases_case_deleted();
CREATE TRIGGER cases_case_made_again AFTER INSERT ON cases_case
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cases_case_made_again();
"""

DROP_DELETED_CASES = """
DROP FUNCTION cases_case_deleted(), cases_case_made_again() CASCADE;
"""

# The library's facet counts --------------------------------------------------------------------
FACET_COUNTS = r"""
-- How many cases have each key, by review state, for the counts over the whole library (the
-- home page, /cases/, /taxonomy/, /orgs/, the API: cases/listing/facet_counts.py), so that none of
-- them counts the library after a write. A case's keys: its term ids, its organisation's id
-- negated, and 0 for a draft or -2147483647 for a reviewed case (cases_case_keys; the facet
-- counts of a selection unnest the same keys). The same counts are kept within each term
-- (`within`, the term's id; 0 is the whole library): how many of the cases having that term
-- have each key, the counts of a term's page and of a list filtered by one term.
--
-- The rows are changes, added and never updated while the cases are written, so that writers
-- never wait on each other for them: each statement that writes cases adds, per count, the
-- cases it added and removed. At its commit (the deferred trigger that raises the
-- generation) a transaction folds the rows of each count it changed into one; the rows of a
-- transaction still running stay out of the fold, and that transaction folds them.
-- An import (bulk_write) adds none: it counts the whole library again at its end. A reader
-- sums the rows.

CREATE FUNCTION cases_case_keys(term_ids integer[], organisation_id bigint, reviewed boolean)
RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT term_ids || (-organisation_id)::integer
        || CASE WHEN reviewed THEN -2147483647 ELSE 0 END
$$;

-- Each key of a case, within the whole library (0) and within each of its terms.
CREATE FUNCTION cases_case_counts(term_ids integer[], organisation_id bigint, reviewed boolean)
RETURNS TABLE (within integer, key integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT within, key
      FROM unnest(0 || term_ids) AS within,
           unnest(cases_case_keys(term_ids, organisation_id, reviewed)) AS key
$$;

CREATE FUNCTION cases_case_counted() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    added bigint;
BEGIN
    IF current_setting('incidentlib.bulk_write', true) IS NOT DISTINCT FROM 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO cases_facetcount (within, key, reviewed, cases, txid)
        SELECT counted.within, counted.key, new_rows.reviewed_at IS NOT NULL, count(*), txid_current()
          FROM new_rows, cases_case_counts(
              new_rows.term_ids, new_rows.organisation_id, new_rows.reviewed_at IS NOT NULL
          ) AS counted
         GROUP BY 1, 2, 3;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO cases_facetcount (within, key, reviewed, cases, txid)
        SELECT counted.within, counted.key, old_rows.reviewed_at IS NOT NULL, -count(*), txid_current()
          FROM old_rows, cases_case_counts(
              old_rows.term_ids, old_rows.organisation_id, old_rows.reviewed_at IS NOT NULL
          ) AS counted
         GROUP BY 1, 2, 3;
    ELSE
        INSERT INTO cases_facetcount (within, key, reviewed, cases, txid)
        SELECT within, key, reviewed, sum(change), txid_current()
          FROM (
              SELECT counted.within, counted.key, old_rows.reviewed_at IS NOT NULL, -1
                FROM old_rows, cases_case_counts(
                    old_rows.term_ids, old_rows.organisation_id, old_rows.reviewed_at IS NOT NULL
                ) AS counted
              UNION ALL
              SELECT counted.within, counted.key, new_rows.reviewed_at IS NOT NULL, 1
                FROM new_rows, cases_case_counts(
                    new_rows.term_ids, new_rows.organisation_id, new_rows.reviewed_at IS NOT NULL
                ) AS counted
          ) AS changes (within, key, reviewed, change)
         GROUP BY 1, 2, 3
        HAVING sum(change) <> 0;
    END IF;
    GET DIAGNOSTICS added = ROW_COUNT;
    IF added > 0 THEN
        PERFORM set_config('incidentlib.counts_changed', txid_current()::text, true);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER cases_case_counted_insert
    AFTER INSERT ON cases_case REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cases_case_counted();
CREATE TRIGGER cases_case_counted_update
    AFTER UPDATE ON cases_case REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cases_case_counted();
CREATE TRIGGER cases_case_counted_delete
    AFTER DELETE ON cases_case REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cases_case_counted();

-- One row per count (within, key, state) this transaction changed: its rows and those of the
-- transactions committed before, folded; a concurrent fold waits for this one and leaves the
-- rows it folded alone. A change keeps its transaction's id (txid) until it is folded.
CREATE FUNCTION cases_fold_facet_counts() RETURNS void
LANGUAGE sql AS $$
    WITH changed AS (
        SELECT DISTINCT within, key, reviewed FROM cases_facetcount WHERE txid = txid_current()
    ), folded AS (
        DELETE FROM cases_facetcount AS counts USING changed
         WHERE counts.within = changed.within AND counts.key = changed.key
           AND counts.reviewed = changed.reviewed
        RETURNING counts.within, counts.key, counts.reviewed, counts.cases
    )
    INSERT INTO cases_facetcount (within, key, reviewed, cases)
    SELECT within, key, reviewed, sum(cases) FROM folded
     GROUP BY within, key, reviewed HAVING sum(cases) <> 0
$$;

-- The whole library counted again (an import's end): one statement, so that the rows it
-- replaces and the cases it counts are those of one snapshot.
CREATE FUNCTION cases_count_facets_again() RETURNS void
LANGUAGE sql AS $$
    WITH emptied AS (DELETE FROM cases_facetcount)
    INSERT INTO cases_facetcount (within, key, reviewed, cases)
    SELECT counted.within, counted.key, cases_case.reviewed_at IS NOT NULL, count(*)
      FROM cases_case,
           cases_case_counts(term_ids, organisation_id, reviewed_at IS NOT NULL) AS counted
     GROUP BY 1, 2, 3
$$;

-- Emptying the case table empties the counts.
CREATE FUNCTION cases_case_emptied() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM cases_facetcount;
    RETURN NULL;
END
$$;

CREATE TRIGGER cases_case_counts_emptied
    AFTER TRUNCATE ON cases_case
    FOR EACH STATEMENT EXECUTE FUNCTION cases_case_emptied();
"""

DROP_FACET_COUNTS = """
DROP FUNCTION cases_case_keys(integer[], bigint, boolean), cases_case_counted(),
    cases_case_counts(integer[], bigint, boolean), cases_fold_facet_counts(),
    cases_count_facets_again(), cases_case_emptied() CASCADE;
"""

# The planner told what a match costs -----------------------------------------------------------
# PostgreSQL counts matching a search vector as cheap as comparing two numbers, and so would
# rather read every case's vector (kept out of line) than ask the GIN index: a second for a word
# most of 100,000 cases hold, against 40 ms. Its real cost, told to the planner, makes it ask the
# index. Changing a function of pg_catalog needs a superuser, and pg_dump does not carry it: a
# database restored from a dump, or migrated by a role that is not one, has a superuser run this
# once (docs/caching.md, "The planner told what a match costs"). Without it searches work,
# slower at scale.
SEARCH_MATCH_COST = "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) COST 100"


def tell_the_planner_what_a_match_costs(apps, schema_editor):
    import warnings

    from django.db import DatabaseError, transaction

    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(SEARCH_MATCH_COST)
    except DatabaseError as error:
        warnings.warn(
            f"{SEARCH_MATCH_COST} needs a superuser ({error}); run it as one for fast searches "
            'at scale (docs/caching.md, "The planner told what a match costs")',
            stacklevel=1,
        )


# The Reviewer group ----------------------------------------------------------------------------
REVIEWER_PERMISSIONS = {
    "case": ["view", "change", "review"],
    "source": ["view", "add", "change", "delete"],
    "remediationstep": ["view", "add", "change", "delete"],
    "actionitem": ["view", "add", "change", "delete"],
    "caseterm": ["view", "add", "change", "delete"],
    "relatedcase": ["view", "add", "change", "delete"],
    "term": ["view"],
    "organisation": ["view"],
}


def create_reviewer_group(apps, schema_editor):
    """The Reviewer group: may edit cases and approve them (cases.review_case)."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.contenttypes.management import create_contenttypes

    # Permissions are normally made after all migrations; the group needs them now.
    app_config = apps.get_app_config("cases")
    app_config.models_module = True
    create_contenttypes(app_config, apps=apps, verbosity=0)
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name="Reviewer")
    codenames = [
        "review_case" if action == "review" else f"{action}_{model}"
        for model, actions in REVIEWER_PERMISSIONS.items()
        for action in actions
    ]
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="cases", codename__in=codenames)
    )


def remove_reviewer_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="Reviewer").delete()


def bilingual(name, label, required=False):
    """The English and Korean columns of a case's text (cases.models' english_text and
    korean_text as they are at 0025)."""
    longest = django.core.validators.MaxLengthValidator(100000)
    english = {"validators": [longest, django.core.validators.MinLengthValidator(1)]}
    if not required:
        english = {"blank": True, "null": True, "validators": [longest]}
    return [
        (f"{name}_en", models.TextField(**english, verbose_name=f"{label} (English)")),
        (f"{name}_ko", models.TextField(blank=True, null=True, validators=[longest], verbose_name=f"{label} (Korean)")),
    ]


# A case's texts: (column name, label, required), each in English and Korean.
CASE_TEXTS = [("title", "title", True), ("summary", "summary", True), ("trigger", "trigger")]
CASE_TEXTS += [("symptoms_text", "symptoms"), ("detection", "detection"), ("lessons", "lessons")]


class Migration(migrations.Migration):
    replaces = [
        ("cases", "0001_initial"),
        ("cases", "0002_review_permission"),
        ("cases", "0003_search"),
        ("cases", "0004_case_version"),
        ("cases", "0005_search_mixed_korean_words"),
        ("cases", "0006_inline_field_labels"),
        ("cases", "0007_derived_columns_and_generation"),
        ("cases", "0008_case_changed_index"),
        ("cases", "0009_term_needs_label"),
        ("cases", "0010_case_translations"),
        ("cases", "0011_remediation_kind"),
        ("cases", "0012_case_duration_seconds"),
        ("cases", "0013_deleted_case"),
        ("cases", "0014_import_korean_vectors"),
        ("cases", "0015_facet_counts"),
        ("cases", "0016_fewer_list_indexes"),
        ("cases", "0017_search_vector_stored_uncompressed"),
        ("cases", "0018_facet_counts_within_terms"),
        ("cases", "0019_organisation_pages_by_date"),
        ("cases", "0020_component_database_korean_label"),
        ("cases", "0021_case_term_names"),
        ("cases", "0022_address_host_readable"),
        ("cases", "0023_source_url_with_case"),
        ("cases", "0024_once_reviewed"),
        ("cases", "0025_imported_change"),
    ]

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name='DeletedCase',
            fields=[
                ('case_id', models.CharField(max_length=20, primary_key=True, serialize=False, verbose_name='case id')),
                ('deleted_at', models.DateTimeField(verbose_name='deleted at')),
                ('once_reviewed', models.BooleanField(default=True, verbose_name='once reviewed')),
            ],
            options={'verbose_name': 'deleted case', 'verbose_name_plural': 'deleted cases', 'indexes': [models.Index(fields=['-deleted_at', 'case_id'], name='deleted_case_since_idx')]},
        ),
        migrations.CreateModel(
            name='FacetCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.IntegerField()),
                ('reviewed', models.BooleanField()),
                ('cases', models.IntegerField()),
                ('within', models.IntegerField(default=0)),
                ('txid', models.BigIntegerField(editable=False, null=True)),
            ],
            options={'verbose_name': 'facet count', 'indexes': [models.Index(fields=['within', 'key'], name='facetcount_within_idx'), models.Index(condition=models.Q(('txid__isnull', False)), fields=['txid'], name='facetcount_unfolded_idx')]},
        ),
        migrations.CreateModel(
            name='ImportedChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('case_id', models.CharField(max_length=20, verbose_name='case id')),
                ('imported_at', models.DateTimeField(verbose_name='imported at')),
                ('file', models.TextField(verbose_name='file')),
                ('fields', django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), default=list, size=None, verbose_name='fields')),
                ('outcome', models.CharField(blank=True, default='', max_length=20, verbose_name='outcome')),
            ],
            options={'verbose_name': 'imported change', 'verbose_name_plural': 'imported changes', 'indexes': [models.Index(fields=['case_id', 'imported_at'], name='imported_change_case_idx')]},
        ),
        migrations.CreateModel(
            name='Library',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('generation', models.BigIntegerField(verbose_name='generation')),
                ('changed_at', models.DateTimeField(verbose_name='changed at')),
            ],
            options={'verbose_name': 'library state', 'constraints': [models.CheckConstraint(condition=models.Q(('id', 1)), name='library_one_row')]},
        ),
        migrations.CreateModel(
            name='Organisation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.CharField(max_length=64, unique=True, validators=[django.core.validators.RegexValidator('^[a-z0-9]+(?:-[a-z0-9]+)*\\Z', 'Use lowercase letters, digits and single hyphens.')], verbose_name='slug')),
                ('name', models.CharField(max_length=200, verbose_name='name')),
            ],
            options={'verbose_name': 'organisation', 'verbose_name_plural': 'organisations', 'ordering': ['name'], 'constraints': [models.CheckConstraint(condition=models.Q(('slug__regex', '^[a-z0-9]+(?:-[a-z0-9]+)*$')), name='organisation_slug_format'), models.CheckConstraint(condition=models.Q(('name', ''), _negated=True), name='organisation_name_not_empty')]},
        ),
        migrations.CreateModel(
            name='Term',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('facet', models.CharField(choices=[('domain', 'Domain'), ('symptoms', 'Symptoms'), ('components', 'Components'), ('root_cause', 'Root cause'), ('contributing', 'Contributing factors'), ('severity', 'Severity'), ('fix', 'Kind of fix')], max_length=20, verbose_name='facet')),
                ('slug', models.CharField(max_length=64, validators=[django.core.validators.RegexValidator('^[a-z0-9]+(?:-[a-z0-9]+)*\\Z', 'Use lowercase letters, digits and single hyphens.')], verbose_name='slug')),
                ('label_en', models.CharField(max_length=200, verbose_name='label (English)')),
                ('label_ko', models.CharField(blank=True, max_length=200, verbose_name='label (Korean)')),
                ('description_en', models.TextField(blank=True, verbose_name='description (English)')),
                ('description_ko', models.TextField(blank=True, verbose_name='description (Korean)')),
                ('needs_label', models.BooleanField(default=True, help_text='Made by an import, with a label made from its slug.', verbose_name='needs a label')),
            ],
            options={'verbose_name': 'taxonomy term', 'verbose_name_plural': 'taxonomy terms', 'ordering': ['facet', 'slug'], 'constraints': [models.UniqueConstraint(fields=('facet', 'slug'), name='term_one_slug_per_facet'), models.CheckConstraint(condition=models.Q(('facet__in', ['domain', 'symptoms', 'components', 'root_cause', 'contributing', 'severity', 'fix'])), name='term_facet_is_known'), models.CheckConstraint(condition=models.Q(('slug__regex', '^[a-z0-9]+(?:-[a-z0-9]+)*$')), name='term_slug_format'), models.CheckConstraint(condition=models.Q(('label_en', ''), _negated=True), name='term_label_en_not_empty')]},
        ),
        migrations.CreateModel(
            name='Case',
            fields=[
                ('id', models.CharField(max_length=20, primary_key=True, serialize=False, validators=[django.core.validators.RegexValidator('^[A-Z][A-Z0-9]{0,9}-[0-9]{1,8}\\Z', 'Enter a case id such as IL-0137.')], verbose_name='case id')),
                ('date', models.DateField(verbose_name='date')),
                ('date_kind', models.CharField(choices=[('occurred', 'occurred'), ('detected', 'detected'), ('reported', 'reported'), ('published', 'published')], max_length=20, verbose_name='what the date is')),
                *(field for text in CASE_TEXTS for field in bilingual(*text)),
                ('impact_scope', models.TextField(blank=True, null=True, validators=[django.core.validators.MaxLengthValidator(4000)], verbose_name='impact: scope')),
                ('impact_users', models.TextField(blank=True, null=True, validators=[django.core.validators.MaxLengthValidator(4000)], verbose_name='impact: users')),
                ('impact_region', models.TextField(blank=True, null=True, validators=[django.core.validators.MaxLengthValidator(4000)], verbose_name='impact: region')),
                ('detected_after', models.CharField(blank=True, max_length=32, null=True, validators=[django.core.validators.RegexValidator('^P(?!\\Z)([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+S)?)?\\Z', 'Enter an ISO 8601 duration such as PT45M, PT8H or P2DT3H.')], verbose_name='detected after')),
                ('resolved_after', models.CharField(blank=True, max_length=32, null=True, validators=[django.core.validators.RegexValidator('^P(?!\\Z)([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+S)?)?\\Z', 'Enter an ISO 8601 duration such as PT45M, PT8H or P2DT3H.')], verbose_name='resolved after')),
                ('docs', models.JSONField(blank=True, default=list, verbose_name='further documents')),
                ('url', models.CharField(blank=True, max_length=2000, null=True, validators=[cases.models.validate_http_url], verbose_name='canonical address')),
                ('written_by', models.CharField(blank=True, max_length=150, null=True, verbose_name='written by')),
                ('reviewed_by', models.CharField(blank=True, max_length=150, null=True, verbose_name='reviewed by')),
                ('reviewed_at', models.DateTimeField(blank=True, null=True, verbose_name='reviewed at')),
                ('updated_at', models.DateTimeField(verbose_name='updated at')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='added to the library')),
                ('recurrence_of', models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='recurrences', to='cases.case', verbose_name='recurrence of')),
                ('reviewer', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='reviewer account')),
                ('organisation', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='cases', to='cases.organisation', verbose_name='organisation')),
                ('root_cause', models.ForeignKey(limit_choices_to={'facet': 'root_cause'}, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.term', verbose_name='root cause')),
                ('severity', models.ForeignKey(limit_choices_to={'facet': 'severity'}, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.term', verbose_name='severity')),
                ('search_vector', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('changed_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='changed at')),
                ('changed_by', models.CharField(blank=True, editable=False, max_length=150, null=True, verbose_name='changed by')),
                ('version', models.PositiveIntegerField(default=1, editable=False, verbose_name='version')),
                ('term_ids', django.contrib.postgres.fields.ArrayField(base_field=models.IntegerField(), default=list, editable=False, size=None)),
                ('title_vector', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('translations', models.JSONField(blank=True, default=dict, editable=False, verbose_name='translations')),
                ('detected_seconds', models.GeneratedField(db_persist=True, expression=cases.durations.DurationSeconds('detected_after'), output_field=models.FloatField(), verbose_name='seconds to detect')),
                ('resolved_seconds', models.GeneratedField(db_persist=True, expression=cases.durations.DurationSeconds('resolved_after'), output_field=models.FloatField(), verbose_name='seconds to resolve')),
                ('once_reviewed', models.BooleanField(default=False, editable=False, verbose_name='once reviewed')),
            ],
            options={
                'verbose_name': 'case',
                'verbose_name_plural': 'cases',
                'ordering': ['-date', 'id'],
                'permissions': [('review_case', 'Can approve a case or return it to draft')],
                'indexes': [
                    models.Index(fields=['-date', 'id'], name='case_date_idx'),
                    models.Index(fields=['organisation', '-date', 'id'], name='case_organisation_date_idx'),
                    models.Index(fields=['-updated_at'], name='case_updated_idx'),
                    models.Index(fields=['changed_at', 'id'], name='case_changed_idx'),
                    models.Index(fields=['-reviewed_at'], name='case_reviewed_idx'),
                    django.contrib.postgres.indexes.GinIndex(fields=['search_vector'], name='case_search_idx'),
                    django.contrib.postgres.indexes.GinIndex(fields=['title_vector'], name='case_title_search_idx'),
                    django.contrib.postgres.indexes.GinIndex(fields=['term_ids'], name='case_term_ids_idx'),
                    models.Index(fields=['detected_seconds'], name='case_detected_seconds_idx'),
                    models.Index(fields=['resolved_seconds'], name='case_resolved_seconds_idx'),
                    models.Index(fields=['recurrence_of'], name='case_recurrence_of_idx'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('id__regex', '^[A-Z][A-Z0-9]{0,9}-[0-9]{1,8}$')), name='case_id_format'),
                    models.CheckConstraint(condition=models.Q(('date_kind__in', ['occurred', 'detected', 'reported', 'published'])), name='case_date_kind_is_known'),
                    models.CheckConstraint(condition=models.Q(models.Q(('title_en', ''), _negated=True), models.Q(('summary_en', ''), _negated=True)), name='case_english_title_and_summary', violation_error_message='A case needs an English title and summary.'),
                    models.CheckConstraint(condition=models.Q(models.Q(('reviewed_at__isnull', True), ('reviewed_by__isnull', True)), models.Q(('reviewed_at__isnull', False), ('reviewed_by__isnull', False)), _connector='OR'), name='case_review_both_or_neither', violation_error_message='A reviewed case has both a reviewer and a review time; a draft has neither.'),
                    models.CheckConstraint(condition=models.Q(('recurrence_of', models.F('id')), _negated=True), name='case_not_own_recurrence', violation_error_message='A case cannot be a recurrence of itself.'),
                    models.CheckConstraint(condition=models.Q(('url__isnull', True), ('url__regex', '^https?://[^\\s]+$'), _connector='OR'), name='case_url_is_http'),
                    models.CheckConstraint(condition=models.Q(('detected_after__isnull', True), ('detected_after__regex', '^P(?!$)(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$'), _connector='OR'), name='case_detected_after_format'),
                    models.CheckConstraint(condition=models.Q(('resolved_after__isnull', True), ('resolved_after__regex', '^P(?!$)(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$'), _connector='OR'), name='case_resolved_after_format'),
                ],
            },
        ),
        migrations.CreateModel(
            name='RelatedCase',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField()),
                ('from_case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='related_links', to='cases.case')),
                ('to_case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='related_from_links', to='cases.case', verbose_name='related case')),
            ],
            options={
                'verbose_name': 'related case',
                'verbose_name_plural': 'related cases',
                'ordering': ['position'],
                'indexes': [
                    models.Index(fields=['to_case'], name='related_case_to_idx'),
                ],
                'constraints': [
                    models.UniqueConstraint(fields=('from_case', 'to_case'), name='related_case_once'),
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('from_case', 'position'), name='related_case_position_unique'),
                    models.CheckConstraint(condition=models.Q(('from_case', models.F('to_case')), _negated=True), name='related_case_not_itself', violation_error_message='A case cannot be related to itself.'),
                ],
            },
        ),
        migrations.CreateModel(
            name='Source',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='position')),
                ('url', models.CharField(max_length=2000, validators=[cases.models.validate_http_url], verbose_name='address')),
                ('kind', models.CharField(max_length=64, validators=[django.core.validators.RegexValidator('^[a-z0-9]+(?:-[a-z0-9]+)*\\Z', 'Use lowercase letters, digits and single hyphens.')], verbose_name='kind')),
                ('license', models.CharField(blank=True, max_length=200, null=True, verbose_name='licence')),
                ('archived', models.CharField(blank=True, max_length=2000, null=True, validators=[cases.models.validate_http_url], verbose_name='archived copy')),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='sources', to='cases.case')),
            ],
            options={
                'verbose_name': 'source',
                'verbose_name_plural': 'sources',
                'ordering': ['position', 'id'],
                'indexes': [
                    models.Index(fields=['url'], include=('case',), name='source_url_case_idx'),
                ],
                'constraints': [
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='source_position_unique'),
                    models.CheckConstraint(condition=models.Q(('url__regex', '^https?://[^\\s]+$')), name='source_url_is_http'),
                    models.CheckConstraint(condition=models.Q(('archived__isnull', True), ('archived__regex', '^https?://[^\\s]+$'), _connector='OR'), name='source_archived_is_http'),
                    models.CheckConstraint(condition=models.Q(('kind__regex', '^[a-z0-9]+(?:-[a-z0-9]+)*$')), name='source_kind_format'),
                ],
            },
        ),
        migrations.CreateModel(
            name='RemediationStep',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='position')),
                *bilingual('text', 'text', required=True),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='remediation_steps', to='cases.case')),
                ('kind', models.ForeignKey(blank=True, limit_choices_to={'facet': 'fix'}, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.term', verbose_name='kind of fix')),
            ],
            options={
                'verbose_name': 'remediation step',
                'verbose_name_plural': 'remediation',
                'ordering': ['position', 'id'],
                'abstract': False,
                'constraints': [
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='remediation_position_unique'),
                    models.CheckConstraint(condition=models.Q(('text_en', ''), _negated=True), name='remediation_text_en'),
                ],
            },
        ),
        migrations.CreateModel(
            name='CaseTerm',
            options={
                'verbose_name': 'term of a case',
                'verbose_name_plural': 'terms of cases',
                'ordering': ['position'],
                'indexes': [
                    models.Index(fields=['term', 'case'], name='case_term_by_term_idx'),
                ],
                'constraints': [
                    models.UniqueConstraint(fields=('case', 'term'), name='case_term_once'),
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='case_term_position_unique'),
                ],
            },
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField()),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='case_terms', to='cases.case')),
                ('term', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='case_links', to='cases.term', verbose_name='taxonomy term')),
            ],
        ),
        migrations.CreateModel(
            name='ActionItem',
            options={'verbose_name': 'action item', 'verbose_name_plural': 'action items', 'ordering': ['position', 'id'], 'abstract': False, 'constraints': [models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='action_item_position_unique'), models.CheckConstraint(condition=models.Q(('text_en', ''), _negated=True), name='action_item_text_en')]},
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='position')),
                *bilingual('text', 'text', required=True),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='action_items', to='cases.case')),
            ],
        ),
        migrations.AddField(
            model_name='case',
            name='related',
            field=models.ManyToManyField(blank=True, related_name='related_from', through='cases.RelatedCase', to='cases.case', verbose_name='related cases'),
        ),
        migrations.AddField(
            model_name='case',
            name='terms',
            field=models.ManyToManyField(blank=True, related_name='cases', through='cases.CaseTerm', to='cases.term', verbose_name='tags'),
        ),
        migrations.RunSQL(NARROW_ROWS, WIDE_ROWS),
        migrations.RunSQL(SEARCH_VECTOR, DROP_SEARCH_VECTOR),
        migrations.RunSQL(DERIVED_COLUMNS, DROP_DERIVED_COLUMNS),
        migrations.RunSQL(GENERATION, DROP_GENERATION),
        migrations.RunSQL(DELETED_CASES, DROP_DELETED_CASES),
        migrations.RunSQL(FACET_COUNTS, DROP_FACET_COUNTS),
        migrations.RunPython(tell_the_planner_what_a_match_costs, migrations.RunPython.noop),
        migrations.RunPython(create_reviewer_group, remove_reviewer_group),
    ]
