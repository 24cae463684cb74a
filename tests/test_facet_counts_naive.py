"""Every facet count a list page shows is what a count of the visible cases by hand, in
Python, gives: over a small library made at random (seeded), for many selections, on the case
list, term pages and organisation pages, with drafts hidden and shown, and after each kind of
write. The other tests of the counts compare the ways of counting with each other
(tests/test_facet_counts_kept.py) or with hand counts of six cases (tests/test_facets.py); this
one holds them all to a count that shares no code with them."""

import random

import pytest
from django.http import QueryDict

from cases.listing import search
from cases.listing.query import ListingQuery
from cases.listing.selection import FACET_PARAMS, MULTIPLE_PARAMS, TERM_PARAMS
from cases.models import Case, Organisation, Term

from .library import DRAFT, REVIEWED, facet_counts, plain_case, store

pytestmark = pytest.mark.django_db(transaction=True)

DOMAINS = ["web", "ml", "storage", "network"]
SYMPTOMS = ["errors", "latency", "data-loss"]
COMPONENTS = ["database", "cache", "dns", "gpu"]
CONTRIB = ["change-mgmt", "monitoring-gap"]
SEVERITIES = ["low", "medium", "high", "critical"]
ROOTS = ["config", "capacity", "bug", "dependency"]
ORGS = [("Acme", "acme"), ("Globex", "globex"), ("Initech", "initech"), ("Umbrella", "umbrella")]
KINDS = ["roll-back", "add-capacity"]
WORDS = ["alpha", "bravo", "charlie"]


def random_cases(rng, n=36):
    cases = []
    for i in range(n):
        org, org_slug = rng.choice(ORGS)
        # umbrella: drafts only, so that it is invisible with drafts hidden
        reviewed = rng.random() < 0.5 and org_slug != "umbrella"
        steps = [
            {"text": {"en": f"step {k}", "ko": None}, "kind": kind}
            for k, kind in enumerate(rng.sample(KINDS, rng.randint(0, 2)))
        ]
        cases.append(
            plain_case(
                f"R-{i + 1}",
                title={"en": f"Incident {rng.choice(WORDS)}", "ko": "장애 하나"},
                domain=rng.sample(DOMAINS, rng.randint(1, 2)),
                symptoms=rng.sample(SYMPTOMS, rng.randint(1, 2)),
                components=rng.sample(COMPONENTS, rng.randint(1, 2)),
                contributing=rng.sample(CONTRIB, rng.randint(0, 1)),
                severity=rng.choice(SEVERITIES),
                root_cause=rng.choice(ROOTS),
                date=f"{rng.randint(2018, 2025)}-0{rng.randint(1, 9)}-01",
                remediation=steps,
                review=dict(REVIEWED if reviewed else DRAFT),
                org=org,
                org_slug=org_slug,
            )
        )
    return cases


@pytest.fixture
def rlibrary(tmp_path):
    for slug in KINDS:
        Term.objects.create(facet="fix", slug=slug, label_en=slug.title(), needs_label=False)
    store(tmp_path, *random_cases(random.Random(20261205)))
    return tmp_path


# The ground truth ----------------------------------------------------------------------------


def visible_cases():
    rows = Case.objects.published().values_list(
        "id", "term_ids", "organisation__slug", "reviewed_at", "date"
    )
    return [
        dict(id=i, terms=set(t), org=o, reviewed=r is not None, year=d.year)
        for i, t, o, r, d in rows
    ]


def predicate(param, values, terms, qids=None):
    if param in TERM_PARAMS:
        ids = set(terms.ids(param, values))
        return lambda c: bool(c["terms"] & ids)
    if param == "org":
        return lambda c: c["org"] in values
    if param == "reviewed":
        return lambda c: c["reviewed"] == (values == "yes")
    if param == "year_from":
        return lambda c: c["year"] >= values
    if param == "year_to":
        return lambda c: c["year"] <= values
    if param == "q":
        return lambda c: c["id"] in qids
    raise AssertionError(param)


