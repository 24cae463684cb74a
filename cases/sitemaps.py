"""/sitemap.xml: the public pages a search engine should know, cases with their last update."""

from django.contrib.sitemaps import Sitemap
from django.db.models import Exists, OuterRef
from django.urls import reverse

from cases.models import Case, CaseTerm, Organisation, Term


class PageSitemap(Sitemap):
    changefreq = "daily"

    def items(self):
        return ["cases:home", "cases:list", "cases:taxonomy", "cases:orgs"]

    def location(self, name):
        return reverse(name)


class CaseSitemap(Sitemap):
    changefreq = "monthly"

    def items(self):
        return Case.objects.published().only("id", "updated_at").order_by("id")

    def lastmod(self, case):
        return case.updated_at


class TermSitemap(Sitemap):
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


class OrganisationSitemap(Sitemap):
    changefreq = "weekly"

    def items(self):
        return Organisation.objects.with_public_cases().only("slug").order_by("slug")


SITEMAPS = {
    "pages": PageSitemap,
    "cases": CaseSitemap,
    "taxonomy": TermSitemap,
    "organisations": OrganisationSitemap,
}
