"""The pages of cases/discover/: citations of a case, /diagnose/ and /stats/ (thin views)."""

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from cases.caching import public_page
from cases.discover import citations
from cases.discover.diagnose import Diagnosis
from cases.discover.stats import CHART_SLUGS, Statistics, chart_csv
from cases.languages import reader_language
from cases.listing.facet_counts import library_counts
from cases.models import Case, Term
from cases.page_answers import NoSuchPage, upper_case_id


@require_safe
@public_page
@upper_case_id
def case_citation(request, case_id, fmt):
    """/cases/<id>.bib, .ris and .csl.json: the case as a reference, in the page's language."""
    if fmt not in citations.FORMATTERS:
        raise Http404
    case = get_object_or_404(Case.objects.published().select_related("organisation"), id=case_id)
    ref = citations.reference(
        case,
        request.build_absolute_uri(case.get_absolute_url()),
        reader_language(),
    )
    response = HttpResponse(
        citations.FORMATTERS[fmt](ref), content_type=citations.CONTENT_TYPES[fmt]
    )
    response["Content-Disposition"] = f'inline; filename="{case.id}.{fmt}"'
    return response


@require_safe
@public_page
def diagnose(request):
    terms = Term.objects.public().index()
    # The choices' counts: the sidebar's, of the whole library (kept, cached per generation).
    diagnosis = Diagnosis(request.GET, terms=terms, counts=library_counts(terms, request))
    context = {"diagnosis": diagnosis, "form": diagnosis.form}
    if not diagnosis.is_valid():
        return render(request, "discover/diagnose.html", context, status=400)
    if not diagnosis.load():
        raise NoSuchPage(_("This list has no such page."))
    return render(request, "discover/diagnose.html", context)


def _statistics(request):
    return Statistics(
        request.GET,
        terms=Term.objects.public().index(),
        language=reader_language(),
        request=request,
    )


@require_safe
@public_page
def stats(request):
    statistics = _statistics(request)
    if not statistics.is_valid():
        return render(request, "discover/stats.html", {"stats": statistics}, status=400)
    return render(request, "discover/stats.html", {"stats": statistics.load()})


@require_safe
@public_page
def stats_csv(request, chart):
    if chart not in CHART_SLUGS:
        raise NoSuchPage(_("There is no such chart."))
    statistics = _statistics(request)
    if not statistics.is_valid():
        return HttpResponse(
            "\n".join(
                f"{name}: {' '.join(messages)}" for name, messages in statistics.errors.items()
            ),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    found = statistics.load().chart(chart)
    # With a byte order mark, so that a spreadsheet reads the Korean labels as UTF-8.
    response = HttpResponse("\ufeff" + chart_csv(found), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="incidentlib-{chart}.csv"'
    return response
