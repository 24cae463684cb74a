from django.contrib.sitemaps.views import sitemap
from django.urls import path, re_path

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
    re_path(rf"^cases/{CASE_ID}/?$", views.case_detail, name="detail"),
    path("taxonomy/", views.taxonomy, name="taxonomy"),
    path("taxonomy/<str:facet>/<slug:slug>/", views.term_detail, name="term"),
    path("orgs/", views.organisation_list, name="orgs"),
    path("orgs/<slug:slug>/", views.organisation_detail, name="org"),
    path("sources/", views.source_cases, name="sources"),
    path("feed/", CaseFeed(), name="feed"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("robots.txt", views.robots_txt, name="robots"),
    path("api/cases/", api.case_list, name="api_cases"),
    path("api/cases.jsonl", api.bulk_download, name="api_bulk"),
    path("api/taxonomy/", api.taxonomy, name="api_taxonomy"),
    re_path(r"^api/", api.not_found),
]
