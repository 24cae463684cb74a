"""/sitemap.xml: an index of the sections a search engine reads: the site's own pages, the cases
(with their last update), the taxonomy terms and organisations, each cut into pages of at most
SECTION_SIZE addresses (/sitemap-cases.xml?p=2)."""

from django.contrib.sitemaps import Sitemap
from django.db.models import Exists, Max, OuterRef
from django.urls import reverse

from cases.models import Case, CaseTerm, Organisation, Term

# Addresses per section of the sitemap (search engines take up to 50,000).
SECTION_SIZE = 10_000


class LibrarySitemap(Sitemap):
    limit = SECTION_SIZE


class PageSitemap(LibrarySitemap):
    changefreq = "daily"

    def items(self):
        return ["cases:home", "cases:list", "cases:taxonomy", "cases:orgs"]

    def location(self, name):
        return reverse(name)


class CaseSitemap(LibrarySitemap):
    changefreq = "monthly"

    def items(self):
        return Case.objects.published().only("id", "updated_at").order_by("id")

    def lastmod(self, case):
        return case.updated_at

    def get_latest_lastmod(self):
        # For the index: one aggregate, not every case's lastmod read one by one.
        return self.items().aggregate(latest=Max("updated_at"))["latest"]


class TermSitemap(LibrarySitemap):
    changefreq = "weekly"

    def items(self):
        """Terms some public case has: by a tag, its severity or its root cause."""
        public = Case.objects.published()
        return (
            Term.objects.filter(
                Exists(CaseTerm.objects.filter(term=OuterRef("pk"), case__in=public))
                | Exists(public.filter(severity=OuterRef("pk")))
                | Exists(public.filter(root_cause=OuterRef("pk")))
            )
            .only("facet", "slug")
            .order_by("facet", "slug")
        )


class OrganisationSitemap(LibrarySitemap):
    changefreq = "weekly"

    def items(self):
        return Organisation.objects.with_public_cases().only("slug").order_by("slug")


SITEMAPS = {
    "pages": PageSitemap,
    "cases": CaseSitemap,
    "taxonomy": TermSitemap,
    "organisations": OrganisationSitemap,
}
