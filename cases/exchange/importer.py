"""Importing exchange cases: read, check everything, then write all of it in one transaction.

Nothing is written unless every case of the run is valid; a run either stores every case
or none. Re-importing a case replaces it in place, its lists included.

The files are read twice, one case at a time, so that a run holds one case in memory and
not the files (a 600 MB file of 100,000 cases included):

1. Checking. Each case is checked against the format and its own rules; of a case, only
   the facts that the rules spanning cases need are kept (`CaseFacts`: its id and place,
   organisation, references, terms and reviewer). Then those rules run over the facts:
   unique ids, one name per organisation, references, recurrence loops, the taxonomy.
   Every problem of the run is collected, each with its file, line, case id and field.
2. Writing, only when nothing is wrong. The files are read again and written in batches
   inside one transaction: a case whose text differs from what was checked stops the run.
   Each batch locks and compares the stored versions of its cases, replaces the lists of
   the changed ones and then their rows, with PostgreSQL's COPY. The transaction sets
   `incidentlib.bulk_write` (cases/migrations/): the database derives each case's term ids
   once, when its row is written after its lists, and the import raises the library's
   generation and counts the library's facets itself, once, at the end. The search vectors
   of the batches are derived ahead, in threads and over connections of their own
   (vectors.py), and written with the rows (`incidentlib.vectors`); another merges the GIN
   indexes' pending lists as the batches are written (gin_lists.py).

Of each case it replaces, the writing knows which fields change (format.changed_fields): the
review rule (review_after_import, by workflow.review_lapses) and the Korean texts left stale
(translations.carried_by_import) follow from them, and each case created or changed gets an
ImportedChange for its admin History.

A dry run does all of it and then rolls the transaction back, so that it reports what the
real run would, refusals of the database included.
"""

import datetime
import re
import unicodedata
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.postgres.search import SearchVectorField
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone
from django.utils.functional import cached_property

from cases import translations
from cases.database_errors import first_line
from cases.exchange import checks, gin_lists, vectors
from cases.exchange.files import CaseRecord, Problem, collect_files, iter_case_file
from cases.exchange.format import (
    case_fields_from_exchange,
    case_to_exchange,
    changed_fields,
    format_timestamp,
    parse_timestamp,
    same_case,
)
from cases.models import (
    LIST_FACETS,
    RECURRENCE_LOOP,
    ActionItem,
    Case,
    CaseTerm,
    Facet,
    ImportedChange,
    Organisation,
    RelatedCase,
    RemediationStep,
    Source,
    Term,
    recurrence_loops,
)
from cases.review.workflow import review_lapses
from cases.signals import cases_written

FACET_FIELDS = [Facet.SEVERITY, Facet.ROOT_CAUSE, *LIST_FACETS]
# The top-level field of a problem's path ("related" of "related[2]", "title" of "title.en").
FIELD = re.compile(r"[^.\[]+")
# Cases written from which the import refreshes PostgreSQL's statistics itself.
ANALYZE_AFTER = 1000
# Cases written per batch: each batch is a handful of statements (a lock, the comparison,
# one COPY per table), so that a 100,000-case run makes a few hundred round trips.
BATCH_SIZE = 1000
# One import writes at a time (a transaction-level advisory lock, released at its end): a
# second run waits, then sees the cases the first one stored, so that it updates them (with
# their version raised) instead of creating them a second time.
IMPORT_LOCK = 0x1C_1A_0E_70
# The import's transaction, for cases/migrations/: the case row written after its lists
# derives its term ids once (no trigger derives a case again per list row, or raises the
# generation per row), and keeps the search vectors the import gives it (vectors.py).
WRITE_SETTINGS = {"incidentlib.bulk_write": "on", "incidentlib.vectors": "given"}


def label_from_slug(slug):
    return slug.replace("-", " ").capitalize()


def term_slugs(data):
    """(facet, slug) pairs a case uses, each once, in the order the case lists them, then the
    kinds of its remediation steps (optional in the format; one kind may be of many steps)."""
    return dict.fromkeys(_term_slugs(data))


