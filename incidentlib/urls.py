from django.contrib import admin
from django.urls import include, path

from incidentlib.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("", include("cases.urls")),
]

handler404 = "cases.views.not_found"
