"""LibraryAdmin: what every model admin of the library shares."""

from django.contrib import admin
from django.contrib.admin.widgets import AdminTextareaWidget
from django.db import models

from cases.admin.busy_rows import RefusedWhenBusy
from cases.review.forms import MultilineTextField
from cases.review.widgets import KeyCheckedAutocomplete


class LibraryAdmin(RefusedWhenBusy, KeyCheckedAutocomplete, admin.ModelAdmin):
    """What the library's admins share: the keys import files name a row by stay fixed.

    An import finds a case by its id, a term by its facet and slug, an organisation by its
    slug; changing one in the admin would cut the row off from the files that name it.
    A write that needs rows an import holds is refused after a moment, not left waiting
    (RefusedWhenBusy, cases/admin/busy_rows.py).
    """

    import_keys = ()
    show_facets = admin.ShowFacets.ALWAYS
    formfield_overrides = {models.TextField: {"form_class": MultilineTextField}}
    short_texts = ()  # text fields shown two rows high; the others are six

    class Media:
        css = {"all": ("cases/admin.css",)}

    def get_readonly_fields(self, request, obj=None):
        readonly = tuple(super().get_readonly_fields(request, obj))
        return readonly + self.import_keys if obj is not None else readonly

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.TextField):
            rows = 2 if db_field.name in self.short_texts else 6
            kwargs["widget"] = AdminTextareaWidget(attrs={"rows": rows})
        return super().formfield_for_dbfield(db_field, request, **kwargs)
