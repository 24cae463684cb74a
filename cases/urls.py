from django.urls import path, re_path

from . import views

app_name = "cases"

CASE_ID = r"(?P<case_id>[A-Za-z][A-Za-z0-9]{0,9}-[0-9]{1,8})"

urlpatterns = [
    path("", views.home, name="home"),
    path("cases/", views.case_list, name="list"),
    re_path(rf"^cases/{CASE_ID}\.json$", views.case_json, name="detail_json"),
    re_path(rf"^cases/{CASE_ID}/?$", views.case_detail, name="detail"),
]
