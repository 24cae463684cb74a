"""The taxonomy terms' admin, where terms get their labels in both languages."""

from cases.admin.filters import TermLabelFilter
from cases.admin.library_admin import LibraryAdmin
from cases.models import LIST_FACETS


class TermAdmin(LibraryAdmin):
    import_keys = ("facet", "slug")
    list_display = ("slug", "facet", "label_en", "label_ko", "needs_label")
    list_filter = (TermLabelFilter, "facet")
    search_fields = ("slug", "label_en", "label_ko")
    ordering = ("facet", "slug")
    # Saving a term in the admin gives it its labels.
    exclude = ("needs_label",)

    def save_model(self, request, obj, form, change):
        obj.needs_label = False
        super().save_model(request, obj, form, change)

    def get_search_results(self, request, queryset, search_term):
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        # The tags inline offers only the facets a case has several terms of; severity
        # and root cause are fields of the case (their limit_choices_to narrows them).
        if request.GET.get("model_name") == "caseterm":
            queryset = queryset.filter(facet__in=LIST_FACETS)
        return queryset, may_have_duplicates
