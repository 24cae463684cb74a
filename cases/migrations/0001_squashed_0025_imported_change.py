"""The cases app's tables, and what the database keeps up to date by itself, as migrations
0001 to 0025 left them: one migration in place of the 25.

`replaces` names those 25. A database that has recorded all of them takes this one as applied
without running it; a fresh database runs it. One that stopped part of the way cannot be
migrated by this release (CHANGELOG.md): it must reach 0025 with the release before.

The database keeps, whatever writes the library (the import, the admin, a review, plain SQL):
each case's search vectors and term ids, the library's generation, the deleted cases and the
facet counts. Their functions and triggers are the SQL text of `_0001_sql.py`, this
migration's own, and only there. A change to one is a migration of its own that carries the
SQL it changes (CREATE OR REPLACE ...), as text of its own: no migration reads a file.
tests/test_database_sql.py holds the database to the last text each function was given.

A transaction that writes whole cases, lists included (the import), sets
`incidentlib.bulk_write` to `on` for itself: the list triggers then leave the case rows alone
(the case row written after its lists derives everything once), no change event is queued per
row, and it raises the generation itself, once, at its end.
"""

import cases.durations
import cases.models
import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.core.validators
import django.db.models.constraints
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from cases.migrations._0001_sql import (
    DELETED_CASES,
    DERIVED_COLUMNS,
    DROP_DELETED_CASES,
    DROP_DERIVED_COLUMNS,
    DROP_FACET_COUNTS,
    DROP_GENERATION,
    DROP_SEARCH_VECTOR,
    FACET_COUNTS,
    GENERATION,
    NARROW_ROWS,
    SEARCH_VECTOR,
    WIDE_ROWS,
)
from cases.migrations._permissions import create_permissions_now


# The planner told what a match costs -----------------------------------------------------------
# PostgreSQL counts matching a search vector as cheap as comparing two numbers, and so would
# rather read every case's vector (kept out of line) than ask the GIN index: a second for a word
# most of 100,000 cases hold, against 40 ms. Its real cost, told to the planner, makes it ask the
# index. Changing a function of pg_catalog needs a superuser, and pg_dump does not carry it: a
# database restored from a dump, or migrated by a role that is not one, has a superuser run this
# once (docs/caching.md, "The planner told what a match costs"). Without it searches work,
# slower at scale.
SEARCH_MATCH_COST = "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) COST 100"


def tell_the_planner_what_a_match_costs(apps, schema_editor):
    import warnings

    from django.db import DatabaseError, transaction

    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(SEARCH_MATCH_COST)
    except DatabaseError as error:
        warnings.warn(
            f"{SEARCH_MATCH_COST} needs a superuser ({error}); run it as one for fast searches "
            'at scale (docs/caching.md, "The planner told what a match costs")',
            stacklevel=1,
        )


# The Reviewer group ----------------------------------------------------------------------------
REVIEWER_PERMISSIONS = {
    "case": ["view", "change", "review"],
    "source": ["view", "add", "change", "delete"],
    "remediationstep": ["view", "add", "change", "delete"],
    "actionitem": ["view", "add", "change", "delete"],
    "caseterm": ["view", "add", "change", "delete"],
    "relatedcase": ["view", "add", "change", "delete"],
    "term": ["view"],
    "organisation": ["view"],
}


def create_reviewer_group(apps, schema_editor):
    """The Reviewer group: may edit cases and approve them (cases.review_case)."""
    create_permissions_now(apps, "cases")
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name="Reviewer")
    codenames = [
        "review_case" if action == "review" else f"{action}_{model}"
        for model, actions in REVIEWER_PERMISSIONS.items()
        for action in actions
    ]
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="cases", codename__in=codenames)
    )


def remove_reviewer_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="Reviewer").delete()


def bilingual(name, label, required=False):
    """The English and Korean columns of a case's text (cases.models' english_text and
    korean_text as they are at 0025)."""
    longest = django.core.validators.MaxLengthValidator(100000)
    english = {"validators": [longest, django.core.validators.MinLengthValidator(1)]}
    if not required:
        english = {"blank": True, "null": True, "validators": [longest]}
    return [
        (f"{name}_en", models.TextField(**english, verbose_name=f"{label} (English)")),
        (f"{name}_ko", models.TextField(blank=True, null=True, validators=[longest], verbose_name=f"{label} (Korean)")),
    ]


# A case's texts: (column name, label, required), each in English and Korean.
CASE_TEXTS = [("title", "title", True), ("summary", "summary", True), ("trigger", "trigger")]
CASE_TEXTS += [("symptoms_text", "symptoms"), ("detection", "detection"), ("lessons", "lessons")]


