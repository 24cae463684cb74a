from django.conf import settings
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_safe

from .exchange import case_to_exchange
from .models import Case, Facet


def _get_case(case_id):
    """The published case with this id, with all the page shows; lower-case ids redirect."""
    return get_object_or_404(Case.objects.published().for_page(), id=case_id)


@require_safe
def case_detail(request, case_id):
    if case_id != case_id.upper():
        return redirect("cases:detail", case_id=case_id.upper(), permanent=True)
    case = _get_case(case_id)
    chain = list(Case.objects.published().recurrence_chain(case).only(
        "id", "title_en", "title_ko", "date", "recurrence_of_id", "reviewed_at"
    ))
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
            "related": [link.to_case for link in case.related_links.all()],
            "related_from": related_from,
            "recurrence_chain": chain if len(chain) > 1 else [],
        },
    )


@require_safe
def case_json(request, case_id):
    case = _get_case(case_id.upper())
    return JsonResponse(
        case_to_exchange(case), json_dumps_params={"ensure_ascii": False, "indent": 2}
    )


@require_safe
def home(request):
    return render(
        request,
        "home.html",
        {"recent_cases": Case.objects.published().select_related("organisation", "severity")[:10]},
    )


@require_safe
def case_list(request):
    cases = Case.objects.published().select_related("organisation", "severity")
    return render(request, "cases/case_list.html", {"cases": cases[: settings.INCIDENTLIB_PAGE_SIZE]})


def not_found(request, exception=None):
    message = exception.args[0] if isinstance(exception, Http404) and exception.args else ""
    return render(request, "404.html", {"message": message}, status=404)
