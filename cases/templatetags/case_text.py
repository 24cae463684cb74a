"""Showing bilingual case text in the reader's language, marking English fallbacks."""

from django import template
from django.utils.translation import get_language

from cases.durations import duration_in_words
from cases.models import Facet

register = template.Library()


@register.simple_tag
def localized(obj, name=None):
    """The text `name` of a case (or a step's text, or a term's label) in the reader's language."""
    language = get_language()
    if name is None:
        return obj.text(language) if hasattr(obj, "text") else obj.label(language)
    if name in ("label", "description"):
        return getattr(obj, name)(language)
    return obj.text(name, language)


@register.inclusion_tag("includes/prose.html")
def prose(text, inline=False):
    """A LocalizedText as paragraphs (or inline), with lang="en" and a note when it fell back."""
    return {"text": text, "inline": inline}


@register.filter
def in_words(duration):
    return duration_in_words(duration)


@register.filter
def terms_of(case, facet):
    return case.terms_of(facet)


# What a case list shows of a case's tags: what it is about, what broke, how, and why.
MAIN_FACETS = (Facet.DOMAIN, Facet.COMPONENTS, Facet.SYMPTOMS, Facet.ROOT_CAUSE)


@register.simple_tag
def main_tags(case):
    """(facet, term) pairs of the case's main tags; uses its prefetched links."""
    return [(facet, term) for facet in MAIN_FACETS for term in case.terms_of(facet)]
