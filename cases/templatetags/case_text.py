"""Showing bilingual case text in the reader's language, marking English fallbacks."""

import json
import re
from dataclasses import replace

from django import template
from django.template.defaultfilters import truncatewords, urlencode
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language

from cases.durations import duration_in_words
from cases.languages import (
    FALLBACK_LANGUAGE,
    LocalizedText,
    known_value,
    pick,
    reader_language,
)
from cases.models import Facet

register = template.Library()

HTTP_ADDRESS = re.compile(r"https?://\S+")


@register.simple_tag
def localized(obj, name=None):
    """The text `name` of a case (or a step's text, or a term's label) in the reader's language."""
    language = get_language()
    if name is None:
        return obj.text(language) if hasattr(obj, "text") else obj.label(language)
    if name in ("label", "description"):
        return getattr(obj, name)(language)
    return obj.text(name, language)


@register.simple_tag
def term_link(facet, term):
    """A term's label as a link to the cases having it (`facet`: its list parameter), marked
    lang="en" where it fell back: a list page shows some 130 of them, which a template
    included for each took 9 ms to make."""
    label = term.label(get_language())
    fallback = label.is_fallback
    return format_html(
        '<a class="tag{}" href="{}?{}={}"{}>{}</a>',
        " fallback" if fallback else "",
        reverse("cases:list"),
        facet,
        urlencode(term.slug),
        format_html(' lang="{}"', label.lang) if fallback else "",
        label,
    )


@register.inclusion_tag("includes/prose.html")
def prose(text, inline=False, note=True, words=None):
    """A LocalizedText as paragraphs (or inline), with lang="en" and a note when it fell back.

    `note=False` leaves the note out where the page says once what is in English: at its top
    (the case page), or after a list with `{% fallback_note %}` (/diagnose/'s remediation
    steps); the text is still marked and styled as a fallback. `words` shortens the text to
    that many words, as `truncatewords` does.
    """
    if words and text:
        text = replace(text, text=truncatewords(text.text, words))
    return {
        "text": text,
        "inline": inline,
        "note": note,
        "language": reader_language(),
    }


@register.inclusion_tag("includes/fallback_note.html")
def fallback_note(texts):
    """The inline note of `{% prose ... inline=True %}`, once for texts shown together, each
    with `note=False` (the steps of a list): shown when any of them fell back to English.

    `texts`: LocalizedTexts, or what `{% localized %}` reads (steps, action items, terms).
    """
    shown = [text if isinstance(text, LocalizedText) else localized(text) for text in texts]
    return {
        "note": any(text.is_fallback for text in shown),
        "language": reader_language(),
    }


register.simple_tag(known_value)


@register.filter
def document(doc):
    """One entry of a case's further documents (kept as given): its title, address and kind
    when it has them, else the entry as JSON."""
    language = reader_language()
    if isinstance(doc, str):
        is_address = bool(HTTP_ADDRESS.fullmatch(doc))
        return {"url": doc if is_address else "", "title": doc, "kind": "", "raw": ""}
    if isinstance(doc, dict):
        url = doc.get("url") if isinstance(doc.get("url"), str) else ""
        url = url if HTTP_ADDRESS.fullmatch(url or "") else ""
        title = doc.get("title")
        if isinstance(title, dict):
            title = pick({k: v for k, v in title.items() if isinstance(v, str)}, language)
        elif isinstance(title, str) and title:
            title = LocalizedText(title, FALLBACK_LANGUAGE, language != FALLBACK_LANGUAGE)
        else:
            title = None
        kind = doc.get("kind") if isinstance(doc.get("kind"), str) else ""
        if title or url:
            return {"url": url, "title": title or url, "kind": kind, "raw": ""}
    return {"url": "", "title": "", "kind": "", "raw": json.dumps(doc, ensure_ascii=False)}


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
