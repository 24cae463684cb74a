"""The SQL text of migration 0001_squashed_0025_imported_change: the functions and triggers
by which the database keeps each case's search vectors and term ids, the library's generation,
the deleted cases and the facet counts, as migrations 0001 to 0025 left them.

Frozen with that migration, as its own text (Django's migration loader skips a module whose
name starts with "_"): never edited. A change to a function is a migration of its own that
carries the SQL it changes.
"""

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
