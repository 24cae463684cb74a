from django.contrib import admin
from django.urls import include, path

from incidentlib.health import healthz, readyz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("", include("cases.urls")),
]

handler404 = "cases.views.not_found"
handler500 = "incidentlib.errors.server_error"
