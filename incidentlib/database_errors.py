"""A database error told in one line: for a curator's command, the import's problems and the
replica router's warnings."""


def first_line(error):
    """A database error's own message, without what follows it (the failing row, which may
    be a whole case's text, and PostgreSQL's detail and hint lines)."""
    return str(error).strip().split("\n", 1)[0]
