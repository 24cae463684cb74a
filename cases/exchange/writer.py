"""The import's writer: the cases of a run that passed its checks, written batch by batch
inside the run's transaction, with PostgreSQL's COPY.

Before the batches, the organisations, terms and reviewers the run needs (`Writer.prepare`).
Each batch locks and compares the stored versions of its cases, replaces the lists of the
changed ones and then their rows. The transaction sets `incidentlib.bulk_write`
(cases/migrations/): the database derives each case's term ids once, when its row is written
after its lists, and the writer raises the library's generation and counts the library's
facets itself, once, at the end (`Writer.finish`). The rows carry the search vectors derived
for them (vectors.py), which the database keeps (`incidentlib.vectors`).

Of each case it replaces, the writer knows which fields change (format.changed_fields): the
review rule (import_review.py) and the Korean texts left stale (translations.carried_by_import)
follow from them, and each case created or changed gets an ImportedChange for its admin History.
"""

from django.contrib.auth import get_user_model
from django.contrib.postgres.search import SearchVectorField
from django.db import DatabaseError, models
from django.utils import timezone
from django.utils.functional import cached_property

from cases import translations
from cases.exchange import vectors
from cases.exchange.checks_across_cases import newer_in_library, stored_case_ids
from cases.exchange.format import (
    case_fields_from_exchange,
    case_to_exchange,
    changed_fields,
    format_timestamp,
    same_case,
)
from cases.exchange.import_review import review_after_import
from cases.exchange.records import Problem
from cases.models import LIST_FACETS, Case, Facet, ImportedChange, Organisation, Term
from cases.models.links import CaseTerm, RelatedCase
from cases.models.sources import Source
from cases.models.steps import ActionItem, RemediationStep
from incidentlib.database_errors import first_line


class Refused(Exception):
    """Ends the write transaction with problems (it is rolled back)."""

    def __init__(self, *problems):
        self.problems = problems


def label_from_slug(slug):
    return slug.replace("-", " ").capitalize()


def stored_for_comparison(ids):
    """The stored cases, for case_to_exchange: Case.objects.for_page() without what only the
    page shows (the citation count of each source, the titles of related cases), which
    took most of the time of a re-import."""
    return (
        Case.objects.for_page()
        .filter(id__in=ids)
        # The derived search vectors (large, and no part of the exchange format).
        .defer(*(f.name for f in Case._meta.concrete_fields if isinstance(f, SearchVectorField)))
        .select_related(None)
        .select_related("organisation", "severity", "root_cause")
        .prefetch_related(None)
        .prefetch_related(
            "sources",
            models.Prefetch(
                "remediation_steps", queryset=RemediationStep.objects.select_related("kind")
            ),
            "action_items",
            models.Prefetch("case_terms", queryset=CaseTerm.objects.select_related("term")),
            "related_links",
        )
    )


