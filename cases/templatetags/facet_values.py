"""The values of a list's filters (its sidebar, includes/facets.html)."""

from django import template
from django.utils import formats
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

register = template.Library()


@register.simple_tag
def facet_value(group, value):
    """One value of a filter (cases/listing/page.py's FacetValue in its FacetGroup): a link
    that chooses it (or, chosen, removes it) and how many cases it would give; a value that
    would give none is no link. A list page shows a hundred of them: a template included for
    each took 9 ms to make them."""
    label = value.label  # a LocalizedText for a term, a plain name otherwise
    lang = format_html(' lang="{}"', label.lang) if getattr(label, "is_fallback", False) else ""
    name = format_html("<span{}>{}</span>", lang, label)
    if value.count or value.chosen:
        current = mark = ""
        if value.chosen:
            current = format_html(' aria-current="true" title="{}"', gettext("Remove this filter"))
            mark = mark_safe('<span aria-hidden="true">✓ </span>')
        name = format_html('<a href="{}" rel="nofollow"{}>{}{}</a>', value.url, current, mark, name)
    classes = "facet-value"
    if value.chosen:
        classes += " chosen"
    elif not value.count:
        classes += " empty"
    return format_html(
        '<li class="{}" data-value="{}={}">{} <span class="count" title="{}">{}</span></li>',
        classes,
        group.param,
        value.value,
        name,
        gettext("cases you would get"),
        formats.localize(value.count),
    )
