"""`make run`'s servers: the worker beside the development web server, stopped together.

    python -m incidentlib.devrun [HOST:PORT]

Starts `manage.py procrastinate worker` (incidentlib/worker.py), then `manage.py runserver`
in the foreground. Ctrl-C reaches both (one process group, as a terminal sends it): each
stops cleanly, the worker after the job it is doing. When the web server ends for any other
reason, the worker is asked to stop (SIGTERM) too. The status is the web server's, so that
incidentlib.localdb reads a Ctrl-C as a clean end.

The worker does not restart when the code changes (runserver's reloader does): restart
`make run` after changing a task.
"""

import signal
import subprocess
import sys
from pathlib import Path

MANAGE = str(Path(__file__).resolve().parent.parent / "manage.py")
# A job is short; after this the worker is killed rather than held for.
WORKER_STOP_SECONDS = 20


def _ctrl_c_as_usual():
    """In a child: Ctrl-C as a process started from a terminal has it, not ignored as here."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(address):
    python = sys.executable
    # Ctrl-C is for the children: this process waits for them to end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker = subprocess.Popen(
        [python, MANAGE, "procrastinate", "worker"], preexec_fn=_ctrl_c_as_usual
    )
    web = subprocess.Popen([python, MANAGE, "runserver", address], preexec_fn=_ctrl_c_as_usual)
    signal.signal(signal.SIGTERM, lambda *_: web.terminate())
    try:
        status = web.wait()
    finally:
        if worker.poll() is None:
            worker.terminate()
        try:
            worker.wait(timeout=WORKER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
    return status


def main(argv):
    return run(argv[0] if argv else "127.0.0.1:8000")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
