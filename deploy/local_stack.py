"""compose.yaml's app tier as processes on this machine: N gunicorns behind deploy/nginx.conf.

    .venv/bin/python deploy/local_stack.py --check          # nginx -t of deploy/nginx.conf
    .venv/bin/python deploy/local_stack.py --smoke URL      # 2 gunicorns + nginx on free ports
                                                            # over the database URL: a page
                                                            # through the proxy, then stop

`LocalStack` is what the tests (tests/test_proxy.py) and bench/cluster.py start:
the gunicorns run gunicorn.conf.py in production mode (DEBUG off, a random key, no https
redirect) on 127.0.0.1 and free ports; nginx runs deploy/nginx.conf with the lines marked
"# local:" rewritten to those ports and to a temporary folder (cache, pid, logs, the static
files collected there). Everything stops on exit, also on errors.
"""

import argparse
import os
import re
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nginx_binary():
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.path.exists(p)), None
    )


def local_nginx_conf(folder, listen_port, app_ports, static_root):
    """deploy/nginx.conf with its "# local:" lines pointing at this machine's processes."""
    folder = Path(folder)
    lines = []
    servers_written = False
    for line in NGINX_CONF.read_text().splitlines():
        marker = re.search(r"# local: (.+)$", line)
        indent = line[: len(line) - len(line.lstrip())]
        if not marker:
            lines.append(line)
            continue
        what = marker.group(1).strip()
        if what == "pid":
            lines.append(f"{indent}pid {folder / 'nginx.pid'};")
        elif what == "access_log":
            lines.append(f"{indent}access_log {folder / 'access.log'} json;")
        elif what == "cache":
            lines.append(
                f"{indent}proxy_cache_path {folder / 'cache'} levels=1:2 "
                "keys_zone=incidentlib_pages:50m max_size=1g inactive=10m use_temp_path=off;"
            )
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
                lines.append(f"{indent}{kind}_temp_path {folder / (kind + '_temp')};")
        elif what == "app servers":
            if not servers_written:
                lines.extend(
                    f"{indent}server 127.0.0.1:{port} max_fails=3 fail_timeout=10s;"
                    for port in app_ports
                )
                servers_written = True
        elif what == "listen":
            lines.append(f"{indent}listen 127.0.0.1:{listen_port};")
        elif what == "static":
            lines.append(f"{indent}alias {static_root}/;")
        else:
            raise ValueError(f"deploy/nginx.conf: unknown local marker {what!r}")
    if os.geteuid() == 0:
        lines.insert(0, "user root;")  # a throwaway folder: no other user need read it
    path = folder / "nginx.conf"
    path.write_text("\n".join(lines) + "\n")
    return path


def check_nginx_conf():
    """nginx -t of deploy/nginx.conf as this machine runs it; (ok, nginx's output)."""
    nginx = nginx_binary()
    if nginx is None:
        raise FileNotFoundError("nginx is not installed (apt-get install nginx-light)")
    with tempfile.TemporaryDirectory(prefix="incidentlib-nginx-") as folder:
        conf = local_nginx_conf(folder, free_port(), [free_port(), free_port()], folder)
        done = subprocess.run(
            [nginx, "-t", "-e", "stderr", "-p", folder, "-c", str(conf)],
            capture_output=True, text=True,
        )  # fmt: skip
        return done.returncode == 0, done.stdout + done.stderr


def production_env(database_url, *, replica_urls=(), redis_url="", cache_max_age=60, **extra):
    alphabet = string.ascii_letters + string.digits
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "DATABASE_REPLICA_URLS", "REDIS_URL", "PROMETHEUS_MULTIPROC_DIR")
    }
    env.update(
        DEBUG="0",
        SECRET_KEY="".join(secrets.choice(alphabet) for _ in range(60)),
        SECURE_SSL_REDIRECT="0",
        SECURE_COOKIES="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=database_url,
        DATABASE_REPLICA_URLS=",".join(replica_urls),
        REDIS_URL=redis_url,
        CACHE_KEY_PREFIX=f"stack-{secrets.token_hex(4)}",
        CACHE_MAX_AGE=str(cache_max_age),
        BEHIND_PROXY="1",
        TRUSTED_PROXIES="127.0.0.1",
    )
    env.update(extra)
    return env


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # the redirect is the answer


