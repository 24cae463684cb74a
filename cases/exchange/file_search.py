"""Which files a run reads: the paths given, folders searched recursively for case files
(`collect_files`), each problem of a path (missing, unreadable, a pipe) said by name.
"""

import os
from pathlib import Path

from cases.exchange.records import Problem

CASE_FILE_SUFFIXES = (".json", ".jsonl")


def file_suffix(path):
    """A file's suffix as its kind is told by, whatever its case (`library.JSONL`)."""
    return Path(path).suffix.lower()


def _case_files_under(directory, problems):
    """The case files under a directory, searched recursively (symbolic links followed),
    hidden folders and files (.git, .venv) left out. A folder that cannot be read, or that a
    link leads back into, is a problem: skipping it in silence would leave cases out."""
    found, seen = [], set()

    def unreadable(error):
        problems.append(Problem(error.filename, f"cannot be read: {error.strerror}"))

    for folder, folders, names in os.walk(directory, onerror=unreadable, followlinks=True):
        try:
            info = os.stat(folder)
        except OSError as error:
            unreadable(error)
            folders[:] = []
            continue
        if (info.st_dev, info.st_ino) in seen:
            problems.append(
                Problem(folder, "a symbolic link leads back to a folder already searched")
            )
            folders[:] = []
            continue
        seen.add((info.st_dev, info.st_ino))
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [
            Path(folder) / name
            for name in names
            if not name.startswith(".") and file_suffix(name) in CASE_FILE_SUFFIXES
        ]
    return sorted(found)


def collect_files(paths):
    """The case files named, directories searched recursively; problems for missing paths.
    A file named twice (or in a folder named too) is read once."""
    files, problems = [], []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = _case_files_under(path, problems)
            if not found:
                problems.append(Problem(str(path), "no *.json or *.jsonl files in this directory"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif path.exists():
            problems.append(
                Problem(
                    str(path),
                    "not a regular file (a pipe or a device): the import reads its files "
                    "twice, once to check and once to write; save it to a file first",
                )
            )
        else:
            problems.append(Problem(str(path), "no such file or directory"))
    once = {}
    for path in files:
        once.setdefault(path.resolve(), path)
    return list(once.values()), problems
