from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.paginator import InvalidPage, Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from cases.caching import public_page
from cases.exchange.format import public_case_to_exchange
from cases.languages import content_language
from cases.listing import search
from cases.listing.counts import library_counts
from cases.listing.page import CaseListing
from cases.models import Case, Facet, Organisation, Term, validate_http_url

RECENT_CASES = 8
HOME_TERMS_PER_FACET = 8


def _get_case(case_id):
    """The published case with this id, with all the page shows; lower-case ids redirect."""
    return get_object_or_404(Case.objects.published().for_page(), id=case_id)


@require_safe
@public_page
def case_detail(request, case_id):
    if case_id != case_id.upper():
        return redirect("cases:detail", case_id=case_id.upper(), permanent=True)
    case = _get_case(case_id)
    chain = list(
        Case.objects.published()
        .recurrence_chain(case)
        .only("id", "title_en", "title_ko", "date", "recurrence_of_id", "reviewed_at")
    )
    related_from = list(
        Case.objects.published()
        .filter(related_links__to_case=case)
        .exclude(id__in=[link.to_case_id for link in case.related_links.all()])
        .only("id", "title_en", "title_ko")
        .order_by("id")
    )
    return render(
        request,
        "cases/case_detail.html",
        {
            "case": case,
            "facets": [(facet, case.terms_of(facet)) for facet in Facet],
            "related": [
                link.to_case for link in case.related_links.all() if link.to_case.is_published
            ],
            "related_from": related_from,
            "recurrence_chain": chain if len(chain) > 1 else [],
        },
    )


@require_safe
@public_page
def case_json(request, case_id):
    case = _get_case(case_id.upper())
    return JsonResponse(
        public_case_to_exchange(case), json_dumps_params={"ensure_ascii": False, "indent": 2}
    )


def _popular_terms(terms, counts, facet, language, limit=None):
    """The facet's terms some public case has, with their counts, most cases first."""
    found = [(term, counts.count(facet, term.slug)) for term in terms.of(facet)]
    found = [(term, count) for term, count in found if count]
    found.sort(key=lambda pair: (-pair[1], str(pair[0].label(language)).lower()))
    return found[:limit]


@require_safe
@public_page
def home(request):
    language = content_language(get_language())
    terms = Term.objects.index()
    counts = library_counts(terms, request)
    return render(
        request,
        "home.html",
        {
            "recent_cases": Case.objects.published().for_list()[:RECENT_CASES],
            "case_count": counts.total,
            "facets": [
                (facet, _popular_terms(terms, counts, facet, language, HOME_TERMS_PER_FACET))
                for facet in Facet
            ],
        },
    )


def _case_list_page(request, listing, template, context=None):
    case_id = search.case_id_in(request.GET.get("q"))
    if case_id and Case.objects.published().filter(id=case_id).exists():
        return redirect("cases:detail", case_id=case_id)
    context = {**(context or {}), "listing": listing}
    if not listing.is_valid():
        return render(request, template, context, status=400)
    try:
        listing.load(request.GET.get("page") or 1)
    except InvalidPage:
        raise Http404(_("This list has no such page.")) from None
    return render(request, template, context)


@require_safe
@public_page
def case_list(request):
    return _case_list_page(request, CaseListing(request), "cases/case_list.html")


@require_safe
@public_page
def taxonomy(request):
    language = content_language(get_language())
    terms = Term.objects.index()
    counts = library_counts(terms, request)
    facets = []
    for facet in Facet:
        facet_terms = [(term, counts.count(facet, term.slug)) for term in terms.of(facet)]
        facet_terms.sort(key=lambda pair: str(pair[0].label(language)).lower())
        facets.append((facet, facet_terms))
    return render(request, "cases/taxonomy.html", {"facets": facets})


@require_safe
@public_page
def term_detail(request, facet, slug):
    if facet not in Facet.values:
        raise Http404(_("There is no such facet."))
    listing = CaseListing(request, fixed=(facet, slug))
    term = listing.terms.get(facet, slug)
    if term is None:
        raise Http404(_("There is no such term."))
    return _case_list_page(
        request, listing, "cases/term_detail.html", {"term": term, "facet": Facet(facet)}
    )


@require_safe
@public_page
def organisation_list(request):
    counts = library_counts(request=request)
    organisations = [
        {"slug": slug, "name": counts.org_names[slug], "case_count": counts.count("org", slug)}
        for slug in counts.values("org")
    ]
    organisations.sort(key=lambda organisation: organisation["name"].casefold())
    return render(request, "cases/organisation_list.html", {"organisations": organisations})


@require_safe
@public_page
def organisation_detail(request, slug):
    organisation = get_object_or_404(Organisation.objects.with_public_cases(), slug=slug)
    listing = CaseListing(request, fixed=("org", slug), fixed_label=organisation.name)
    return _case_list_page(
        request, listing, "cases/organisation_detail.html", {"organisation": organisation}
    )


@require_safe
@public_page
def source_cases(request):
    url = request.GET.get("url", "").strip()
    if not url:
        return render(request, "cases/source_cases.html", {"url": ""}, status=400)
    try:
        # Sources are http(s) addresses; anything else (javascript:...) is never linked.
        validate_http_url(url)
    except ValidationError as error:
        return render(
            request,
            "cases/source_cases.html",
            {"url": url, "problem": " ".join(error.messages)},
            status=400,
        )
    cases = Case.objects.published().citing(url).for_list().order_by("-date", "id")
    try:
        page = Paginator(cases, settings.INCIDENTLIB_PAGE_SIZE).page(request.GET.get("page") or 1)
    except InvalidPage:
        raise Http404(_("This list has no such page.")) from None
    return render(request, "cases/source_cases.html", {"url": url, "page": page})


@require_safe
@public_page
def robots_txt(request):
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /api/",
        f"Sitemap: {request.build_absolute_uri(reverse('cases:sitemap'))}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


def not_found(request, exception=None):
    message = exception.args[0] if isinstance(exception, Http404) and exception.args else ""
    return render(request, "404.html", {"message": message}, status=404)