class Migration(migrations.Migration):
    replaces = [
        ("cases", "0001_initial"),
        ("cases", "0002_review_permission"),
        ("cases", "0003_search"),
        ("cases", "0004_case_version"),
        ("cases", "0005_search_mixed_korean_words"),
        ("cases", "0006_inline_field_labels"),
        ("cases", "0007_derived_columns_and_generation"),
        ("cases", "0008_case_changed_index"),
        ("cases", "0009_term_needs_label"),
        ("cases", "0010_case_translations"),
        ("cases", "0011_remediation_kind"),
        ("cases", "0012_case_duration_seconds"),
        ("cases", "0013_deleted_case"),
        ("cases", "0014_import_korean_vectors"),
        ("cases", "0015_facet_counts"),
        ("cases", "0016_fewer_list_indexes"),
        ("cases", "0017_search_vector_stored_uncompressed"),
        ("cases", "0018_facet_counts_within_terms"),
        ("cases", "0019_organisation_pages_by_date"),
        ("cases", "0020_component_database_korean_label"),
        ("cases", "0021_case_term_names"),
        ("cases", "0022_address_host_readable"),
        ("cases", "0023_source_url_with_case"),
        ("cases", "0024_once_reviewed"),
        ("cases", "0025_imported_change"),
    ]

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name='DeletedCase',
            fields=[
                ('case_id', models.CharField(max_length=20, primary_key=True, serialize=False, verbose_name='case id')),
                ('deleted_at', models.DateTimeField(verbose_name='deleted at')),
                ('once_reviewed', models.BooleanField(default=True, verbose_name='once reviewed')),
            ],
            options={'verbose_name': 'deleted case', 'verbose_name_plural': 'deleted cases', 'indexes': [models.Index(fields=['-deleted_at', 'case_id'], name='deleted_case_since_idx')]},
        ),
        migrations.CreateModel(
            name='FacetCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.IntegerField()),
                ('reviewed', models.BooleanField()),
                ('cases', models.IntegerField()),
                ('within', models.IntegerField(default=0)),
                ('txid', models.BigIntegerField(editable=False, null=True)),
            ],
            options={'verbose_name': 'facet count', 'indexes': [models.Index(fields=['within', 'key'], name='facetcount_within_idx'), models.Index(condition=models.Q(('txid__isnull', False)), fields=['txid'], name='facetcount_unfolded_idx')]},
        ),
        migrations.CreateModel(
            name='ImportedChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('case_id', models.CharField(max_length=20, verbose_name='case id')),
                ('imported_at', models.DateTimeField(verbose_name='imported at')),
                ('file', models.TextField(verbose_name='file')),
                ('fields', django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), default=list, size=None, verbose_name='fields')),
                ('outcome', models.CharField(blank=True, default='', max_length=20, verbose_name='outcome')),
            ],
            options={'verbose_name': 'imported change', 'verbose_name_plural': 'imported changes', 'indexes': [models.Index(fields=['case_id', 'imported_at'], name='imported_change_case_idx')]},
        ),
        migrations.CreateModel(
            name='Library',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('generation', models.BigIntegerField(verbose_name='generation')),
                ('changed_at', models.DateTimeField(verbose_name='changed at')),
            ],
            options={'verbose_name': 'library state', 'constraints': [models.CheckConstraint(condition=models.Q(('id', 1)), name='library_one_row')]},
        ),
        migrations.CreateModel(
            name='Organisation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.CharField(max_length=64, unique=True, validators=[django.core.validators.RegexValidator('^[a-z0-9]+(?:-[a-z0-9]+)*\\Z', 'Use lowercase letters, digits and single hyphens.')], verbose_name='slug')),
                ('name', models.CharField(max_length=200, verbose_name='name')),
            ],
            options={'verbose_name': 'organisation', 'verbose_name_plural': 'organisations', 'ordering': ['name'], 'constraints': [models.CheckConstraint(condition=models.Q(('slug__regex', '^[a-z0-9]+(?:-[a-z0-9]+)*$')), name='organisation_slug_format'), models.CheckConstraint(condition=models.Q(('name', ''), _negated=True), name='organisation_name_not_empty')]},
        ),
        migrations.CreateModel(
            name='Term',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('facet', models.CharField(choices=[('domain', 'Domain'), ('symptoms', 'Symptoms'), ('components', 'Components'), ('root_cause', 'Root cause'), ('contributing', 'Contributing factors'), ('severity', 'Severity'), ('fix', 'Kind of fix')], max_length=20, verbose_name='facet')),
                ('slug', models.CharField(max_length=64, validators=[django.core.validators.RegexValidator('^[a-z0-9]+(?:-[a-z0-9]+)*\\Z', 'Use lowercase letters, digits and single hyphens.')], verbose_name='slug')),
                ('label_en', models.CharField(max_length=200, verbose_name='label (English)')),
                ('label_ko', models.CharField(blank=True, max_length=200, verbose_name='label (Korean)')),
                ('description_en', models.TextField(blank=True, verbose_name='description (English)')),
                ('description_ko', models.TextField(blank=True, verbose_name='description (Korean)')),
                ('needs_label', models.BooleanField(default=True, help_text='Made by an import, with a label made from its slug.', verbose_name='needs a label')),
            ],
            options={'verbose_name': 'taxonomy term', 'verbose_name_plural': 'taxonomy terms', 'ordering': ['facet', 'slug'], 'constraints': [models.UniqueConstraint(fields=('facet', 'slug'), name='term_one_slug_per_facet'), models.CheckConstraint(condition=models.Q(('facet__in', ['domain', 'symptoms', 'components', 'root_cause', 'contributing', 'severity', 'fix'])), name='term_facet_is_known'), models.CheckConstraint(condition=models.Q(('slug__regex', '^[a-z0-9]+(?:-[a-z0-9]+)*$')), name='term_slug_format'), models.CheckConstraint(condition=models.Q(('label_en', ''), _negated=True), name='term_label_en_not_empty')]},
        ),
        migrations.CreateModel(
            name='Case',
            fields=[
                ('id', models.CharField(max_length=20, primary_key=True, serialize=False, validators=[django.core.validators.RegexValidator('^[A-Z][A-Z0-9]{0,9}-[0-9]{1,8}\\Z', 'Enter a case id such as IL-0137.')], verbose_name='case id')),
                ('date', models.DateField(verbose_name='date')),
                ('date_kind', models.CharField(choices=[('occurred', 'occurred'), ('detected', 'detected'), ('reported', 'reported'), ('published', 'published')], max_length=20, verbose_name='what the date is')),
                *(field for text in CASE_TEXTS for field in bilingual(*text)),
                ('impact_scope', models.TextField(blank=True, null=True, validators=[django.core.validators.MaxLengthValidator(4000)], verbose_name='impact: scope')),
                ('impact_users', models.TextField(blank=True, null=True, validators=[django.core.validators.MaxLengthValidator(4000)], verbose_name='impact: users')),
                ('impact_region', models.TextField(blank=True, null=True, validators=[django.core.validators.MaxLengthValidator(4000)], verbose_name='impact: region')),
                ('detected_after', models.CharField(blank=True, max_length=32, null=True, validators=[django.core.validators.RegexValidator('^P(?!\\Z)([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+S)?)?\\Z', 'Enter an ISO 8601 duration such as PT45M, PT8H or P2DT3H.')], verbose_name='detected after')),
                ('resolved_after', models.CharField(blank=True, max_length=32, null=True, validators=[django.core.validators.RegexValidator('^P(?!\\Z)([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+S)?)?\\Z', 'Enter an ISO 8601 duration such as PT45M, PT8H or P2DT3H.')], verbose_name='resolved after')),
                ('docs', models.JSONField(blank=True, default=list, verbose_name='further documents')),
                ('url', models.CharField(blank=True, max_length=2000, null=True, validators=[cases.models.validate_http_url], verbose_name='canonical address')),
                ('written_by', models.CharField(blank=True, max_length=150, null=True, verbose_name='written by')),
                ('reviewed_by', models.CharField(blank=True, max_length=150, null=True, verbose_name='reviewed by')),
                ('reviewed_at', models.DateTimeField(blank=True, null=True, verbose_name='reviewed at')),
                ('updated_at', models.DateTimeField(verbose_name='updated at')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='added to the library')),
                ('recurrence_of', models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='recurrences', to='cases.case', verbose_name='recurrence of')),
                ('reviewer', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='reviewer account')),
                ('organisation', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='cases', to='cases.organisation', verbose_name='organisation')),
                ('root_cause', models.ForeignKey(limit_choices_to={'facet': 'root_cause'}, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.term', verbose_name='root cause')),
                ('severity', models.ForeignKey(limit_choices_to={'facet': 'severity'}, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.term', verbose_name='severity')),
                ('search_vector', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('changed_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='changed at')),
                ('changed_by', models.CharField(blank=True, editable=False, max_length=150, null=True, verbose_name='changed by')),
                ('version', models.PositiveIntegerField(default=1, editable=False, verbose_name='version')),
                ('term_ids', django.contrib.postgres.fields.ArrayField(base_field=models.IntegerField(), default=list, editable=False, size=None)),
                ('title_vector', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('translations', models.JSONField(blank=True, default=dict, editable=False, verbose_name='translations')),
                ('detected_seconds', models.GeneratedField(db_persist=True, expression=cases.durations.DurationSeconds('detected_after'), output_field=models.FloatField(), verbose_name='seconds to detect')),
                ('resolved_seconds', models.GeneratedField(db_persist=True, expression=cases.durations.DurationSeconds('resolved_after'), output_field=models.FloatField(), verbose_name='seconds to resolve')),
                ('once_reviewed', models.BooleanField(default=False, editable=False, verbose_name='once reviewed')),
            ],
            options={
                'verbose_name': 'case',
                'verbose_name_plural': 'cases',
                'ordering': ['-date', 'id'],
                'permissions': [('review_case', 'Can approve a case or return it to draft')],
                'indexes': [
                    models.Index(fields=['-date', 'id'], name='case_date_idx'),
                    models.Index(fields=['organisation', '-date', 'id'], name='case_organisation_date_idx'),
                    models.Index(fields=['-updated_at'], name='case_updated_idx'),
                    models.Index(fields=['changed_at', 'id'], name='case_changed_idx'),
                    models.Index(fields=['-reviewed_at'], name='case_reviewed_idx'),
                    django.contrib.postgres.indexes.GinIndex(fields=['search_vector'], name='case_search_idx'),
                    django.contrib.postgres.indexes.GinIndex(fields=['title_vector'], name='case_title_search_idx'),
                    django.contrib.postgres.indexes.GinIndex(fields=['term_ids'], name='case_term_ids_idx'),
                    models.Index(fields=['detected_seconds'], name='case_detected_seconds_idx'),
                    models.Index(fields=['resolved_seconds'], name='case_resolved_seconds_idx'),
                    models.Index(fields=['recurrence_of'], name='case_recurrence_of_idx'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('id__regex', '^[A-Z][A-Z0-9]{0,9}-[0-9]{1,8}$')), name='case_id_format'),
                    models.CheckConstraint(condition=models.Q(('date_kind__in', ['occurred', 'detected', 'reported', 'published'])), name='case_date_kind_is_known'),
                    models.CheckConstraint(condition=models.Q(models.Q(('title_en', ''), _negated=True), models.Q(('summary_en', ''), _negated=True)), name='case_english_title_and_summary', violation_error_message='A case needs an English title and summary.'),
                    models.CheckConstraint(condition=models.Q(models.Q(('reviewed_at__isnull', True), ('reviewed_by__isnull', True)), models.Q(('reviewed_at__isnull', False), ('reviewed_by__isnull', False)), _connector='OR'), name='case_review_both_or_neither', violation_error_message='A reviewed case has both a reviewer and a review time; a draft has neither.'),
                    models.CheckConstraint(condition=models.Q(('recurrence_of', models.F('id')), _negated=True), name='case_not_own_recurrence', violation_error_message='A case cannot be a recurrence of itself.'),
                    models.CheckConstraint(condition=models.Q(('url__isnull', True), ('url__regex', '^https?://[^\\s]+$'), _connector='OR'), name='case_url_is_http'),
                    models.CheckConstraint(condition=models.Q(('detected_after__isnull', True), ('detected_after__regex', '^P(?!$)(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$'), _connector='OR'), name='case_detected_after_format'),
                    models.CheckConstraint(condition=models.Q(('resolved_after__isnull', True), ('resolved_after__regex', '^P(?!$)(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$'), _connector='OR'), name='case_resolved_after_format'),
                ],
            },
        ),
        migrations.CreateModel(
            name='RelatedCase',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField()),
                ('from_case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='related_links', to='cases.case')),
                ('to_case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='related_from_links', to='cases.case', verbose_name='related case')),
            ],
            options={
                'verbose_name': 'related case',
                'verbose_name_plural': 'related cases',
                'ordering': ['position'],
                'indexes': [
                    models.Index(fields=['to_case'], name='related_case_to_idx'),
                ],
                'constraints': [
                    models.UniqueConstraint(fields=('from_case', 'to_case'), name='related_case_once'),
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('from_case', 'position'), name='related_case_position_unique'),
                    models.CheckConstraint(condition=models.Q(('from_case', models.F('to_case')), _negated=True), name='related_case_not_itself', violation_error_message='A case cannot be related to itself.'),
                ],
            },
        ),
        migrations.CreateModel(
            name='Source',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='position')),
                ('url', models.CharField(max_length=2000, validators=[cases.models.validate_http_url], verbose_name='address')),
                ('kind', models.CharField(max_length=64, validators=[django.core.validators.RegexValidator('^[a-z0-9]+(?:-[a-z0-9]+)*\\Z', 'Use lowercase letters, digits and single hyphens.')], verbose_name='kind')),
                ('license', models.CharField(blank=True, max_length=200, null=True, verbose_name='licence')),
                ('archived', models.CharField(blank=True, max_length=2000, null=True, validators=[cases.models.validate_http_url], verbose_name='archived copy')),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='sources', to='cases.case')),
            ],
            options={
                'verbose_name': 'source',
                'verbose_name_plural': 'sources',
                'ordering': ['position', 'id'],
                'indexes': [
                    models.Index(fields=['url'], include=('case',), name='source_url_case_idx'),
                ],
                'constraints': [
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='source_position_unique'),
                    models.CheckConstraint(condition=models.Q(('url__regex', '^https?://[^\\s]+$')), name='source_url_is_http'),
                    models.CheckConstraint(condition=models.Q(('archived__isnull', True), ('archived__regex', '^https?://[^\\s]+$'), _connector='OR'), name='source_archived_is_http'),
                    models.CheckConstraint(condition=models.Q(('kind__regex', '^[a-z0-9]+(?:-[a-z0-9]+)*$')), name='source_kind_format'),
                ],
            },
        ),
        migrations.CreateModel(
            name='RemediationStep',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='position')),
                *bilingual('text', 'text', required=True),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='remediation_steps', to='cases.case')),
                ('kind', models.ForeignKey(blank=True, limit_choices_to={'facet': 'fix'}, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.term', verbose_name='kind of fix')),
            ],
            options={
                'verbose_name': 'remediation step',
                'verbose_name_plural': 'remediation',
                'ordering': ['position', 'id'],
                'abstract': False,
                'constraints': [
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='remediation_position_unique'),
                    models.CheckConstraint(condition=models.Q(('text_en', ''), _negated=True), name='remediation_text_en'),
                ],
            },
        ),
        migrations.CreateModel(
            name='CaseTerm',
            options={
                'verbose_name': 'term of a case',
                'verbose_name_plural': 'terms of cases',
                'ordering': ['position'],
                'indexes': [
                    models.Index(fields=['term', 'case'], name='case_term_by_term_idx'),
                ],
                'constraints': [
                    models.UniqueConstraint(fields=('case', 'term'), name='case_term_once'),
                    models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='case_term_position_unique'),
                ],
            },
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField()),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='case_terms', to='cases.case')),
                ('term', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='case_links', to='cases.term', verbose_name='taxonomy term')),
            ],
        ),
        migrations.CreateModel(
            name='ActionItem',
            options={'verbose_name': 'action item', 'verbose_name_plural': 'action items', 'ordering': ['position', 'id'], 'abstract': False, 'constraints': [models.UniqueConstraint(deferrable=django.db.models.constraints.Deferrable['DEFERRED'], fields=('case', 'position'), name='action_item_position_unique'), models.CheckConstraint(condition=models.Q(('text_en', ''), _negated=True), name='action_item_text_en')]},
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='position')),
                *bilingual('text', 'text', required=True),
                ('case', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='action_items', to='cases.case')),
            ],
        ),
        migrations.AddField(
            model_name='case',
            name='related',
            field=models.ManyToManyField(blank=True, related_name='related_from', through='cases.RelatedCase', to='cases.case', verbose_name='related cases'),
        ),
        migrations.AddField(
            model_name='case',
            name='terms',
            field=models.ManyToManyField(blank=True, related_name='cases', through='cases.CaseTerm', to='cases.term', verbose_name='tags'),
        ),
        migrations.RunSQL(NARROW_ROWS, WIDE_ROWS),
        migrations.RunSQL(SEARCH_VECTOR, DROP_SEARCH_VECTOR),
        migrations.RunSQL(DERIVED_COLUMNS, DROP_DERIVED_COLUMNS),
        migrations.RunSQL(GENERATION, DROP_GENERATION),
        migrations.RunSQL(DELETED_CASES, DROP_DELETED_CASES),
        migrations.RunSQL(FACET_COUNTS, DROP_FACET_COUNTS),
        migrations.RunPython(tell_the_planner_what_a_match_costs, migrations.RunPython.noop),
        migrations.RunPython(create_reviewer_group, remove_reviewer_group),
    ]
