"""The admin's autocomplete selects, safe against a value that is no key.

Django's AutocompleteSelect looks up the chosen value to draw the option it shows, and a
value its key column cannot hold (a forged `organisation=x`, for a number) raised there:
the change form was a 500 where its field says "Select a valid choice". The values the
key cannot hold are left out of that lookup; the form field refuses them as it always did.
"""

from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError


class KeyCheckedAutocompleteSelect(AutocompleteSelect):
    def _holds(self, value):
        try:
            self.field.target_field.to_python(value)
        except ValidationError:
            return False
        return True

    def optgroups(self, name, value, attr=None):
        return super().optgroups(name, [v for v in value if self._holds(v)], attr)


class KeyCheckedAutocomplete(admin.options.BaseModelAdmin):
    """An admin (or inline) whose `autocomplete_fields` draw KeyCheckedAutocompleteSelect."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = KeyCheckedAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
