"""/sitemap.xml: an index of the sections a search engine reads: the site's own pages, the cases
(with their last update), the taxonomy terms and organisations, each cut into pages of at most
SECTION_SIZE addresses (/sitemap-cases.xml?p=2).

Each page is listed once per language at its canonical address, the one its
`<link rel="canonical">` gives (`/cases/A-1?lang=ko`, the language switcher's own links), with
every language's address and the address without `?lang` (`x-default`, which goes by the
reader's language) as its alternates: a search engine is told each language version and the
others of each. So a section holds SECTION_SIZE / 2 pages.

Django's own view writes the index. A section is written by `section` below rather than by
Django's template, which takes most of a second for 10,000 addresses.
"""

from functools import cache

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.core.paginator import EmptyPage, PageNotAnInteger
from django.db.models import Max
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.http import require_safe

from cases.models import Case, FacetCount, Organisation, Term

# Addresses per section of the sitemap (search engines take up to 50,000).
SECTION_SIZE = 10_000


@cache
def case_prefix():
    """Where case pages live (cases/urls.py), reversed once, not once per address."""
    return reverse("cases:detail", args=["X-1"]).removesuffix("X-1")


class LibrarySitemap(Sitemap):
    limit = SECTION_SIZE // len(settings.LANGUAGES)  # pages: each is listed once per language


class PageSitemap(LibrarySitemap):
    changefreq = "daily"

    def items(self):
        return [
            "cases:home",
            "cases:list",
            "cases:diagnose",
            "cases:stats",
            "cases:taxonomy",
            "cases:orgs",
        ]

    def location(self, name):
        return reverse(name)


class CaseSitemap(LibrarySitemap):
    changefreq = "monthly"

    def items(self):
        return Case.objects.published().only("id", "updated_at").order_by("id")

    def location(self, case):
        # Not case.get_absolute_url(): reversing 10,000 times is most of a section's time.
        return f"{case_prefix()}{case.id}"

    def lastmod(self, case):
        return case.updated_at

    def get_latest_lastmod(self):
        # For the index: one aggregate, not every case's lastmod read one by one.
        return self.items().aggregate(latest=Max("updated_at"))["latest"]


class TermSitemap(LibrarySitemap):
    changefreq = "weekly"

    def items(self):
        """Terms some public case has (a tag, its severity, its root cause or a kind of fix):
        those the facet counts the database keeps give."""
        counted = FacetCount.objects.public().values("key")
        return Term.objects.filter(id__in=counted).only("facet", "slug").order_by("facet", "slug")


class OrganisationSitemap(LibrarySitemap):
    changefreq = "weekly"

    def items(self):
        """Organisations with a public case: a look-up in the index of cases by organisation."""
        return Organisation.objects.public().only("slug").order_by("slug")


SITEMAPS = {
    "pages": PageSitemap,
    "cases": CaseSitemap,
    "taxonomy": TermSitemap,
    "organisations": OrganisationSitemap,
}


@require_safe
def section(request, section):
    """One page (`?p=`) of one section of the sitemap, with each address's alternates."""
    if section not in SITEMAPS:
        raise Http404("There is no such section of the sitemap.")
    sitemap = SITEMAPS[section]()
    try:
        page = sitemap.paginator.page(request.GET.get("p") or 1)
    except (EmptyPage, PageNotAnInteger):
        raise Http404("There is no such page of the sitemap.") from None
    root = f"{request.scheme}://{request.get_host()}"
    has_lastmod = hasattr(sitemap, "lastmod")
    codes = [code for code, _name in settings.LANGUAGES]
    entries = []
    for item in page.object_list:
        address = escape(root + sitemap.location(item))
        links = "".join(
            f'<xhtml:link rel="alternate" hreflang="{code}" href="{address}?lang={code}"/>'
            for code in codes
        )
        links += f'<xhtml:link rel="alternate" hreflang="x-default" href="{address}"/>'
        lastmod = sitemap.lastmod(item) if has_lastmod else None
        about = (f"<lastmod>{lastmod.date().isoformat()}</lastmod>" if lastmod else "") + (
            f"<changefreq>{sitemap.changefreq}</changefreq>"
        )
        entries.extend(
            f"<url><loc>{address}?lang={code}</loc>{about}{links}</url>" for code in codes
        )
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n' + "\n".join(entries) + "\n</urlset>\n"
    )
    return HttpResponse(xml, content_type="application/xml")
