"""The organisations' admin: their names, slugs and case counts."""

from django.contrib import admin
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext_lazy

from cases.admin.library_admin import LibraryAdmin
from cases.models import Case


class OrganisationAdmin(LibraryAdmin):
    import_keys = ("slug",)
    list_display = ("name", "slug", "case_count")
    search_fields = ("name", "slug")
    # Explicit: Meta.ordering is not used by a query with an aggregate (the case count), and
    # the autocomplete pages through the organisations.
    ordering = ("name", "slug")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(case_count=Count("cases"))

    @admin.display(description=gettext_lazy("cases"), ordering="case_count")
    def case_count(self, organisation):
        return organisation.case_count

    def save_model(self, request, organisation, form, change):
        super().save_model(request, organisation, form, change)
        if change and "name" in form.changed_data:
            # Each of its cases reads differently now (its `org`): a copy kept in sync by
            # ?updated_since= (the library's time of each change) must fetch them again, and
            # "last change" names who made it (not the case's last editor, at this time).
            Case.objects.filter(organisation=organisation).update(
                changed_at=timezone.now(), changed_by=request.user.get_username()
            )