def _term_slugs(data):
    for facet in FACET_FIELDS:
        value = data[facet]
        for slug in [value] if isinstance(value, str) else value:
            yield facet, slug
    for step in data["remediation"]:
        if "kind" in step:
            yield Facet.FIX, step["kind"]


@dataclass
class ImportResult:
    problems: list = field(default_factory=list)
    created: list = field(default_factory=list)
    updated: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    new_terms: dict = field(default_factory=dict)  # (facet, slug) -> [case ids]
    changes: dict = field(default_factory=dict)  # updated case id -> paths that changed
    reviews: dict = field(default_factory=dict)  # case id -> ReviewOutcome

    @property
    def ok(self):
        return not self.problems

    def summary(self, *, dry_run=False):
        line = (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged"
        )
        if self.kept:
            line += f", {len(self.kept)} already in the library left as they are"
        terms = "terms that would be created" if dry_run else "terms created"
        return f"Cases: {line}; {terms}: {len(self.new_terms)}."


@dataclass(frozen=True)
class ReviewOutcome:
    """What an import did with a review when it changed a case's reviewed content (`fields`):
    the case is a draft (ImportedChange.RETURNED_TO_DRAFT: `reviewer` and `reviewed_at` are
    the library's review that lapsed; OLDER_REVIEW: the file's own, older than the library's
    version, not taken), or has the file's newer review (NEWER_REVIEW: that review)."""

    outcome: str
    reviewer: str | None
    reviewed_at: str | None
    fields: tuple

    def said(self, *, dry_run=False):
        fields = ", ".join(self.fields)
        review = f"the review by {self.reviewer} ({self.reviewed_at})"
        if self.outcome == ImportedChange.NEWER_REVIEW:
            verb = "would keep" if dry_run else "kept"
            return f"{verb} the file's own {review[4:]}, newer than the library's ({fields})"
        if self.outcome == ImportedChange.OLDER_REVIEW:
            verb = "would stay" if dry_run else "stays"
            return (
                f"{verb} a draft: the file's {review[4:]} is older than the library's "
                f"version, so it did not vouch for the changes ({fields})"
            )
        verb = "would return" if dry_run else "returned"
        return f"{verb} to draft: the import changes what {review} vouched for ({fields})"


def review_after_import(stored, data, changes):
    """(the case to write, its ReviewOutcome or None): the review rule (review_lapses) for a
    stored case `stored` that an import replaces with `data` (both exchange cases), `changes`
    the paths that differ. A review vouches for what it read: when the content changes, the
    case is a draft, unless the file carries a review of its own later than the library's
    (than the library's version, `updated_at`, for a draft). A file's review no later than
    that never replaces the library's, so that a review the library saw lapse does not come
    back with the same file imported again."""
    content = tuple(path for path in changes if path != "updated_at" and path[:7] != "review.")
    before, given = stored["review"], data["review"]
    library = before["reviewed_at"] or stored["updated_at"]
    newer = bool(
        given["reviewed_at"] and parse_timestamp(given["reviewed_at"]) > parse_timestamp(library)
    )
    if not content:
        if newer or not any(path.startswith("review.reviewed_") for path in changes):
            return data, None
        # Only the review differs, and the file's is not the later: the library's stands.
        kept = {**given, "reviewed_at": before["reviewed_at"], "reviewed_by": before["reviewed_by"]}
        return {**data, "review": kept}, None
    if before["reviewed_at"] is None and given["reviewed_at"] is None:
        return data, None
    if not review_lapses(reviewed=True, changed=True, newer_review=newer):
        outcome = ImportedChange.NEWER_REVIEW
        return data, ReviewOutcome(outcome, given["reviewed_by"], given["reviewed_at"], content)
    draft = {**given, "reviewed_at": None, "reviewed_by": None}
    if before["reviewed_at"]:
        outcome, lapsed = ImportedChange.RETURNED_TO_DRAFT, before
    else:
        outcome, lapsed = ImportedChange.OLDER_REVIEW, given
    return {**data, "review": draft}, ReviewOutcome(
        outcome, lapsed["reviewed_by"], lapsed["reviewed_at"], content
    )


