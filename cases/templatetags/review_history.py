from django import template

from cases.review import history

register = template.Library()


@register.filter
def change_message(entry):
    """A history entry's message in the reader's language (cases/review/history.py)."""
    return history.change_message(entry)


@register.simple_tag
def imported_change_message(change):
    """What one import did to the case, in the reader's language (cases/review/history.py)."""
    return history.imported_change_message(change)
