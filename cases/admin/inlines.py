"""The lists of a case shown in its change form: its tags, remediation steps, action items,
sources and related cases, each an ordered table whose inputs say which row they are in."""

from django.contrib import admin
from django.contrib.admin.widgets import AdminTextareaWidget
from django.db import models
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases import translations
from cases.admin.library_admin import LibraryAdmin
from cases.admin.sections import FIX_AND_LESSONS, SOURCES, WHY
from cases.models import (
    LIST_FACETS,
    ActionItem,
    CaseTerm,
    Facet,
    RelatedCase,
    RemediationStep,
    Source,
    Term,
)
from cases.review.forms import OrderedItemForm, OrderedItemFormSet, offer_still_correct
from cases.review.widgets import KeyCheckedAutocomplete


class NamedRowsFormSet(OrderedItemFormSet):
    """A list whose inputs each say, for screen readers, which column and row they are in.

    A table row's inputs have no <label>: the column heads name them for the eye only. Each
    gets an aria-label ("Order (tag 2)", "Delete (tag 2)", "Address (new source)"), which
    static/cases/admin.js also gives the autocomplete boxes drawn over the selects.
    """

    item_name = ""  # the inline's verbose_name, set by OrderedInline.get_formset
    list_name = None  # a list of bilingual texts ("remediation"): each row's own "still correct"

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if index is not None and index < self.initial_form_count():
            row = _("%(item)s %(number)d") % {"item": self.item_name, "number": index + 1}
        else:
            row = _("new %(item)s") % {"item": self.item_name}
        for field in form.fields.values():
            # An autocomplete select sits inside RelatedFieldWidgetWrapper, which renders
            # its inner widget's attrs.
            widget = getattr(field.widget, "widget", field.widget)
            if not widget.is_hidden:
                widget.attrs["aria-label"] = _("%(column)s (%(row)s)") % {
                    "column": capfirst(field.label),
                    "row": row,
                }
        if self.list_name and form.instance.pk is not None and "text_ko" in form.fields:
            item = form.instance
            key = translations.item_key(self.list_name, item.position)
            text = translations.text_state(
                self.instance.translations, key, item.text_en, item.text_ko
            )
            offer_still_correct(form.fields["text_ko"], text, self)


class OrderedInline(KeyCheckedAutocomplete, admin.TabularInline):
    """An ordered list of a case, shown in the change form's `section`."""

    form = OrderedItemForm
    formset = NamedRowsFormSet
    template = "admin/cases/edit_inline/tabular.html"
    formfield_overrides = LibraryAdmin.formfield_overrides
    extra = 1
    section = None
    list_name = None  # for the lists of bilingual texts: their name in cases/translations.py

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)  # a class made for this request
        formset.item_name = self.verbose_name
        formset.list_name = self.list_name
        return formset

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.TextField):
            kwargs["widget"] = AdminTextareaWidget(attrs={"rows": 2})
        return super().formfield_for_dbfield(db_field, request, **kwargs)


class CaseTermInline(OrderedInline):
    model = CaseTerm
    fields = ("order", "term")
    autocomplete_fields = ("term",)
    section = WHY
    verbose_name = gettext_lazy("tag")
    verbose_name_plural = gettext_lazy("tags: domain, symptoms, components, contributing factors")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "term":
            kwargs["queryset"] = Term.objects.filter(facet__in=LIST_FACETS)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class RemediationInline(OrderedInline):
    model = RemediationStep
    fields = ("order", "text_en", "text_ko", "kind")
    section = FIX_AND_LESSONS
    list_name = "remediation"

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "kind":
            # A plain select of the fix facet's terms (a few dozen at most), in label order.
            kwargs["queryset"] = Term.objects.filter(facet=Facet.FIX).order_by("label_en")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ActionItemInline(OrderedInline):
    model = ActionItem
    fields = ("order", "text_en", "text_ko")
    section = FIX_AND_LESSONS
    list_name = "action_items"


class SourceInline(OrderedInline):
    model = Source
    fields = ("order", "url", "kind", "license", "archived")
    section = SOURCES
    verbose_name_plural = gettext_lazy("cited sources")


class RelatedCaseInline(OrderedInline):
    model = RelatedCase
    fk_name = "from_case"
    fields = ("order", "to_case")
    autocomplete_fields = ("to_case",)
    section = SOURCES