@dataclass(slots=True)
class CaseFacts:
    """What the rules spanning cases need to know of one case, kept for the whole run
    instead of the case itself (a few hundred bytes instead of a few kilobytes)."""

    file: str
    line: int
    case_id: str | None
    fingerprint: int | None
    known: bool = False  # its id and the fields below that are not None: facts_of
    org_slug: str | None = None
    org: str | None = None
    related: tuple = ()
    recurrence_of: str | None = None
    terms: tuple = ()  # (facet, slug) pairs, in the case's order
    reviewed_by: str | None = None
    updated_at: datetime.datetime | None = None
    multiline: bool = False  # written over several lines: a problem names its field's line

    @property
    def references(self):
        return (*self.related, *([self.recurrence_of] if self.recurrence_of else []))


class _NoProgress:
    def update(self, _amount):
        pass

    def close(self):
        pass


def no_progress(_description, _total, _unit=None):
    return _NoProgress()


def _differs(name, other):
    """That a name differs from another, said so that a curator sees how: names that look
    the same (`카카오` composed and decomposed) are written out code point by code point."""
    if unicodedata.normalize("NFC", name) == unicodedata.normalize("NFC", other):
        return (
            f"{ascii(name)} differs from {ascii(other)} only in how its letters are encoded "
            "(composed or decomposed Unicode)"
        )
    return f"{name!r} differs from {other!r}"


