"""/feed/: an Atom feed of the newest reviewed cases, filtered like /cases/.

Newest means latest reviewed: a case enters the feed when a reviewer approves it, whatever
the date of the incident, which each entry states. `/feed/?components=shared-filesystem`
follows one tag; any parameter of /cases/ works, and a bad one gets a 400.
"""

import re
from urllib.parse import urlencode

from django.contrib.syndication.views import Feed
from django.http import HttpResponseBadRequest
from django.template.defaultfilters import date as format_date
from django.template.defaultfilters import linebreaks_filter
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _
from django.utils.xmlutils import SimplerXMLGenerator

from cases.languages import reader_language
from cases.listing.links import url_with
from cases.listing.page import feed_title, selection_in_words
from cases.listing.selection import CaseFilter, has_feed
from cases.models import REVIEWED, Case, Term

FEED_ENTRIES = 50
# Characters no XML 1.0 document may hold (its Char production).
NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class _XmlSafeGenerator(SimplerXMLGenerator):
    """Leaves out of each text what XML 1.0 cannot carry, where Django's generator refuses
    the whole feed (a 500)."""

    def characters(self, content):
        super().characters(NOT_IN_XML.sub("", content) if content else content)


class XmlSafeAtom1Feed(Atom1Feed):
    """Atom whose texts never stop it: the reader's search, in the title, and a case's own
    texts, which the exchange format lets hold a control character."""

    def write(self, outfile, encoding):  # Atom1Feed.write, with the generator above
        handler = _XmlSafeGenerator(outfile, encoding, short_empty_elements=True)
        handler.startDocument()
        handler.startElement("feed", self.root_attributes())
        self.add_root_elements(handler)
        self.write_items(handler)
        handler.endElement("feed")


def _language():
    return reader_language()


class CaseFeed(Feed):
    feed_type = XmlSafeAtom1Feed

    def __call__(self, request, *args, **kwargs):
        selection = CaseFilter(
            request.GET,
            Case.objects.published().filter(REVIEWED).for_list(),
            terms=Term.objects.public().index(),
        )
        if not selection.is_valid():
            problems = "; ".join(
                f"{name}: {' '.join(messages)}" for name, messages in selection.errors.items()
            )
            return HttpResponseBadRequest(f"{problems}\n", content_type="text/plain; charset=utf-8")
        if not has_feed(selection.selection()):
            # It would be an empty feed titled "reviewed cases ... Review: draft".
            return HttpResponseBadRequest(
                "reviewed: the feed holds reviewed cases only; drafts have none\n",
                content_type="text/plain; charset=utf-8",
            )
        request.case_selection = selection
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request):
        return request.case_selection

    def get_feed(self, obj, request):
        """The feed, each entry's link in the language the feed was asked for (a feed reader
        sends no language cookie: `/feed/?lang=ko` leads to `/cases/<id>?lang=ko`). The
        entry's id stays the case's address, the same in every language."""
        feed = super().get_feed(obj, request)
        if "lang" in obj.data:
            for item in feed.items:
                item["link"] = f"{item['link']}?{urlencode({'lang': _language()})}"
        return feed

    def _params(self, selection, keep_language=True):
        """The selection's parameters and, unless told otherwise, `lang`: the feed's links
        stay in the language the feed was asked for."""
        params = selection.data.copy()
        dropped = ("page", "sort") if keep_language else ("page", "sort", "lang")
        for name in dropped:
            params.pop(name, None)
        return params

    def title(self, selection):
        return feed_title(selection_in_words(selection, language=_language()))

    def subtitle(self, selection):
        return _("Real incident cases, in English and Korean, newest review first.")

    def link(self, selection):
        return url_with(reverse("cases:list"), self._params(selection))

    def feed_url(self, selection):
        return url_with(reverse("cases:feed"), self._params(selection))

    def items(self, selection):
        return selection.qs.order_by("-reviewed_at", "id")[:FEED_ENTRIES]

    def item_title(self, case):
        """The case's id and title; a title shown in English for want of a translation says
        so, as the pages do."""
        title = case.text("title", _language())
        note = f" {_('(in English: not yet translated)')}" if title.is_fallback else ""
        return f"{case.id}: {title}{note}"

    def item_description(self, case):
        """The summary as HTML (Atom's summary type="html"): case text escaped, then marked up."""
        language = _language()
        when = format_date(case.date, "DATE_FORMAT")
        facts = f"{case.organisation.name} · {when} ({case.get_date_kind_display()})"
        summary = case.text("summary", language)
        html = linebreaks_filter(summary.text)
        if summary.is_fallback:  # shown in English for want of a translation: say so
            html = f'<div lang="{summary.lang}">{html}</div>'
        return linebreaks_filter(facts) + html

    def item_link(self, case):
        return case.get_absolute_url()

    def item_pubdate(self, case):
        return case.reviewed_at

    def item_updateddate(self, case):
        """The case's last update, never before its review (the entry's `published`): an
        import keeps the `updated_at` its file gives, which may be older."""
        return max(case.updated_at, case.reviewed_at)

    def item_author_name(self, case):
        return case.organisation.name

    def item_categories(self, case):
        language = _language()
        terms = [link.term for link in case.case_terms.all()]
        return [str(term.label(language)) for term in [*terms, case.severity, case.root_cause]]
