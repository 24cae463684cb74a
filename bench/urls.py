"""The project's URLs and two views that measure the cost of serving a request at all:
/bench/bare (no database) and /bench/one-query (one `SELECT 1`)."""

from django.db import connection
from django.http import HttpResponse
from django.urls import include, path

from incidentlib import urls as project_urls


def bare(request):
    return HttpResponse("ok")


def one_query(request):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return HttpResponse("ok")


urlpatterns = [
    path("bench/bare", bare),
    path("bench/one-query", one_query),
    path("", include(project_urls)),
]

handler404 = getattr(project_urls, "handler404", None)
