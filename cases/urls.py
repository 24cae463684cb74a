from django.contrib.sitemaps import views as sitemap_views
from django.urls import path, re_path
from django.views.decorators.http import require_safe

from cases import sitemaps
from cases.caching import public_page
from cases.discover import views as discover_views
from cases.feeds import CaseFeed
from cases.patterns import CASE_ID_ANY_CASE
from cases.sitemaps import SITEMAPS

from . import api, views

app_name = "cases"

CASE_ID = f"(?P<case_id>{CASE_ID_ANY_CASE})"

urlpatterns = [
    path("", views.home, name="home"),
    path("cases/", views.case_list, name="list"),
    re_path(rf"^cases/{CASE_ID}\.json$", views.case_json, name="detail_json"),
    re_path(
        rf"^cases/{CASE_ID}\.(?P<fmt>bib|ris|csl\.json)$",
        discover_views.case_citation,
        name="cite",
    ),
    re_path(rf"^cases/{CASE_ID}/?$", views.case_detail, name="detail"),
    re_path(rf"^cases/{CASE_ID}/both/?$", views.case_both, name="both"),
    path("diagnose/", discover_views.diagnose, name="diagnose"),
    path("stats/", discover_views.stats, name="stats"),
    re_path(r"^stats/(?P<chart>[a-z_]+)\.csv$", discover_views.stats_csv, name="stats_csv"),
    path("taxonomy/", views.taxonomy, name="taxonomy"),
    path("taxonomy/<str:facet>/<slug:slug>/", views.term_detail, name="term"),
    path("orgs/", views.organisation_list, name="orgs"),
    path("orgs/<slug:slug>/", views.organisation_detail, name="org"),
    path("sources/", views.source_cases, name="sources"),
    path("feed/", require_safe(public_page(CaseFeed())), name="feed"),
    # A sitemap index, and its sections of at most SECTION_SIZE addresses (?p=2 ...).
    path(
        "sitemap.xml",
        require_safe(public_page(sitemap_views.index)),
        {"sitemaps": SITEMAPS, "sitemap_url_name": "cases:sitemap_section"},
        name="sitemap",
    ),
    path(
        "sitemap-<section>.xml",
        public_page(sitemaps.section),
        name="sitemap_section",
    ),
    path("robots.txt", views.robots_txt, name="robots"),
    path("api/cases/", api.case_list, name="api_cases"),
    path("api/cases/deleted/", api.deleted_cases, name="api_deleted_cases"),
    path("api/cases.jsonl", api.bulk_download, name="api_bulk"),
    path("api/taxonomy/", api.taxonomy, name="api_taxonomy"),
    re_path(r"^api/", api.not_found),
]
