"""A thread of a large import's with a database connection of its own (vectors.Ahead's workers,
gin_lists.Merger): work runs there in the order given, and closing it closes the
connection in that thread, the only one allowed to (Django's connections are per thread).
"""

from concurrent.futures import ThreadPoolExecutor

from django.db import DEFAULT_DB_ALIAS, connections


class ConnectionThread:
    def __init__(self, name):
        self.pool = ThreadPoolExecutor(1, thread_name_prefix=name)

    def submit(self, function, *args):
        """Run function(*args) in the thread, after what was submitted before; a future."""
        return self.pool.submit(function, *args)

    def close(self):
        """Wait for the work submitted, then close the thread's connection and the thread."""
        try:
            self.pool.submit(_close_connection).result()
        finally:
            self.pool.shutdown()


def _close_connection():
    connections[DEFAULT_DB_ALIAS].close()
