from django import template

from cases.review import history

register = template.Library()


@register.filter
def change_message(entry):
    """A history entry's message in the reader's language (cases/review/history.py)."""
    return history.change_message(entry)