def _lock_imports():
    """Wait for any other import's transaction to end, and hold this one's lock until its
    own does (taken again by the same transaction, it is already held)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [IMPORT_LOCK])


class _Refused(Exception):
    """Ends the write transaction with problems (it is rolled back)."""

    def __init__(self, *problems):
        self.problems = problems


class CaseImport:
    """One run of the importer over some paths.

    `progress(description, total, unit)` makes a progress meter (an object with update(n)
    and close()): of the bytes read when checking, of the cases written when writing (the
    second reading runs ahead of the writes); the command gives a progress bar.
    """

    def __init__(
        self,
        paths,
        *,
        strict_taxonomy=False,
        keep_existing=False,
        replace_newer=False,
        progress=None,
    ):
        self.paths = paths
        self.strict_taxonomy = strict_taxonomy
        self.keep_existing = keep_existing
        self.replace_newer = replace_newer
        self.progress = progress or no_progress
        self.result = ImportResult()
        self.files = []
        self.facts = []  # CaseFacts of every case read, in the order of the files
        self.read_problems = []  # problems of the files themselves (missing, malformed)
        self.case_problems = defaultdict(list)  # index in self.facts -> problems of the case
        self._shared = {}  # one object for equal org names, slugs and (facet, slug) pairs
        self._other_documents = set()  # files found to hold something else than cases
        self.unplaced = []  # problems of the rules spanning cases to give a field's line
        self.kept_at_check = set()  # with --keep-existing: the cases stored when checked

    def run(self, *, dry_run=False):
        """Check the files, then write them if they passed: one run at a time from its checks
        to its commit (the advisory lock), so that a run started while another writes checks
        its cases against what that one stored (a recurrence loop made of the two, an
        organisation's other name), not against what was there before."""
        with transaction.atomic():
            _lock_imports()
            self.check()
            if self.result.ok:
                self._write_or_refuse(dry_run=dry_run)
            written = [*self.result.created, *self.result.updated]
            if self.result.ok and not dry_run and written:
                cases_written.send(Case, ids=written)
        if self.result.ok:
            self.refresh_statistics(dry_run=dry_run)
        return self.result

    def _write_or_refuse(self, *, dry_run):
        try:
            self.write(dry_run=dry_run)
        except _Refused as refusal:
            self.result.problems.extend(refusal.problems)
        except DatabaseError as error:
            # The checks should leave nothing for the database to refuse; if it does,
            # the transaction is rolled back and the curator still gets a message.
            self.result.problems.append(
                Problem(
                    ", ".join(map(str, self.paths)),
                    f"the database refused the import: {first_line(error)}",
                )
            )

    def refresh_statistics(self, *, dry_run):
        """After a large write, PostgreSQL's statistics of the cases at once (autovacuum would
        take a while): its plans, and the similar cases' term weights, read them."""
        written = len(self.result.created) + len(self.result.updated)
        if dry_run or written < ANALYZE_AFTER:
            return
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Case._meta.db_table}, {CaseTerm._meta.db_table}")

    # Reading --------------------------------------------------------------------------

    def _read(self, description, *, again=False):
        """Every CaseRecord and Problem of the files, one at a time, with a progress meter
        of the bytes read (none for the second reading, `again`: the text checked the first
        time is checked for being the same, by its fingerprint)."""
        total = 0
        for path in self.files:
            try:
                total += path.stat().st_size
            except OSError:
                pass
        meter = no_progress(description, total) if again else self.progress(description, total, "B")
        try:
            for path in self.files:
                yield from iter_case_file(Path(path), meter.update, check_duplicate_keys=not again)
        finally:
            meter.close()

    def _share(self, value):
        return self._shared.setdefault(value, value)

    # Checking -------------------------------------------------------------------------

    def check(self):
        files, problems = collect_files(self.paths)
        self.files = files
        self.read_problems.extend(problems)
        for item in self._read("Checking"):
            if isinstance(item, CaseRecord):
                self.check_case(item)
            else:
                self.read_problems.append(item)
        with_ids = [(i, f) for i, f in enumerate(self.facts) if f.case_id]
        # With --keep-existing, a case already in the library is left as it is: the rules
        # spanning cases (its organisation's name, its references, its terms) are those of
        # the stored case, not of the file's. The writing refuses the run if one of them is
        # gone by then (deleted in the admin meanwhile): it was never checked.
        kept = set(stored_case_ids(f.case_id for f in self.facts)) if self.keep_existing else set()
        self.kept_at_check = kept
        # Every case of the run with an id, those with problems too (facts_of: as far as the
        # fields each rule reads are clean).
        checked = [(i, f) for i, f in with_ids if f.known and f.case_id not in kept]
        self.check_unique_ids(with_ids)
        self.check_organisations([(i, f) for i, f in checked if f.org_slug is not None])
        # A case referring to an invalid one of the run gets no second, misleading error; nor
        # does one referring to a case whose JSON is malformed, when its id could be read.
        run_ids = {f.case_id for _i, f in with_ids}
        run_ids |= {problem.case_id for problem in self.read_problems if problem.case_id}
        self.check_references(checked, run_ids=run_ids)
        self.check_taxonomy(checked)
        if not self.replace_newer:
            self.check_newer_in_library([(i, f) for i, f in checked if f.updated_at is not None])
        self.place_problems()
        self.result.problems = self.read_problems + [
            problem for index in sorted(self.case_problems) for problem in self.case_problems[index]
        ]

    def check_case(self, record):
        """Check one case as read, keep its facts, and let the case itself go."""
        if not isinstance(record.data, dict):
            record.problem("must be a case object")
        elif not_a_case := checks.other_document(record.data):
            # One line for the file, not thirty for each of its terms.
            if record.file in self._other_documents:
                self.facts.append(CaseFacts(record.file, record.line, None, record.fingerprint))
                return
            self._other_documents.add(record.file)
            record.problem(not_a_case)
        else:
            checks.check_format(record)
            checks.check_own_rules(record)
        if record.problems:
            self.case_problems[len(self.facts)].extend(record.problems)
        self.facts.append(self.facts_of(record))

    def facts_of(self, record):
        """The facts of a case: of each field the rules spanning cases read, as long as no
        problem was found in it. A case with a problem elsewhere (a date) is still checked
        against the others (a reference, the library's newer copy), so that a run reports
        every problem, not those of a second attempt."""
        facts = CaseFacts(record.file, record.line, record.case_id, record.fingerprint)
        facts.multiline = record.text is not None and "\n" in record.text
        data = record.data
        # The top-level fields with a problem; None when one has no place (not a case, a
        # field missing): then none is known.
        troubled = {FIELD.match(p.path)[0] if p.path else None for p in record.problems}
        if None in troubled or "id" in troubled or facts.case_id is None:
            return facts
        facts.known = True

        def clean(*names):
            return troubled.isdisjoint(names)

        if clean("org_slug", "org"):
            facts.org_slug = self._share(data["org_slug"])
            facts.org = self._share(data["org"])
        if clean("related"):
            facts.related = tuple(data["related"])
        if clean("recurrence_of"):
            facts.recurrence_of = data["recurrence_of"]
        if clean(*FACET_FIELDS, "remediation"):
            facts.terms = tuple(self._share(key) for key in term_slugs(data))
        if clean("review"):
            facts.reviewed_by = data["review"]["reviewed_by"]
        if clean("updated_at"):
            facts.updated_at = parse_timestamp(data["updated_at"])
        return facts

    def problem(self, index, message, path=None):
        facts = self.facts[index]
        problem = Problem(facts.file, message, line=facts.line, case_id=facts.case_id, path=path)
        self.case_problems[index].append(problem)
        if facts.multiline and path:
            self.unplaced.append(problem)

    def place_problems(self):
        """Give each problem of the rules spanning cases (made from a case's facts, which
        keep only its first line) the line of its field, in a case written over several
        lines: the files holding such cases are read again, only when there are some."""
        by_case = defaultdict(list)
        for problem in self.unplaced:
            by_case[(problem.file, problem.line)].append(problem)
        files = {file for file, _line in by_case}
        for path in self.files:
            if str(path) not in files:
                continue
            for item in iter_case_file(Path(path), check_duplicate_keys=False):
                for problem in by_case.get((item.file, item.line), ()):
                    if isinstance(item, CaseRecord):
                        problem.line = item.line_of(problem.path)

    def check_unique_ids(self, cases):
        first_seen = {}
        for index, facts in cases:
            earlier = first_seen.setdefault(facts.case_id, facts)
            if earlier is not facts:
                self.problem(
                    index,
                    f"the id is defined twice in this run (first at {earlier.file}:{earlier.line})",
                    path="id",
                )

    def check_organisations(self, cases):
        """One org_slug, one name: within the run, and against cases the run does not touch."""
        names = {}
        for index, facts in cases:
            slug, name = facts.org_slug, facts.org
            earlier = names.setdefault(slug, (name, index))
            if earlier[0] != name:
                where = self.facts[earlier[1]]
                self.problem(
                    index,
                    f"{_differs(name, earlier[0])}, the name given for org_slug "
                    f"{slug!r} at {where.file}:{where.line}",
                    path="org",
                )
        renamed = [
            slug
            for slug, name in Organisation.objects.filter(slug__in=list(names)).values_list(
                "slug", "name"
            )
            if name != names[slug][0]
        ]
        if not renamed:
            return
        with connection.cursor() as cursor:
            # How many cases of each renamed organisation this run does not rewrite.
            cursor.execute(
                f"""
                SELECT o.slug, o.name, count(c.id) FILTER (WHERE run.id IS NULL)
                FROM {Organisation._meta.db_table} o
                LEFT JOIN {Case._meta.db_table} c ON c.organisation_id = o.id
                LEFT JOIN unnest(%s::text[]) AS run(id) ON run.id = c.id
                WHERE o.slug = ANY(%s)
                GROUP BY o.slug, o.name
                """,
                [[facts.case_id for _i, facts in cases], renamed],
            )
            stored = cursor.fetchall()
        for slug, stored_name, other_cases in stored:
            name, index = names[slug]
            if other_cases:
                self.problem(
                    index,
                    f"{_differs(name, stored_name)}, the name of org_slug "
                    f"{slug!r} in the library, which "
                    f"{other_cases} other case(s) use; rename the organisation "
                    "in the admin, or use its name here",
                    path="org",
                )

    def check_references(self, cases, run_ids):
        referenced = {ref for _i, facts in cases for ref in facts.references}
        stored = set(stored_case_ids(referenced - run_ids))
        known = run_ids | stored
        # A file whose reading stopped at a malformed place may hold the case after it.
        unread = "".join(
            f"; it may be in {problem.file} after line {problem.line}, which could not be read"
            for problem in self.read_problems
            if problem.rest_unread
        )
        for index, facts in cases:
            for position, ref in enumerate(facts.related):
                if ref not in known:
                    self.problem(
                        index,
                        f"{ref} is neither in this run nor in the library{unread}",
                        path=f"related[{position}]",
                    )
            if facts.recurrence_of and facts.recurrence_of not in known:
                self.problem(
                    index,
                    f"{facts.recurrence_of} is neither in this run nor in the library{unread}",
                    path="recurrence_of",
                )
        self.check_recurrence_loops(cases)

    def check_recurrence_loops(self, cases):
        parent = dict(
            Case.objects.filter(recurrence_of__isnull=False).values_list("id", "recurrence_of")
        )
        parent.update({facts.case_id: facts.recurrence_of for _i, facts in cases})
        # Cases whose chain is known to end (with a case that repeats nothing): a walk that
        # reaches one of them stops there, so that all the walks together take linear time
        # even for a run that is one long chain.
        ends = set()
        for index, facts in cases:
            walked, last = [], [None]

            def parent_of(case_id, walked=walked, last=last):
                if case_id in ends:
                    last[0] = None
                    return None
                walked.append(case_id)
                last[0] = parent.get(case_id)
                return last[0]

            first = parent_of(facts.case_id)
            if recurrence_loops(facts.case_id, first, parent_of):
                self.problem(index, str(RECURRENCE_LOOP), path="recurrence_of")
            elif last[0] is None:
                ends.update(walked)

    def check_newer_in_library(self, cases):
        """A file older than the library's copy of a case would undo what was written since
        (an edit or a review in the admin sets updated_at to its time): refused, unless the
        curator says --replace-newer."""
        if not cases:
            return
        with connection.cursor() as cursor:
            cursor.execute(
                f"""
                SELECT run.n, stored.updated_at, stored.changed_by
                FROM unnest(%s::text[], %s::timestamptz[]) WITH ORDINALITY AS run(id, updated_at, n)
                JOIN {Case._meta.db_table} stored ON stored.id = run.id
                WHERE stored.updated_at > run.updated_at
                """,
                [[f.case_id for _i, f in cases], [f.updated_at for _i, f in cases]],
            )
            newer = cursor.fetchall()
        for n, updated_at, changed_by in newer:
            index, facts = cases[n - 1]
            self.problem(
                index, newer_in_library(facts.updated_at, updated_at, changed_by), "updated_at"
            )

    def check_taxonomy(self, cases):
        used = defaultdict(list)
        for index, facts in cases:
            for key in facts.terms:
                used[key].append(index)
        existing = set()
        for facet in (*FACET_FIELDS, Facet.FIX):
            slugs = {slug for (f, slug) in used if f == facet}
            if slugs:
                existing |= {
                    (facet, slug)
                    for slug in Term.objects.filter(facet=facet, slug__in=slugs).values_list(
                        "slug", flat=True
                    )
                }
        for key in sorted(used.keys() - existing):
            facet, slug = key
            if self.strict_taxonomy:
                for index in used[key]:
                    self.problem(
                        index,
                        f"{slug!r} is not a term of the {facet} facet (--strict-taxonomy)",
                        # A kind of fix is said by remediation steps (remediation[i].kind).
                        path="remediation" if facet == Facet.FIX else facet,
                    )
            else:
                self.result.new_terms[key] = [self.facts[index].case_id for index in used[key]]

    # Writing --------------------------------------------------------------------------

    def write(self, *, dry_run=False):
        """Sort the cases into created, updated and unchanged, and store what changed."""
        with transaction.atomic(), connection.cursor() as cursor:
            _lock_imports()
            # Its GIN indexes' pending lists are merged by gin_lists.Merger, when it may.
            merging = gin_lists.may_merge(cursor)
            settings_before = _set_settings(
                cursor, {**WRITE_SETTINGS, **(gin_lists.WRITE_SETTINGS if merging else {})}
            )
            writer = _Writer(self, cursor)
            writer.prepare()
            meter = self.progress("Writing", len(self.facts), "cases")
            try:
                with vectors.Ahead() as ahead, gin_lists.Merger(merging) as merger:
                    # Each batch is written once the vectors of the next ones are under way.
                    waiting = deque()
                    for batch in self._batches():
                        waiting.append((batch, ahead.derive(data for _facts, data in batch)))
                        if len(waiting) > ahead.WORKERS:
                            meter.update(writer.write_batch(*waiting.popleft()))
                            merger.merge()
                    while waiting:
                        meter.update(writer.write_batch(*waiting.popleft()))
                    writer.finish()
            finally:
                meter.close()
            _set_settings(cursor, settings_before)
            if dry_run:
                transaction.set_rollback(True)

    def _batches(self):
        """The cases read a second time, in batches of (facts, data); a case that is not the
        one checked (the file changed in between) refuses the run."""
        batch, index = [], 0
        for item in self._read("Writing", again=True):
            facts = self.facts[index] if index < len(self.facts) else None
            if (
                not isinstance(item, CaseRecord)
                or facts is None
                or (item.fingerprint, item.file, item.line)
                != (facts.fingerprint, facts.file, facts.line)
            ):
                file = item.file
                raise _Refused(
                    Problem(
                        file,
                        "changed while it was being imported; nothing was written, import it again",
                        line=getattr(item, "line", None),
                    )
                )
            index += 1
            batch.append((facts, item.data))
            if len(batch) == BATCH_SIZE:
                yield batch
                batch = []
        if index != len(self.facts):
            raise _Refused(
                Problem(
                    ", ".join(map(str, self.files)),
                    "changed while being imported; nothing was written, import it again",
                )
            )
        if batch:
            yield batch


