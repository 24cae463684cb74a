from django.db import migrations, models


def label_from_slug(slug):
    # As the importer makes one (cases/exchange/importer.py), frozen here.
    return slug.replace("-", " ").capitalize()


def mark_terms_made_by_imports(apps, schema_editor):
    """Terms whose English label is the one made from their slug and which have no Korean
    label were made by an import and never given labels; the others were."""
    Term = apps.get_model("cases", "Term")
    for term in Term.objects.filter(needs_label=True).only("id", "slug", "label_en", "label_ko"):
        if term.label_ko or term.label_en != label_from_slug(term.slug):
            Term.objects.filter(pk=term.pk).update(needs_label=False)


class Migration(migrations.Migration):
    dependencies = [("cases", "0008_case_changed_index")]

    operations = [
        migrations.AddField(
            model_name="term",
            name="needs_label",
            field=models.BooleanField(
                default=True,
                help_text="Made by an import, with a label made from its slug.",
                verbose_name="needs a label",
            ),
        ),
        migrations.RunPython(mark_terms_made_by_imports, migrations.RunPython.noop),
    ]