class Writer:
    """The write phase of one run, batch by batch, inside the run's transaction."""

    STAGING = "incidentlib_import_case"

    def __init__(self, run, cursor):
        self.run = run
        self.result = run.result
        self.cursor = cursor
        self.now = timezone.now()
        self.wrote = False  # whether anything was written (then the generation is raised)
        self.previous_organisations = set()
        self.staging_made = False

    # Before the batches: what is kept, organisations, terms, reviewers --------------------

    def prepare(self):
        run = self.run
        stored = set(stored_case_ids(f.case_id for f in run.facts))
        if gone := sorted(run.kept_at_check - stored):
            raise Refused(
                Problem(
                    ", ".join(map(str, run.paths)),
                    f"{', '.join(gone[:3])}{' and more' if len(gone) > 3 else ''} left the "
                    "library while the run was checked (left alone then, so never checked); "
                    "nothing was written, import it again",
                )
            )
        self.kept = set()
        if run.keep_existing:
            for facts in run.facts:
                if facts.case_id in stored:
                    self.kept.add(facts.case_id)
                    self.result.kept.append(facts.case_id)
        written = [f for f in run.facts if f.case_id not in self.kept]
        # Terms are made only for the cases written (--keep-existing skips some).
        self.result.new_terms = {
            key: [case_id for case_id in ids if case_id not in self.kept]
            for key, ids in self.result.new_terms.items()
            if any(case_id not in self.kept for case_id in ids)
        }
        self.organisation_ids = self.store_organisations(written)
        self.term_ids = self.store_terms()
        self.reviewer_ids = dict(
            get_user_model()
            .objects.filter(username__in={f.reviewed_by for f in written if f.reviewed_by})
            .values_list("username", "id")
        )

    def store_organisations(self, cases):
        names = {facts.org_slug: facts.org for facts in cases}
        if not names:
            return {}
        table = Organisation._meta.db_table
        self.cursor.execute(
            f"""
            INSERT INTO {table} (slug, name)
            SELECT * FROM unnest(%s::text[], %s::text[])
            ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name
            WHERE {table}.name IS DISTINCT FROM EXCLUDED.name
            RETURNING id
            """,
            [list(names), list(names.values())],
        )
        self.wrote |= bool(self.cursor.fetchall())
        self.cursor.execute(
            f"SELECT slug, id FROM {table} WHERE slug = ANY(%s::text[])", [list(names)]
        )
        return dict(self.cursor.fetchall())

    def store_terms(self):
        made = Term.objects.bulk_create(
            [
                Term(facet=facet, slug=slug, label_en=label_from_slug(slug))
                for facet, slug in self.result.new_terms
            ],
            ignore_conflicts=True,
        )
        self.wrote |= bool(made)
        return {
            (facet, slug): id for facet, slug, id in Term.objects.values_list("facet", "slug", "id")
        }

    # One batch ---------------------------------------------------------------------------

    def write_batch(self, batch, derived):
        """Write the cases of this batch that changed; `derived`: the future of their search
        vectors (vectors.Ahead, vectors.InPlace). Returns how many cases of the run it has
        dealt with."""
        dealt_with = len(batch)
        batch = [(facts, data) for facts, data in batch if facts.case_id not in self.kept]
        if not batch:
            return dealt_with
        ids = [facts.case_id for facts, _data in batch]
        # Locked until the run ends, so that no admin save comes between the comparison
        # below and the write (the admin locks a case's row to save it too).
        self.cursor.execute(
            f"SELECT id, organisation_id, updated_at, changed_by FROM {Case._meta.db_table} "
            "WHERE id = ANY(%s::text[]) ORDER BY id FOR UPDATE",
            [ids],
        )
        locked = {case_id: rest for case_id, *rest in self.cursor.fetchall()}
        previous = {case_id: organisation for case_id, (organisation, *_r) in locked.items()}
        stored = (
            {case.id: case_to_exchange(case) for case in stored_for_comparison(list(previous))}
            if previous
            else {}
        )
        created, updated, history = [], [], []
        now = format_timestamp(self.now)
        for facts, data in batch:
            case_id = facts.case_id
            if case_id in previous:
                # A Korean this import's English leaves stale is marked so, and says since when.
                data = translations.carried_by_import(stored[case_id], data, now)
                data = translations.dated_by_import(stored[case_id], data, now)
            if case_id not in previous:
                self.result.created.append(case_id)
                created.append(data)
                history.append((case_id, self.now, facts.file, [], ImportedChange.CREATED))
            elif same_case(stored[case_id], data):
                self.result.unchanged.append(case_id)
            else:
                _organisation, updated_at, changed_by = locked[case_id]
                if not self.run.replace_newer and updated_at > facts.updated_at:
                    # Written since the run was checked (the check found nothing then).
                    raise Refused(
                        Problem(
                            facts.file,
                            newer_in_library(facts.updated_at, updated_at, changed_by),
                            line=facts.line,
                            case_id=case_id,
                            path="updated_at",
                        )
                    )
                data, review = review_after_import(
                    stored[case_id], data, changed_fields(stored[case_id], data)
                )
                # What the write changes, the review rule's part included.
                changes = changed_fields(stored[case_id], data)
                if not changes:
                    self.result.unchanged.append(case_id)
                    continue
                self.result.updated.append(case_id)
                self.result.changes[case_id] = changes
                if review:
                    self.result.reviews[case_id] = review
                updated.append(data)
                history.append(
                    (case_id, self.now, facts.file, changes, review.outcome if review else "")
                )
                self.previous_organisations.add(previous[case_id])
        if not (created or updated):
            return dealt_with
        self.wrote = True
        try:
            if updated:
                self.delete_lists([data["id"] for data in updated])
            # The lists first: the case row written after them derives its search vector
            # and term ids from them, once (their foreign keys are checked at commit).
            self.copy_lists(created + updated)
            derived = derived.result()
            writing = {data["id"] for data in created + updated}
            if too_large := [
                facts
                for facts, _data in batch
                if facts.case_id in writing and isinstance(derived[facts.case_id], vectors.TooLarge)
            ]:
                raise Refused(
                    *(
                        Problem(
                            facts.file,
                            "its search index would be larger than PostgreSQL can hold "
                            f"({derived[facts.case_id].reason}): shorten its texts (a "
                            "Korean text of at most 20,000 characters indexes each word's "
                            "endings too, which take most of it)",
                            line=facts.line,
                            case_id=facts.case_id,
                        )
                        for facts in too_large
                    )
                )
            if created:
                self.insert_cases(created, derived)
            if updated:
                self.update_cases(updated, derived)
            self._copy(
                ImportedChange._meta.db_table,
                ("case_id", "imported_at", "file", "fields", "outcome"),
                history,
            )
        except DatabaseError as error:
            first, last = batch[0][0], batch[-1][0]
            raise Refused(
                Problem(
                    first.file,
                    f"the database refused the cases from line {first.line} to "
                    f"{last.file}:{last.line}: {first_line(error)}",
                    line=first.line,
                )
            ) from error
        return dealt_with

    def delete_lists(self, ids):
        for model, column in (
            (CaseTerm, "case_id"),
            (RelatedCase, "from_case_id"),
            (Source, "case_id"),
            (RemediationStep, "case_id"),
            (ActionItem, "case_id"),
        ):
            self.cursor.execute(
                f"DELETE FROM {model._meta.db_table} WHERE {column} = ANY(%s::text[])", [ids]
            )

    def _copy(self, table, columns, rows, *, types=None):
        """COPY rows into the table; in binary, given the columns' types (oids)."""
        pg_cursor = self.cursor.connection.cursor()
        binary = " (FORMAT BINARY)" if types else ""
        with pg_cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN{binary}") as copy:
            if types:
                copy.set_types([types[column] for column in columns])
            for row in rows:
                copy.write_row(row)

    @cached_property
    def case_types(self):
        """The case table's column types (oids), for binary COPY: the case rows carry their
        search vectors in binary (vectors.Vector)."""
        vectors.use_vectors(self.cursor.connection)
        self.cursor.execute(
            "SELECT attname, atttypid::integer FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
            [Case._meta.db_table],
        )
        return dict(self.cursor.fetchall())

    def copy_lists(self, cases):
        term_ids = self.term_ids
        case_terms, related, sources, remediation, actions = [], [], [], [], []
        for data in cases:
            case_id = data["id"]
            position = 0
            for facet in LIST_FACETS:
                for slug in data[facet]:
                    case_terms.append((case_id, term_ids[(facet, slug)], position))
                    position += 1
            related += [(case_id, ref, i) for i, ref in enumerate(data["related"])]
            sources += [
                (case_id, i, s["url"], s["kind"], s["license"], s["archived"])
                for i, s in enumerate(data["sources"])
            ]
            remediation += [
                (
                    case_id,
                    i,
                    s["text"]["en"],
                    s["text"]["ko"],
                    term_ids[(Facet.FIX, s["kind"])] if "kind" in s else None,
                )
                for i, s in enumerate(data["remediation"])
            ]
            actions += [
                (case_id, i, s["text"]["en"], s["text"]["ko"])
                for i, s in enumerate(data["action_items"])
            ]
        for model, columns, rows in (
            (CaseTerm, ("case_id", "term_id", "position"), case_terms),
            (RelatedCase, ("from_case_id", "to_case_id", "position"), related),
            (Source, ("case_id", "position", "url", "kind", "license", "archived"), sources),
            (
                RemediationStep,
                ("case_id", "position", "text_en", "text_ko", "kind_id"),
                remediation,
            ),
            (ActionItem, ("case_id", "position", "text_en", "text_ko"), actions),
        ):
            if rows:
                self._copy(model._meta.db_table, columns, rows)

    def case_rows(self, cases, derived):
        """(columns, rows) of the case rows for these exchange cases, with their vectors."""
        columns, rows = None, []
        for data in cases:
            fields = case_fields_from_exchange(data)
            if columns is None:
                columns = [
                    "id",
                    "organisation_id",
                    "severity_id",
                    "root_cause_id",
                    "reviewer_id",
                    "title_vector",
                    "search_vector",
                    *(Case._meta.get_field(name).column for name in fields),
                ]
            rows.append(
                [
                    data["id"],
                    self.organisation_ids[data["org_slug"]],
                    self.term_ids[(Facet.SEVERITY, data["severity"])],
                    self.term_ids[(Facet.ROOT_CAUSE, data["root_cause"])],
                    self.reviewer_ids.get(data["review"]["reviewed_by"]),
                    *derived[data["id"]],
                    *fields.values(),
                ]
            )
        return columns, rows

    def insert_cases(self, cases, derived):
        """New cases: COPY into the table. A new case is version 1, changed by an import
        (changed_by null), now."""
        columns, rows = self.case_rows(cases, derived)
        self._copy(
            Case._meta.db_table,
            [*columns, "version", "changed_by", "changed_at", "created_at"],
            ([*row, 1, None, self.now, self.now] for row in rows),
            types=self.case_types,
        )

    def update_cases(self, cases, derived):
        """Replace stored case rows: one UPDATE from a staging table, so that each row is
        written (and its search vector derived) once; INSERT ... ON CONFLICT DO UPDATE
        would run the row trigger twice for each, once for the insert it tries first."""
        columns, rows = self.case_rows(cases, derived)
        if not self.staging_made:
            # An earlier import in the same transaction (a test's, a script's) left its own.
            self.cursor.execute(f"DROP TABLE IF EXISTS pg_temp.{self.STAGING}")
            self.cursor.execute(
                f"CREATE TEMPORARY TABLE {self.STAGING} ON COMMIT DROP AS "
                f"SELECT {', '.join(columns)} FROM {Case._meta.db_table} WITH NO DATA"
            )
            self.staging_made = True
        else:
            self.cursor.execute(f"TRUNCATE {self.STAGING}")
        self._copy(self.STAGING, columns, rows, types=self.case_types)
        assignments = ", ".join(f"{column} = staged.{column}" for column in columns[1:])
        # A replaced case is the next version of what was stored, whatever updated_at its
        # file gives, so that a form opened before is refused.
        self.cursor.execute(
            f"""
            UPDATE {Case._meta.db_table} AS stored
            SET {assignments}, version = stored.version + 1, changed_by = NULL,
                changed_at = %s
            FROM {self.STAGING} AS staged
            WHERE stored.id = staged.id
            """,
            [self.now],
        )

    # After the batches ---------------------------------------------------------------------

    def finish(self):
        # A case moved to another organisation must not leave an empty one behind.
        if self.previous_organisations:
            deleted, _by_model = Organisation.objects.filter(
                id__in=self.previous_organisations, cases__isnull=True
            ).delete()
            self.wrote |= bool(deleted)
        if self.wrote:
            # bulk_write keeps the triggers from raising the generation and the shape and
            # counting the facets row by row: once each, here. The generation first, as every
            # other writer does at its commit, so that two writers never wait on each other's
            # locks.
            self.cursor.execute("SELECT cases_raise_generation(), cases_raise_shape()")
            self.cursor.execute("SELECT cases_count_facets_again()")
