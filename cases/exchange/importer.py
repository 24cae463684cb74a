"""Importing exchange cases: read, check everything, then write all of it in one transaction.

Nothing is written unless every case of the run is valid; a run either stores every case
or none. Re-importing a case replaces it in place, its lists included.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction
from django.db.models import Count, Q
from django.utils import timezone

from cases.exchange import checks
from cases.exchange.files import Problem, read_case_files
from cases.exchange.format import case_fields_from_exchange, case_to_exchange, same_case
from cases.models import (
    LIST_FACETS,
    RECURRENCE_LOOP,
    ActionItem,
    Case,
    CaseTerm,
    Facet,
    Organisation,
    RelatedCase,
    RemediationStep,
    Source,
    Term,
    recurrence_loops,
)

FACET_FIELDS = [Facet.SEVERITY, Facet.ROOT_CAUSE, *LIST_FACETS]


def label_from_slug(slug):
    return slug.replace("-", " ").capitalize()


def term_slugs(data):
    """(facet, slug) pairs a case uses, in the order the case lists them."""
    for facet in FACET_FIELDS:
        value = data[facet]
        for slug in [value] if isinstance(value, str) else value:
            yield facet, slug


@dataclass
class ImportResult:
    problems: list = field(default_factory=list)
    created: list = field(default_factory=list)
    updated: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    new_terms: dict = field(default_factory=dict)  # (facet, slug) -> [case ids]

    @property
    def ok(self):
        return not self.problems

    def summary(self):
        line = (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged"
        )
        if self.kept:
            line += f", {len(self.kept)} already in the library left as they are"
        return f"Cases: {line}; terms created: {len(self.new_terms)}."


class CaseImport:
    """One run of the importer over some paths."""

    def __init__(self, paths, *, strict_taxonomy=False, keep_existing=False):
        self.paths = paths
        self.strict_taxonomy = strict_taxonomy
        self.keep_existing = keep_existing
        self.result = ImportResult()

    def run(self, *, dry_run=False):
        records = self.check()
        if self.result.ok:
            try:
                self.write(records, dry_run=dry_run)
            except DatabaseError as error:
                # The checks should leave nothing for the database to refuse; if it does,
                # the transaction is rolled back and the curator still gets a message.
                self.result.problems.append(
                    Problem(
                        ", ".join(map(str, self.paths)), f"the database refused the import: {error}"
                    )
                )
        return self.result

    # Checking -----------------------------------------------------------------

    def check(self):
        records, problems = read_case_files(self.paths)
        self.result.problems.extend(problems)
        valid = []
        for record in records:
            if not isinstance(record.data, dict):
                record.problem("must be a case object")
            elif checks.check_format(record):
                checks.check_own_rules(record)
            if not record.problems:
                valid.append(record)
        with_ids = [r for r in records if r.case_id]
        self.check_unique_ids(with_ids)
        self.check_organisations(valid)
        # A case referring to an invalid one of the run gets no second, misleading error.
        self.check_references(valid, run_ids={r.case_id for r in with_ids})
        self.check_taxonomy(valid)
        for record in records:
            self.result.problems.extend(record.problems)
        return valid

    def check_unique_ids(self, records):
        first_seen = {}
        for record in records:
            earlier = first_seen.setdefault(record.case_id, record)
            if earlier is not record:
                record.problem(
                    f"the id is defined twice in this run (first at {earlier.file}:{earlier.line})",
                    path="id",
                )

    def check_organisations(self, records):
        """One org_slug, one name: within the run, and against cases the run does not touch."""
        names = {}
        for record in records:
            slug, name = record.data["org_slug"], record.data["org"]
            earlier = names.setdefault(slug, (name, record))
            if earlier[0] != name:
                record.problem(
                    f"{name!r} differs from {earlier[0]!r}, the name given for org_slug "
                    f"{slug!r} at {earlier[1].file}:{earlier[1].line}",
                    path="org",
                )
        run_ids = [r.case_id for r in records]
        stored = Organisation.objects.filter(slug__in=names).annotate(
            other_cases=Count("cases", filter=~Q(cases__id__in=run_ids))
        )
        for organisation in stored:
            name, record = names[organisation.slug]
            if organisation.name != name and organisation.other_cases:
                record.problem(
                    f"{name!r} differs from {organisation.name!r}, the name of org_slug "
                    f"{organisation.slug!r} in the library, which "
                    f"{organisation.other_cases} other case(s) use; rename the organisation "
                    "in the admin, or use its name here",
                    path="org",
                )

    def check_references(self, records, run_ids):
        in_run = {r.case_id: r for r in records}
        referenced = {ref for r in records for ref in self._references(r.data)}
        stored = set(Case.objects.filter(id__in=referenced - run_ids).values_list("id", flat=True))
        known = run_ids | stored
        for record in records:
            data = record.data
            for index, ref in enumerate(data["related"]):
                if ref not in known:
                    record.problem(
                        f"{ref} is neither in this run nor in the library", path=f"related[{index}]"
                    )
            if data["recurrence_of"] and data["recurrence_of"] not in known:
                record.problem(
                    f"{data['recurrence_of']} is neither in this run nor in the library",
                    path="recurrence_of",
                )
        self.check_recurrence_cycles(in_run)

    @staticmethod
    def _references(data):
        return [*data["related"], *([data["recurrence_of"]] if data["recurrence_of"] else [])]

    def check_recurrence_cycles(self, in_run):
        parent = dict(
            Case.objects.filter(recurrence_of__isnull=False).values_list("id", "recurrence_of")
        )
        parent.update({case_id: r.data["recurrence_of"] for case_id, r in in_run.items()})
        for case_id, record in in_run.items():
            if recurrence_loops(case_id, parent.get(case_id), parent.get):
                record.problem(str(RECURRENCE_LOOP), path="recurrence_of")

    def check_taxonomy(self, records):
        used = defaultdict(list)
        for record in records:
            for facet, slug in term_slugs(record.data):
                used[(facet, slug)].append(record)
        existing = set()
        for facet in FACET_FIELDS:
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
                for record in used[key]:
                    record.problem(
                        f"{slug!r} is not a term of the {facet} facet (--strict-taxonomy)",
                        path=facet,
                    )
            else:
                self.result.new_terms[key] = [r.case_id for r in used[key]]

    # Writing ------------------------------------------------------------------

    def write(self, records, *, dry_run=False):
        """Sort the cases into created, updated and unchanged, and store what changed."""
        with transaction.atomic():
            # Locked until the run ends, so that no admin save comes between the comparison
            # below and the write (the admin locks a case's row to save it too).
            run_ids = [r.case_id for r in records]
            list(Case.objects.select_for_update().filter(id__in=run_ids).values_list("id"))
            existing = {
                case.id: case_to_exchange(case)
                for case in Case.objects.for_page().filter(id__in=run_ids)
            }
            changed = []
            for record in records:
                case_id = record.case_id
                if case_id not in existing:
                    self.result.created.append(case_id)
                    changed.append(record)
                elif self.keep_existing:
                    self.result.kept.append(case_id)
                elif same_case(existing[case_id], record.data):
                    self.result.unchanged.append(case_id)
                else:
                    self.result.updated.append(case_id)
                    changed.append(record)
            # Terms are made only for the cases actually written (--keep-existing skips some).
            changed_ids = {r.case_id for r in changed}
            self.result.new_terms = {
                key: [case_id for case_id in ids if case_id in changed_ids]
                for key, ids in self.result.new_terms.items()
                if changed_ids.intersection(ids)
            }
            if changed and not dry_run:
                self.store(changed)

    def store(self, records):
        """Write the cases; `write` holds their rows locked, so the versions read here stay."""
        previous = {
            case_id: (organisation_id, version)
            for case_id, organisation_id, version in Case.objects.filter(
                id__in=[r.case_id for r in records]
            ).values_list("id", "organisation_id", "version")
        }
        organisation_ids = self.store_organisations(records)
        term_ids = self.store_terms(records)
        reviewers = dict(
            get_user_model()
            .objects.filter(username__in={r.data["review"]["reviewed_by"] for r in records})
            .values_list("username", "id")
        )
        now = timezone.now()
        cases = []
        for record in records:
            data = record.data
            case = Case(
                id=data["id"],
                organisation_id=organisation_ids[data["org_slug"]],
                severity_id=term_ids[(Facet.SEVERITY, data["severity"])],
                root_cause_id=term_ids[(Facet.ROOT_CAUSE, data["root_cause"])],
                reviewer_id=reviewers.get(data["review"]["reviewed_by"]),
                # A new case is version 1; a replaced one the next version of what was
                # stored, whatever updated_at its file gives, so a form opened before is refused.
                version=previous[data["id"]][1] + 1 if data["id"] in previous else 1,
                changed_by=None,  # an import, as "changed by" says
                changed_at=now,
                **case_fields_from_exchange(data),
            )
            cases.append(case)
        update_fields = [
            f.name for f in Case._meta.concrete_fields if f.name not in ("id", "created_at")
        ]
        Case.objects.bulk_create(
            cases, update_conflicts=True, unique_fields=["id"], update_fields=update_fields
        )
        self.replace_lists(records, term_ids)
        # A case moved to another organisation must not leave an empty one behind.
        Organisation.objects.filter(
            id__in={organisation_id for organisation_id, _version in previous.values()},
            cases__isnull=True,
        ).delete()

    def store_organisations(self, records):
        names = {r.data["org_slug"]: r.data["org"] for r in records}
        Organisation.objects.bulk_create(
            [Organisation(slug=slug, name=name) for slug, name in names.items()],
            update_conflicts=True,
            unique_fields=["slug"],
            update_fields=["name"],
        )
        return dict(Organisation.objects.filter(slug__in=names).values_list("slug", "id"))

    def store_terms(self, records):
        Term.objects.bulk_create(
            [
                Term(facet=facet, slug=slug, label_en=label_from_slug(slug))
                for facet, slug in self.result.new_terms
            ],
            ignore_conflicts=True,
        )
        wanted = {key for r in records for key in term_slugs(r.data)}
        terms = Term.objects.filter(slug__in={slug for _facet, slug in wanted})
        return {(t.facet, t.slug): t.id for t in terms}

    def replace_lists(self, records, term_ids):
        ids = [r.case_id for r in records]
        for model, key in (
            (CaseTerm, "case_id__in"),
            (RelatedCase, "from_case_id__in"),
            (Source, "case_id__in"),
            (RemediationStep, "case_id__in"),
            (ActionItem, "case_id__in"),
        ):
            model.objects.filter(**{key: ids}).delete()
        case_terms, related, sources, remediation, actions = [], [], [], [], []
        for record in records:
            data, case_id = record.data, record.case_id
            list_terms = [(f, s) for f, s in term_slugs(data) if f in LIST_FACETS]
            case_terms += [
                CaseTerm(case_id=case_id, term_id=term_ids[key], position=i)
                for i, key in enumerate(list_terms)
            ]
            related += [
                RelatedCase(from_case_id=case_id, to_case_id=ref, position=i)
                for i, ref in enumerate(data["related"])
            ]
            sources += [
                Source(case_id=case_id, position=i, **source)
                for i, source in enumerate(data["sources"])
            ]
            remediation += [
                RemediationStep(
                    case_id=case_id, position=i, text_en=s["text"]["en"], text_ko=s["text"]["ko"]
                )
                for i, s in enumerate(data["remediation"])
            ]
            actions += [
                ActionItem(
                    case_id=case_id, position=i, text_en=s["text"]["en"], text_ko=s["text"]["ko"]
                )
                for i, s in enumerate(data["action_items"])
            ]
        CaseTerm.objects.bulk_create(case_terms)
        RelatedCase.objects.bulk_create(related)
        Source.objects.bulk_create(sources)
        RemediationStep.objects.bulk_create(remediation)
        ActionItem.objects.bulk_create(actions)
