"""The component `database` had the Korean label of the domain `database`, 데이터베이스: a
case's tags showed two tags of one name (472d7d7 changed fixtures/taxonomy.json). A library
loaded before keeps its terms (load_demo leaves existing terms alone), so this gives the
component its new label there too, unless someone gave it one of their own.
The update raises the library's generation like any change of a term: no page cached with
the old label is served after it."""

from django.db import migrations

OLD, NEW = "데이터베이스", "데이터베이스 서버"


def relabel(apps, schema_editor):
    Term = apps.get_model("cases", "Term")
    Term.objects.filter(facet="components", slug="database", label_ko=OLD).update(label_ko=NEW)


def label_back(apps, schema_editor):
    Term = apps.get_model("cases", "Term")
    Term.objects.filter(facet="components", slug="database", label_ko=NEW).update(label_ko=OLD)


class Migration(migrations.Migration):
    dependencies = [("cases", "0019_organisation_pages_by_date")]

    operations = [migrations.RunPython(relabel, label_back)]
