import re
import unicodedata

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.paginator import InvalidPage, Paginator
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from cases import translations
from cases.api import json_error
from cases.caching import mark_uncached, public_page, shows_cases
from cases.case_page import CasePage
from cases.exchange.export import read_in_one_snapshot
from cases.exchange.format import public_case_to_exchange
from cases.languages import HANGUL, reader_language
from cases.listing import search
from cases.listing.facet_counts import library_counts
from cases.listing.page import CaseListing
from cases.models import Case, Facet, Organisation, SimilarCases, Term, validate_http_url
from cases.page_answers import NoSuchPage, upper_case_id

RECENT_CASES = 8
HOME_TERMS_PER_FACET = 8


def _get_case(case_id):
    """The published case with this id, with all the page shows."""
    try:
        return (
            Case.objects.published()
            .for_page()
            # Whether the worker keeps its similar cases: if not, the page makes them without
            # asking for the kept list (one query fewer).
            .annotate(similar_kept=Exists(SimilarCases.objects.filter(case_id=OuterRef("id"))))
            .get(id=case_id)
        )
    except Case.DoesNotExist:
        raise NoSuchPage(
            _("There is no case at this address. It may not exist, or may not be public yet.")
        ) from None


@require_safe
@public_page(of_case=True)
@upper_case_id
@read_in_one_snapshot
def case_detail(request, case_id):
    case = _get_case(case_id)
    address = request.build_absolute_uri(case.get_absolute_url())
    page = CasePage(case, reader_language(), address)
    return render(request, "cases/case_detail.html", page.context())


# The sections of the side-by-side view, in the order the case page reads: (id, heading,
# the texts' name: a field of the case, or a list of items).
BOTH_SECTIONS = (
    ("title", gettext_lazy("Title"), "title"),
    ("summary", gettext_lazy("What happened"), "summary"),
    ("trigger", gettext_lazy("Trigger"), "trigger"),
    ("symptoms", gettext_lazy("Symptoms"), "symptoms_text"),
    ("detection", gettext_lazy("How it was noticed"), "detection"),
    ("remediation", gettext_lazy("What fixed it"), "remediation"),
    ("lessons", gettext_lazy("Lessons"), "lessons"),
    ("action-items", gettext_lazy("Action items"), "action_items"),
)


@require_safe
@public_page(of_case=True)
@upper_case_id
@read_in_one_snapshot
def case_both(request, case_id):
    """English and Korean side by side, section by section, each text with its state."""
    case = _get_case(case_id)
    states = translations.case_states(case)
    sections = []
    for anchor, heading, name in BOTH_SECTIONS:
        texts = [text for key, text in states.items() if key == name or key.startswith(f"{name}[")]
        if texts:
            sections.append({"id": anchor, "heading": heading, "texts": texts})
    return render(
        request,
        "cases/case_both.html",
        {"case": case, "sections": sections, "title": case.text("title", get_language())},
    )


@require_safe
@public_page(of_case=True)
@read_in_one_snapshot
def case_json(request, case_id):
    try:
        case = _get_case(case_id.upper())
    except Http404:
        # JSON asked for, JSON answered, as the API does.
        return json_error(404, _("There is no case with this id."))
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
@public_page(of_list=True)
def home(request):
    language = reader_language()
    terms = Term.objects.public().index()
    counts = library_counts(terms, request)
    recent_cases = list(Case.objects.published().for_list()[:RECENT_CASES])
    shows_cases(request, recent_cases)
    return render(
        request,
        "home.html",
        {
            "recent_cases": recent_cases,
            "case_count": counts.total,
            "facets": [
                (facet, _popular_terms(terms, counts, facet, language, HOME_TERMS_PER_FACET))
                for facet in Facet
            ],
        },
    )


def _case_list_page(request, listing, template, context=None):
    case_id = search.case_id_in(search.as_searched(request.GET.get("q") or ""))
    if case_id and Case.objects.published().filter(id=case_id).exists():
        return redirect("cases:detail", case_id=case_id)
    context = {**(context or {}), "listing": listing}
    if not listing.is_valid():
        return render(request, template, context, status=400)
    try:
        listing.load()
    except InvalidPage:
        raise NoSuchPage(_("This list has no such page.")) from None
    return render(request, template, context)


@require_safe
@public_page(of_list=True)
def case_list(request):
    return _case_list_page(request, CaseListing(request), "cases/case_list.html")


@require_safe
@public_page(of_list=True)
def taxonomy(request):
    language = reader_language()
    terms = Term.objects.public().index()
    counts = library_counts(terms, request)
    facets = []
    for facet in Facet:
        facet_terms = [
            (term, counts.count(facet, term.slug)) for term in terms.by_label(facet, language)
        ]
        facets.append((facet, facet_terms))
    return render(request, "cases/taxonomy.html", {"facets": facets})


@require_safe
@public_page(of_list=True)
def term_detail(request, facet, slug):
    if facet not in Facet.values:
        raise NoSuchPage(_("There is no such facet."))
    listing = CaseListing(request, fixed=(facet, slug))
    term = listing.terms.get(facet, slug)
    if term is None:
        raise NoSuchPage(_("There is no such term."))
    return _case_list_page(
        request, listing, "cases/term_detail.html", {"term": term, "facet": Facet(facet)}
    )


def reading_order(name, language):
    """A sort key for names as a reader expects them: case and accents ignored ("crates.io"
    beside "Cloudflare", "TUI Airways" after "Tarsnap"), and the names written in the
    reader's own script first (가나다 before ABC on a Korean page, after it on an English one)."""
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", name.casefold()) if not unicodedata.combining(c)
    )
    is_korean = bool(re.match(f"[{HANGUL}]", name.lstrip()))
    return (is_korean != (language == "ko"), folded, name)


@require_safe
@public_page(of_list=True)
def organisation_list(request):
    counts = library_counts(request=request)
    organisations = [
        {"slug": slug, "name": counts.org_names[slug], "case_count": counts.count("org", slug)}
        for slug in counts.values("org")
    ]
    language = reader_language()
    organisations.sort(key=lambda organisation: reading_order(organisation["name"], language))
    return render(request, "cases/organisation_list.html", {"organisations": organisations})


@require_safe
@public_page(of_list=True)
def organisation_detail(request, slug):
    organisation = Organisation.objects.public().filter(slug=slug).first()
    if organisation is None:
        raise NoSuchPage(_("There is no such organisation in the library."))
    listing = CaseListing(request, organisation=organisation)
    return _case_list_page(
        request, listing, "cases/organisation_detail.html", {"organisation": organisation}
    )


@require_safe
@public_page
def source_cases(request):
    url = request.GET.get("url", "").strip()
    if not url:  # a form to give one: a page of its own, not an error
        return render(request, "cases/source_cases.html", {"url": ""})
    scheme, colon, rest = url.partition(":")
    url = scheme.lower() + colon + rest  # `HTTPS://` is `https://`
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
        raise NoSuchPage(_("This list has no such page.")) from None
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
    message = exception.args[0] if isinstance(exception, NoSuchPage) and exception.args else ""
    # Kept by no shared cache (a CDN keeps a 404 for minutes unless told): a draft hidden
    # as a 404 is public at once when approved.
    return mark_uncached(render(request, "404.html", {"message": message}, status=404))