def get(url, timeout=10, headers=None, follow_redirects=True):
    """(status, headers, body) of one request; an HTTP error is an answer too (and a
    redirect, unless it is followed)."""
    request = urllib.request.Request(url, headers=headers or {})
    opener = urllib.request.build_opener(*([] if follow_redirects else [_NoRedirects]))
    try:
        with opener.open(request, timeout=timeout) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class LocalStack:
    """N gunicorns (gunicorn.conf.py) behind nginx (deploy/nginx.conf); a context manager."""

    def __init__(self, env, app_servers=2, workers=2, settings_module="incidentlib.settings"):
        self.env = env
        self.folder = Path(tempfile.mkdtemp(prefix="incidentlib-stack-"))
        self.folder.chmod(0o755)
        self.app_ports = [free_port() for _ in range(app_servers)]
        self.metrics_ports = [free_port() for _ in range(app_servers)]
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.settings_module = settings_module
        self.apps = []
        self.nginx = None

    def app_base(self, number=0):
        return f"http://127.0.0.1:{self.app_ports[number]}"

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        # Its own static files: two stacks (two tests at once) writing one folder collided.
        static_root = self.folder / "staticfiles"
        env = {
            **self.env,
            "DJANGO_SETTINGS_MODULE": self.settings_module,
            "STATIC_ROOT": str(static_root),
        }
        pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        env["PYTHONPATH"] = pythonpath
        subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "collectstatic", "--no-input", "-v", "0"],
            env=env, cwd=ROOT, check=True,
        )  # fmt: skip
        for number, (port, metrics_port) in enumerate(
            zip(self.app_ports, self.metrics_ports, strict=True)
        ):
            log = open(self.folder / f"app{number + 1}.log", "w")
            self.apps.append(
                subprocess.Popen(
                    [sys.executable, "-m", "gunicorn", "incidentlib.wsgi:application"],
                    cwd=ROOT,
                    env={
                        **env,
                        "GUNICORN_BIND": f"127.0.0.1:{port}",
                        "METRICS_ADDRESS": f"127.0.0.1:{metrics_port}",
                        "WEB_CONCURRENCY": str(self.workers),
                    },
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        conf = local_nginx_conf(self.folder, self.port, self.app_ports, static_root)
        nginx = nginx_binary()
        if nginx is None:
            raise FileNotFoundError("nginx is not installed (apt-get install nginx-light)")
        self.nginx = subprocess.Popen(
            [nginx, "-e", "stderr", "-p", str(self.folder), "-c", str(conf),
             "-g", "daemon off;"],
            stdout=open(self.folder / "nginx.log", "w"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        for number in range(len(self.apps)):
            self.wait_for(self.app_base(number) + "/healthz", self.apps[number])
        self.wait_for(self.base + "/healthz", self.nginx)

    def wait_for(self, url, process, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{process.args[:3]} exited:\n{self.logs()}")
            try:
                if get(url, timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{url} did not answer within {seconds} s:\n{self.logs()}")

    def logs(self, lines=40):
        text = []
        for path in sorted(self.folder.glob("*.log")):
            tail = path.read_text(errors="replace").splitlines()[-lines:]
            text.append(f"--- {path.name}\n" + "\n".join(tail))
        return "\n".join(text)

    def stop(self):
        for process in [self.nginx, *self.apps]:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM if process is not self.nginx else signal.SIGQUIT)
        for process in [self.nginx, *self.apps]:
            if process is None:
                continue
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="nginx -t of deploy/nginx.conf")
    parser.add_argument("--smoke", metavar="DATABASE_URL", help="start, GET a page, stop")
    args = parser.parse_args()
    if args.check:
        ok, output = check_nginx_conf()
        print(output.strip())
        return 0 if ok else 1
    if args.smoke:
        with LocalStack(production_env(args.smoke)) as stack:
            for path in ("/cases/", "/cases/", "/static/css/site.css"):
                status, headers, _body = get(stack.base + path)
                print(status, headers.get("X-Proxy-Cache", "-"), path)
                if status != 200:
                    print(stack.logs())
                    return 1
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
