"""Further documents that JSON allows but no reader of the library could take back: nested too
deeply, or numbers too long. Refused with a message on the field, by the admin and the import."""

import pytest
from django.core.management import CommandError

from cases.models import Case

from .conftest import (
    change_url,
    import_cases,
    library_state,
    logged_in,
    make_staff,
    open_case,
    write_json,
)
from .library import plain_case, store

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "docs, message",
    [
        ("[" * 2000 + "]" * 2000, "nested too deeply to be read"),
        ("[" + "9" * 5000 + "]", "too many digits to be read"),
        ("[" * 300 + "]" * 300, "nested more than 256 levels deep"),
        ("[" + "9" * 1500 + "]", "more than 1000 digits"),
    ],
    ids=["2000 deep", "5000 digits", "300 deep", "1500 digits"],
)
def test_the_admin_says_so_on_the_field_and_changes_nothing(client, tmp_path, docs, message):
    store(tmp_path, plain_case("J-1"))
    editor = logged_in(client, make_staff("ed"))
    data = open_case(editor, "J-1")
    data["docs"] = docs
    response = editor.post(change_url("J-1"), data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Case.objects.get(id="J-1").docs == []


def test_the_import_names_the_field_and_writes_nothing(tmp_path):
    nested = []
    for _ in range(300):
        nested = [nested]
    before = library_state()
    path = write_json(tmp_path / "deep.json", [plain_case("J-2", docs=[nested, 10**1200])])
    with pytest.raises(CommandError):
        import_cases(path)
    assert library_state() == before


def test_the_import_reports_each_problem_with_its_path(tmp_path, capsys):
    nested = []
    for _ in range(300):
        nested = [nested]
    path = write_json(tmp_path / "deep.json", [plain_case("J-3", docs=[nested, 10**1200])])
    with pytest.raises(CommandError):
        import_cases(path)
    errors = capsys.readouterr().err
    assert "J-3: docs[1]: is a number of more than 1000 digits" in errors
    assert "J-3: docs[0]" in errors and "is nested more than 256 levels deep" in errors


def test_a_document_as_deep_as_allowed_is_kept_and_shown(client, tmp_path):
    nested = "deepest"
    for _ in range(250):
        nested = [nested]
    store(tmp_path, plain_case("J-4", docs=[nested]))
    assert Case.objects.get(id="J-4").docs == [nested]
    response = client.get("/cases/J-4")
    assert response.status_code == 200 and "deepest" in response.content.decode()
