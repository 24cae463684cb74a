# A case's search vector is stored out of line as it is, never compressed.
#
# Some 8 KB a case, it is moved out of the row (TOAST), and PostgreSQL first tries to compress
# it (pglz). It never gains: lexemes and positions do not shrink by the quarter pglz asks for,
# so every case is stored as it came, after a failed attempt that took a sixth of the writing
# backend's time in an import (perf, 10,000 cases). STORAGE EXTERNAL skips the attempt; the
# stored bytes are the same. Rows written before keep theirs as they are.

from django.db import migrations

TABLE_COLUMN = "cases_case ALTER COLUMN search_vector"


class Migration(migrations.Migration):
    dependencies = [("cases", "0016_fewer_list_indexes")]

    operations = [
        migrations.RunSQL(
            f"ALTER TABLE {TABLE_COLUMN} SET STORAGE EXTERNAL",
            f"ALTER TABLE {TABLE_COLUMN} SET STORAGE EXTENDED",
        )
    ]