def truth(query, fixed, terms):
    """(total, {(param, value): count}, {param: without}) as a naive count gives them."""
    listing = ListingQuery(QueryDict(query), terms=terms, fixed=fixed)
    assert listing.is_valid(), listing.errors
    selection = listing.selection
    cases = visible_cases()
    qids = None
    if "q" in selection:
        qids = set(
            Case.objects.filter(search.condition(selection["q"])).values_list("id", flat=True)
        )
    conds = {
        p: predicate(p, v, terms, qids)
        for p, v in selection.items()
        if p in FACET_PARAMS or p in ("year_from", "year_to", "q")
    }
    fixed_pred = predicate(fixed[0], [fixed[1]], terms) if fixed else (lambda c: True)

    def meets(c, skip=None):
        return fixed_pred(c) and all(f(c) for p, f in conds.items() if p != skip)

    total = sum(meets(c) for c in cases)
    values = [(p, t.slug) for p in TERM_PARAMS for t in terms.of(p)]
    values += [("org", slug) for _, slug in ORGS]
    values += [("reviewed", "yes"), ("reviewed", "no")]
    counts = {}
    for param, value in values:
        own = predicate(param, value if param == "reviewed" else [value], terms)
        chosen = selection.get(param)
        if param in MULTIPLE_PARAMS and chosen and value not in chosen:
            n = sum(meets(c, skip=param) and (conds[param](c) or own(c)) for c in cases)
        else:
            n = sum(meets(c, skip=param) and own(c) for c in cases)
        counts[(param, value)] = n
    without = {p: sum(meets(c, skip=p) for c in cases) for p in conds if p in FACET_PARAMS}
    return total, counts, without


def shown(query, fixed, terms):
    organisation = None
    if fixed and fixed[0] == "org":
        organisation = Organisation.objects.get(slug=fixed[1])
    listing = ListingQuery(QueryDict(query), terms=terms, fixed=fixed, organisation=organisation)
    assert listing.is_valid(), listing.errors
    kept_path = listing._parts() is not None  # which way it was counted, for the messages
    facets = listing.load("en").facets
    values = [(p, t.slug) for p in TERM_PARAMS for t in terms.of(p)]
    values += [("org", slug) for _, slug in ORGS]
    values += [("reviewed", "yes"), ("reviewed", "no")]
    counts = {(p, v): facets.count(p, v) for p, v in values}
    without = {p: n for p, n in facets.without.items()}
    return facets.total, counts, without, kept_path, len(listing.cases)


QUERIES = [
    "",
    "severity=high",
    "domain=ml",
    "fix=roll-back",
    "org=acme",
    "org=acme&org=globex",
    "org=umbrella",
    "reviewed=yes",
    "reviewed=no",
    "severity=high&domain=web",
    "severity=high&severity=critical",
    "org=acme&severity=critical",
    "org=globex&fix=add-capacity",
    "reviewed=yes&domain=storage",
    "reviewed=no&org=initech",
    "reviewed=yes&org=acme&org=initech",
    "domain=web&symptoms=errors&components=cache",
    "year_from=2021",
    "year_from=2021&severity=low",
    "year_to=2022&org=acme",
    "q=alpha",
    "q=alpha&domain=web",
    "q=bravo&org=globex",
    "q=charlie&reviewed=yes",
]
FIXED = [
    None,
    ("domain", "web"),
    ("severity", "high"),
    ("fix", "roll-back"),
    ("org", "acme"),
    ("org", "umbrella"),
]


@pytest.mark.parametrize("hide_drafts", [False, True])
def test_every_count_is_a_naive_count(rlibrary, settings, hide_drafts):
    settings.INCIDENTLIB_HIDE_DRAFTS = hide_drafts
    terms = Term.objects.index()
    failures = []
    checked = 0
    for fixed in FIXED:
        if fixed == ("org", "umbrella") and hide_drafts:
            continue  # no public case: no page
        for query in QUERIES:
            listing = ListingQuery(QueryDict(query), terms=terms, fixed=fixed)
            if not listing.is_valid():
                continue  # e.g. org=umbrella with drafts hidden
            t_total, t_counts, t_without = truth(query, fixed, terms)
            s_total, s_counts, s_without, kept_path, listed = shown(query, fixed, terms)
            checked += 1
            where = f"fixed={fixed} ?{query} hide={hide_drafts} kept_path={kept_path}"
            if s_total != t_total:
                failures.append(f"{where}: total {s_total} != {t_total}")
            for key, n in t_counts.items():
                if s_counts[key] != n:
                    failures.append(f"{where}: {key} shown {s_counts[key]} truth {n}")
            for param, n in t_without.items():
                if (s_without.get(param) or 0) != n:
                    failures.append(f"{where}: without[{param}] {s_without.get(param)} != {n}")
    assert checked > 100
    assert not failures, "\n".join(failures[:60]) + f"\n... {len(failures)} in all"


