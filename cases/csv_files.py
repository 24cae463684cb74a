"""The CSV files the library writes (the charts of /stats/): every one is made here.

A spreadsheet runs a cell that begins with `=`, `+`, `-` or `@` as a formula (and one that
begins with a tab or a carriage return, which it may drop first), so an organisation named
`=HYPERLINK(...)` would run in the reader's spreadsheet. As OWASP recommends ("CSV
Injection"), such a text cell is written with a single quote before it, which a spreadsheet
shows as text; the csv module quotes the cells holding a separator, a quote or a line break,
and doubles their quotes. Numbers are written as they are.
"""

import csv
import io

# What a spreadsheet reads as the start of a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutral_cell(value):
    """`value`, a text that a spreadsheet would run as a formula quoted as text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(rows):
    """The rows (lists of cells) as CSV text, each cell made safe for spreadsheets."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([neutral_cell(cell) for cell in row])
    return out.getvalue()
