"""The import's checks across cases: what no case can be checked for alone.

The files are read once for the checks, one case at a time (`CaseChecks.check`). Each case is
checked against the format and its own rules (checks.py); of a case, only the facts that the
rules spanning cases need are kept (`CaseFacts`: its id and place, organisation, references,
terms and reviewer), so that a run holds one case in memory and not the files. Then those rules
run over the facts: unique ids, one name per organisation, references, recurrence loops, the
taxonomy, and a library's copy newer than the file's. Every problem of the run is collected,
each with its file, line, case id and field.
"""

import datetime
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

from cases.exchange import checks
from cases.exchange.file_search import collect_files
from cases.exchange.files import iter_case_file
from cases.exchange.format import format_timestamp, parse_timestamp
from cases.exchange.records import CaseRecord, Problem
from cases.models import (
    LIST_FACETS,
    RECURRENCE_LOOP,
    Case,
    Facet,
    Organisation,
    Term,
    recurrence_loops,
)

FACET_FIELDS = [Facet.SEVERITY, Facet.ROOT_CAUSE, *LIST_FACETS]
# The top-level field of a problem's path ("related" of "related[2]", "title" of "title.en").
FIELD = re.compile(r"[^.\[]+")


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


class CaseChecks:
    """The checking half of a run (importer.CaseImport): reads the files a first time, checks
    each case and keeps its facts, then runs the rules spanning cases over them.

    Its options (`paths`, `strict_taxonomy`, `keep_existing`, `replace_newer`, `progress`)
    and `result` are the run's."""

    def __init__(self):
        self.files = []
        self.facts = []  # CaseFacts of every case read, in the order of the files
        self.read_problems = []  # problems of the files themselves (missing, malformed)
        self.case_problems = defaultdict(list)  # index in self.facts -> problems of the case
        self._shared = {}  # one object for equal org names, slugs and (facet, slug) pairs
        self._other_documents = set()  # files found to hold something else than cases
        self.unplaced = []  # problems of the rules spanning cases to give a field's line
        self.kept_at_check = set()  # with --keep-existing: the cases stored when checked

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
