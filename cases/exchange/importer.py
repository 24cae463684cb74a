"""Importing exchange cases: read, check everything, then write all of it in one transaction.

Nothing is written unless every case of the run is valid; a run either stores every case
or none. Re-importing a case replaces it in place, its lists included.

The files are read twice, one case at a time, so that a run holds one case in memory and
not the files (a 600 MB file of 100,000 cases included):

1. Checking (checks_across_cases.py): each case against the format and its own rules, then
   the rules spanning cases over the facts kept of each. Every problem of the run is
   collected, each with its file, line, case id and field.
2. Writing (writer.py), only when nothing is wrong. The files are read again and written in
   batches inside one transaction: a case whose text differs from what was checked stops the
   run. The search vectors of each batch are derived before it is written (vectors.py). A
   large run derives them ahead, in threads and over connections of their own, while the
   batch before is written, and merges the GIN indexes' pending lists as it goes
   (gin_lists.py); a small one, where threads and connections of their own cost more than
   they save, does both in its own thread.

A dry run does all of it and then rolls the transaction back, so that it reports what the
real run would, refusals of the database included.
"""

from collections import deque
from dataclasses import dataclass, field

from django.db import DatabaseError, connection, transaction

from cases.exchange import gin_lists, vectors
from cases.exchange.checks_across_cases import CaseChecks, no_progress
from cases.exchange.records import CaseRecord, Problem
from cases.exchange.writer import Refused, Writer
from cases.models import Case, CaseTerm
from cases.signals import cases_written
from incidentlib.database_errors import first_line

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


def _lock_imports():
    """Wait for any other import's transaction to end, and hold this one's lock until its
    own does (taken again by the same transaction, it is already held)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [IMPORT_LOCK])


class CaseImport(CaseChecks):
    """One run of the importer over some paths: its checks (CaseChecks), then its writing.

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
        super().__init__()
        self.paths = paths
        self.strict_taxonomy = strict_taxonomy
        self.keep_existing = keep_existing
        self.replace_newer = replace_newer
        self.progress = progress or no_progress
        self.result = ImportResult()

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
        except Refused as refusal:
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

    # Writing --------------------------------------------------------------------------

    def write(self, *, dry_run=False):
        """Sort the cases into created, updated and unchanged, and store what changed."""
        with transaction.atomic(), connection.cursor() as cursor:
            _lock_imports()
            # A run of more than one batch derives its vectors in threads over connections of
            # their own, and merges its GIN lists in another: a run of one batch has nothing to
            # overlap, and their start cost a one-case import more than its own writing did.
            threaded = len(self.facts) > BATCH_SIZE
            # Its GIN indexes' pending lists are merged by gin_lists.Merger, when it may: as
            # the batches are written, in a thread, for a large import; at its end otherwise.
            merging = gin_lists.may_merge(cursor)
            settings_before = _set_settings(
                cursor, {**WRITE_SETTINGS, **(gin_lists.WRITE_SETTINGS if merging else {})}
            )
            writer = Writer(self, cursor)
            writer.prepare()
            meter = self.progress("Writing", len(self.facts), "cases")
            deriving = vectors.Ahead() if threaded else vectors.InPlace()
            try:
                with deriving as ahead, gin_lists.Merger(merging, threaded=threaded) as merger:
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
                raise Refused(
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
            raise Refused(
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
