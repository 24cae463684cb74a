"""The production server as gunicorn runs it (gunicorn.conf.py): JSON logs and metrics on
their own address, request ids after a HUP, no control socket, compose's empty variables,
LOG_LEVEL, error reports to Sentry, and the deployment check of the production stack."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from .conftest import GOOD_KEY, ROOT, url_of_test_database


def production_env(**changes):
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "SENTRY_DSN")}
    env.update(
        SECRET_KEY=GOOD_KEY,
        ALLOWED_HOSTS="incidents.example.com,127.0.0.1",
        DATABASE_URL=env.get("DATABASE_URL") or "postgres://x@localhost/x",
    )
    env.update(changes)
    return env


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.status, answer.read().decode()


def started_gunicorn(env, log):
    """A production gunicorn of the checkout writing to `log`, once its /healthz answers."""
    with open(log, "w") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "incidentlib.wsgi"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    answering(server, f"http://{env['GUNICORN_BIND']}/healthz", log)
    return server


def answering(server, url, log):
    """Wait until the url answers 200 (its server still running). The master loads the
    Korean analyser and the sentence encoder first: seconds alone, a minute or more beside
    other test workers on two cores."""
    deadline = time.monotonic() + 120
    while True:
        try:
            assert fetch(url)[0] == 200
            return
        except OSError:
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)


@pytest.mark.django_db
@pytest.mark.parametrize("access_log", ["1", "0"])
def test_gunicorn_logs_json_and_serves_metrics_on_their_own_address(tmp_path, access_log):
    port, metrics_port = free_port(), free_port()
    log = tmp_path / "gunicorn.log"
    env = production_env(
        DATABASE_URL=url_of_test_database(),
        GUNICORN_BIND=f"127.0.0.1:{port}",
        METRICS_ADDRESS=f"127.0.0.1:{metrics_port}",
        WEB_CONCURRENCY="2",
        SECURE_SSL_REDIRECT="0",
        STATIC_MANIFEST="0",
        ACCESS_LOG=access_log,
        # Its metrics folder made in this test's own folder, where no other gunicorn makes one.
        TMPDIR=str(tmp_path),
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = started_gunicorn(env, log)
    try:
        assert len(list(tmp_path.glob("incidentlib-metrics-*"))) == 1
        for _ in range(4):  # both workers, most likely
            fetch(f"http://127.0.0.1:{port}/robots.txt")
        # Korean analysed in a worker with the analyser the master loaded before forking.
        assert (
            fetch(
                f"http://127.0.0.1:{port}/cases/?q=%EC%8A%A4%ED%86%A0%EB%A6%AC%EC%A7%80%EA%B0%80"
            )[0]
            == 200
        )
        status, metrics = fetch(f"http://127.0.0.1:{metrics_port}/metrics")
        assert status == 200
        assert 'incidentlib_requests_total{status="200",view="cases:robots"} 4.0' in metrics
        # The worker's jobs, counted in the database by the master serving the metrics.
        assert 'incidentlib_jobs{status="failed"} 0.0' in metrics
        with pytest.raises(OSError):  # not on the public port
            fetch(f"http://127.0.0.1:{port}/metrics")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    entries = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert len(entries) == len(log.read_text().splitlines())  # every line JSON
    requests = [e for e in entries if e["logger"] == "incidentlib.request"]
    access = [e for e in entries if e["logger"] == "gunicorn.access"]
    assert {e["path"] for e in requests} >= {"/healthz", "/robots.txt"}
    assert all(e["request_id"] for e in requests + access)
    if access_log == "1":
        assert any(e["path"] == "/robots.txt" and e["status"] == 200 for e in access)
    else:  # each request logged once, by the app
        assert access == []
    # The folder where its workers wrote their metrics is gone with it.
    assert list(tmp_path.glob("incidentlib-metrics-*")) == []
    assert [e["message"] for e in entries if "Korean analyser" in e["message"]] == [
        "Korean analyser loaded in the master"
    ]
    # Every template compiled before forking, none refused (gunicorn.conf.py).
    templates = len(list((ROOT / "templates").rglob("*.html")))
    assert [e["message"] for e in entries if "templates compiled" in e["message"]] == [
        f"{templates} templates compiled in the master"
    ]
    assert not [e for e in entries if "not compiled" in e["message"]]


def test_error_reports_go_to_sentry_only_when_a_dsn_is_set():
    probe = "import incidentlib.settings, sentry_sdk; print(sentry_sdk.is_initialized())"
    off = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=production_env(),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    on = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT,
        env=production_env(SENTRY_DSN="https://public@127.0.0.1:9/1"),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (off.stdout.strip(), on.stdout.strip()) == ("False", "True"), off.stderr + on.stderr


def test_the_deployment_check_of_the_production_stack_says_only_what_the_readme_says():
    """The compose stack's settings: replicas, Redis, behind the TLS proxy. Django's
    security.W005 (HSTS without subdomains) and W021 (no preload) are silenced on purpose, as
    the README's Configuration says; nothing else may be reported."""
    env = production_env(
        DATABASE_REPLICA_URLS="postgres://x@replica/x",
        REDIS_URL="redis://redis:6379/0",
        BEHIND_PROXY="1",
        TRUSTED_PROXIES="10.0.0.0/8",
        CACHE_MAX_AGE="60",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr + result.stdout
    assert result.stdout.strip() == "System check identified no issues (2 silenced).", result.stdout
    assert result.stderr == ""


def test_log_level_takes_the_names_gunicorn_takes_and_refuses_others_by_name():
    def check(level):
        return subprocess.run(
            [sys.executable, "manage.py", "check"],
            cwd=ROOT, env=production_env(LOG_LEVEL=level), capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip

    for level in ("warning", "Debug", "ERROR"):
        assert check(level).returncode == 0, check(level).stderr
    refused = check("loud")
    assert refused.returncode == 1
    assert "LOG_LEVEL must be debug, info, warning, error or critical; got 'LOUD'" in (
        refused.stderr
    )


def test_the_app_servers_of_compose_start_with_every_variable_it_leaves_empty():
    """compose.yaml passes `${NAME:-}` as an empty string when the operator sets nothing:
    each must start gunicorn as unset would (WEB_CONCURRENCY= stopped gunicorn's own
    configuration with a ValueError, before gunicorn.conf.py was read)."""
    import re

    compose = (ROOT / "compose.yaml").read_text()
    empty = re.findall(r"^\s+([A-Z_]+): \$\{\1:-\}$", compose, flags=re.M)
    assert {"CSRF_TRUSTED_ORIGINS", "SENTRY_DSN"} <= set(empty)
    env = production_env(**dict.fromkeys(empty, ""), BEHIND_PROXY="1", TRUSTED_PROXIES="10.0.0.0/8")
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--check-config", "incidentlib.wsgi"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr + result.stdout


def one_worker_env(port, **changes):
    """The environment of one gunicorn worker on the test database at `port`, over plain
    HTTP, without metrics or a static manifest."""
    env = production_env(
        DATABASE_URL=url_of_test_database(),
        GUNICORN_BIND=f"127.0.0.1:{port}",
        METRICS_ADDRESS="off",
        WEB_CONCURRENCY="1",
        SECURE_SSL_REDIRECT="0",
        STATIC_MANIFEST="0",
        **changes,
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return env


@pytest.mark.django_db
@pytest.mark.parametrize("log_format", ["json", "text"])
def test_request_lines_keep_their_id_after_a_hup(tmp_path, log_format):
    """gunicorn configures logging again at a HUP (gunicorn.conf.py): the app's lines still
    carry the request id that nginx's line carries."""
    port = free_port()
    log = tmp_path / "gunicorn.log"
    env = one_worker_env(port, LOG_FORMAT=log_format)

    def ask(request_id):
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/healthz", headers={"X-Request-ID": request_id}
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status

    server = started_gunicorn(env, log)
    try:
        for request_id in ("before-hup", "after-hup"):
            answering(server, f"http://127.0.0.1:{port}/healthz", log)
            assert ask(request_id) == 200
            if request_id == "before-hup":
                workers = log.read_text().count("Booting worker")
                server.send_signal(signal.SIGHUP)
                deadline = time.monotonic() + 30
                while log.read_text().count("Booting worker") == workers:
                    assert time.monotonic() < deadline, log.read_text()
                    time.sleep(0.2)
                time.sleep(1)  # the old worker gone
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    lines = [line for line in log.read_text().splitlines() if "incidentlib.request" in line]
    for request_id in ("before-hup", "after-hup"):
        if log_format == "json":
            assert any(json.loads(line).get("request_id") == request_id for line in lines), lines
        else:
            assert any(f"[{request_id}] GET /healthz 200" in line for line in lines), lines


@pytest.mark.django_db
def test_gunicorn_opens_no_control_socket(tmp_path):
    """gunicorn puts every server's control socket at one path: app servers on one host
    would take each other's (gunicorn.conf.py turns it off)."""
    log = tmp_path / "gunicorn.log"
    env = one_worker_env(free_port(), HOME=str(tmp_path), XDG_RUNTIME_DIR=str(tmp_path))
    server = started_gunicorn(env, log)
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=30)
    assert "Listening at" in log.read_text()
    assert "Control socket" not in log.read_text()
    assert not list(tmp_path.rglob("*.ctl"))