def page_url(query, fixed):
    if fixed is None:
        base = "/cases/"
    elif fixed[0] == "org":
        base = f"/orgs/{fixed[1]}/"
    else:
        base = f"/taxonomy/{fixed[0]}/{fixed[1]}/"
    return base + ("?" + query if query else "")


@pytest.mark.parametrize("hide_drafts", [False, True])
def test_the_pages_sidebar_shows_the_naive_counts(rlibrary, settings, client, hide_drafts):
    settings.INCIDENTLIB_HIDE_DRAFTS = hide_drafts
    terms = Term.objects.index()
    failures = []
    for fixed in FIXED:
        if fixed == ("org", "umbrella") and hide_drafts:
            continue
        for query in QUERIES:
            if not ListingQuery(QueryDict(query), terms=terms, fixed=fixed).is_valid():
                continue
            _, t_counts, _ = truth(query, fixed, terms)
            html = client.get(page_url(query, fixed)).content.decode()
            for key, n in facet_counts(html).items():
                param, value = key.split("=", 1)
                expected = t_counts[(param, value)]
                if expected != n:
                    where = f"{page_url(query, fixed)} hide={hide_drafts}"
                    failures.append(f"{where}: {key} {n} != {expected}")
    assert not failures, "\n".join(failures[:40]) + f"\n... {len(failures)} in all"


# After writes ---------------------------------------------------------------------------------


def check_all(label, terms=None):
    terms = terms or Term.objects.index()
    failures = []
    for fixed in FIXED[:5]:
        for query in QUERIES[:17]:
            listing = ListingQuery(QueryDict(query), terms=terms, fixed=fixed)
            if not listing.is_valid():
                continue
            if (
                fixed
                and fixed[0] == "org"
                and not Organisation.objects.filter(slug=fixed[1]).exists()
            ):
                continue
            if fixed and fixed[0] != "org" and terms.get(*fixed) is None:
                continue
            t_total, t_counts, _ = truth(query, fixed, terms)
            s_total, s_counts, _, kept_path, _ = shown(query, fixed, terms)
            if s_total != t_total:
                failures.append(f"{label} fixed={fixed} ?{query}: total {s_total} != {t_total}")
            for key, n in t_counts.items():
                if s_counts[key] != n:
                    failures.append(f"{label} fixed={fixed} ?{query}: {key} {s_counts[key]} != {n}")
    return failures


def test_counts_after_writes(rlibrary, settings, tmp_path, client):
    from django.db import transaction

    from cases.models import CaseTerm, RemediationStep

    writes = [
        (
            "approve",
            lambda: Case.objects.filter(id__in=["R-1", "R-2", "R-3"]).update(
                reviewed_at="2026-01-01T00:00:00Z", reviewed_by="mina"
            ),
        ),
        (
            "unapprove",
            lambda: Case.objects.filter(id="R-4").update(reviewed_at=None, reviewed_by=None),
        ),
        ("delete case", lambda: Case.objects.filter(id="R-5").delete()),
        (
            "re-import",
            lambda: store(tmp_path, *random_cases(random.Random(7), 10), name="again.json"),
        ),
        ("rename org", lambda: Organisation.objects.filter(slug="acme").update(name="Acme Corp")),
        (
            "tag added",
            lambda: CaseTerm.objects.create(
                case_id="R-6",
                term=Term.objects.filter(facet="domain").exclude(case_links__case_id="R-6").first(),
                position=9,
            ),
        ),
        ("tag removed", lambda: CaseTerm.objects.filter(case_id="R-7").delete()),
        (
            "kind changed",
            lambda: RemediationStep.objects.filter(case_id="R-8").update(
                kind=Term.objects.get(facet="fix", slug="roll-back")
            ),
        ),
        (
            "move org",
            lambda: Case.objects.filter(id="R-9").update(
                organisation=Organisation.objects.get(slug="globex")
            ),
        ),
        (
            "term slug renamed",
            lambda: Term.objects.filter(facet="components", slug="gpu").update(slug="accelerator"),
        ),
        (
            "term made",
            lambda: Term.objects.create(
                facet="domain", slug="brand-new", label_en="New", needs_label=False
            ),
        ),
    ]
    failures = []
    for hide in (False, True):
        settings.INCIDENTLIB_HIDE_DRAFTS = hide
        failures += check_all(f"before hide={hide}")
    for label, write in writes:
        with transaction.atomic():
            write()
        for hide in (False, True):
            settings.INCIDENTLIB_HIDE_DRAFTS = hide
            failures += check_all(f"after {label} hide={hide}")
    assert not failures, "\n".join(failures[:40]) + f"\n... {len(failures)} in all"