def _set_settings(cursor, settings):
    """Set these settings for the rest of the transaction; return what they were."""
    before = {}
    for name, value in settings.items():
        cursor.execute(
            "SELECT current_setting(%s, true), set_config(%s, %s, true)", [name, name, value]
        )
        before[name] = cursor.fetchone()[0] or ""
    return before


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


def newer_in_library(given, stored, changed_by):
    return (
        f"the library's copy is newer ({format_timestamp(stored)}, last changed by "
        f"{changed_by or 'an import'}) than this file's ({format_timestamp(given)}): importing "
        "it would undo what changed since; export the case again and edit the export, or "
        "import with --replace-newer"
    )


def stored_case_ids(ids):
    """Those of the ids that are cases in the library."""
    ids = list(ids)
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {Case._meta.db_table} WHERE id = ANY(%s::text[])", [ids])
        return [case_id for (case_id,) in cursor.fetchall()]


class _Writer:
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
            raise _Refused(
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
        vectors (vectors.Ahead). Returns how many cases of the run it has dealt with."""
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
                    raise _Refused(
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
                raise _Refused(
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
            raise _Refused(
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
            # bulk_write keeps the triggers from raising the generation and counting the
            # facets row by row: once each, here. The generation first, as every other writer
            # does at its commit, so that two writers never wait on each other's locks.
            self.cursor.execute("SELECT cases_raise_generation()")
            self.cursor.execute("SELECT cases_count_facets_again()")
