"""Links into /diagnose/ from other pages (the home page, a symptom's page, a case page)."""

from django import template
from django.http import QueryDict
from django.urls import reverse

register = template.Library()


@register.simple_tag
def diagnose_url(*symptoms):
    """/diagnose/ with these symptom terms chosen (each argument a term or a list of them)."""
    terms = []
    for item in symptoms:
        terms.extend(item if isinstance(item, list | tuple) else [item])
    params = QueryDict(mutable=True)
    params.setlist("symptoms", [term.slug for term in terms])
    query = params.urlencode()
    return reverse("cases:diagnose") + (f"?{query}" if query else "")


@register.filter
def csv_url(statistics, chart):
    """The address of one chart's numbers as CSV, for the selection of the page."""
    return statistics.csv_url(chart)
