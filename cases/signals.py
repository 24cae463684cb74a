"""What the library tells other apps when it is written.

`cases_written` is sent inside the transaction of a write that Django's own `post_save` does
not see: an import's COPY (cases/exchange/writer.py), with `ids`, the cases it created or
changed. A receiver that defers a job (procrastinate writes it through the same connection) has
it committed with the write, or not at all.
"""

from django.dispatch import Signal

cases_written = Signal()
