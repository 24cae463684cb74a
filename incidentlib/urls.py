from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("cases.urls")),
]

handler404 = "cases.views.not_found"
