"""The prune of the changes of texts counted, not dated by a transaction id.

0029 noted the newest transaction whose change the worker dropped, and a search's page read by
a snapshot whose oldest running transaction was older could not be checked. But that oldest
transaction is the whole server's: any transaction left open, in any database, kept every
search's page from being served again after a prune. A page now keeps the number of prunes
made when it was read (`Library.objects.state` reads it with the rest): a prune raises it,
and the pages read before it are made again. A page read after a prune needs none of the
rows it dropped: the prune dropped only changes committed before it began, which the page's
snapshot saw.
"""

from django.db import migrations

EPOCH = """
DROP TABLE cases_textchange_pruned;
CREATE TABLE cases_textchange_pruned (
    id integer PRIMARY KEY CHECK (id = 1),
    epoch bigint NOT NULL
);
"""

THROUGH = """
DROP TABLE cases_textchange_pruned;
CREATE TABLE cases_textchange_pruned (
    id integer PRIMARY KEY CHECK (id = 1),
    through xid8 NOT NULL
);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0029_text_changes"),
    ]

    operations = [migrations.RunSQL(EPOCH, THROUGH)]
