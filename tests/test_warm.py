"""A new server process compiles the project's templates before its first request
(incidentlib/warm.py, run by incidentlib/wsgi.py), so that its first pages are not slower."""

import json
import os
import subprocess
import sys

from django.template import engines

from incidentlib.warm import project_templates

from .conftest import GOOD_KEY, ROOT

COMPILED = (
    "import json, incidentlib.wsgi; from django.template import engines; "
    "print(json.dumps(sorted(engines['django'].engine.template_loaders[0].get_template_cache)))"
)


def test_the_web_server_process_has_compiled_every_template_of_the_project_when_it_starts():
    environment = {k: v for k, v in os.environ.items() if k != "DEBUG"}
    result = subprocess.run(
        [sys.executable, "-c", COMPILED],
        cwd=ROOT,
        env={
            **environment,
            "SECRET_KEY": GOOD_KEY,
            "DJANGO_SETTINGS_MODULE": "incidentlib.settings",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    compiled = set(json.loads(result.stdout.splitlines()[-1]))
    names = set(project_templates(engines["django"]))
    assert {"base.html", "cases/case_detail.html", "includes/similar_cases.html"} <= names
    assert names <= compiled
