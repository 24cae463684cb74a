"""Pages while the shared cache fails (incidentlib/cache_tiers.py), against real servers.

Each test starts a redis-server of its own on a free port (never the shared one), or a
listener that accepts connections and never answers (a Redis that hangs), and points the
cache at it: readers get their pages while it is stopped or silent, each process tries it
again only after `CACHE_RETRY_SECONDS`, and uses it again when it is back.
"""

import shutil
import socket
import subprocess
import threading
import time

import pytest
from django.core.cache import caches

from cases.models import Case

from .library import REVIEWED, plain_case, store

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not shutil.which("redis-server"), reason="redis-server is not installed"),
]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server on a free port, without persistence: stop() and start() again."""

    def __init__(self, folder):
        self.folder, self.port, self.process = folder, free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)
        for _ in range(200):
            try:
                if self.client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not answer")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)

    def pages_kept(self):
        return len(self.client.keys("*page:*"))

    def hits(self):
        return self.client.info("stats")["keyspace_hits"]


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


class SilentServer:
    """Accepts connections and never answers, counting them (a Redis that hangs)."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.accepted = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _address = self.listener.accept()
            except OSError:
                return  # closed
            self.accepted.append(connection)

    def close(self):
        self.listener.close()
        for connection in self.accepted:
            connection.close()


def use_cache(settings, url):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        },
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    }
    settings.INCIDENTLIB_CACHE_RETRY_SECONDS = 3600  # one attempt, then memory only


@pytest.fixture
def library(tmp_path):
    store(tmp_path, plain_case("C-1", review=dict(REVIEWED)))


def get(client, url):
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response


def warnings(caplog, text):
    return sum(1 for record in caplog.records if text in record.getMessage())


def test_a_page_this_process_holds_is_answered_without_asking_redis(
    client, library, settings, redis_server
):
    use_cache(settings, redis_server.url)
    assert get(client, "/cases/C-1")["X-Cache"] == "miss"
    assert redis_server.pages_kept() == 1  # shared with the other processes
    hits = redis_server.hits()
    assert get(client, "/cases/C-1")["X-Cache"] == "hit"
    assert redis_server.hits() == hits  # from this process's memory

    caches["local"].clear()  # another process, or this one restarted
    assert get(client, "/cases/C-1")["X-Cache"] == "hit"
    assert redis_server.hits() == hits + 1  # from Redis, and kept in memory again
    assert get(client, "/cases/C-1")["X-Cache"] == "hit"
    assert redis_server.hits() == hits + 1


def test_while_redis_is_stopped_pages_answer_and_it_is_used_again_when_back(
    client, library, settings, redis_server, caplog
):
    use_cache(settings, redis_server.url)
    assert get(client, "/cases/C-1")["X-Cache"] == "miss"
    redis_server.stop()

    assert get(client, "/cases/C-1")["X-Cache"] == "hit"  # held by this process
    assert get(client, "/orgs/")["X-Cache"] == "miss"  # made afresh, kept in memory
    assert get(client, "/orgs/")["X-Cache"] == "hit"
    for url in ("/", "/cases/", "/taxonomy/", "/feed/"):
        get(client, url)
    # Tried once, then left alone (CACHE_RETRY_SECONDS): one warning, not one per request.
    assert warnings(caplog, "cache unavailable") == 1

    Case.objects.filter(id="C-1").update(title_en="Changed while Redis is away")
    changed = get(client, "/cases/C-1")
    assert changed["X-Cache"] == "miss"  # a new generation: never the copy held before
    assert "Changed while Redis is away" in changed.content.decode()

    redis_server.start()  # empty, as after a restart without persistence
    settings.INCIDENTLIB_CACHE_RETRY_SECONDS = 0
    assert get(client, "/sitemap.xml")["X-Cache"] == "miss"
    assert warnings(caplog, "cache available again") == 1
    assert redis_server.pages_kept() == 1  # shared again
    assert get(client, "/cases/C-1")["X-Cache"] == "hit"


def test_a_redis_that_never_answers_costs_one_attempt_per_interval(
    client, library, settings, caplog
):
    silent = SilentServer()
    try:
        use_cache(settings, silent.url)
        for url in ("/cases/C-1", "/cases/", "/orgs/", "/taxonomy/", "/cases/C-1"):
            get(client, url)
        assert len(silent.accepted) == 1  # one attempt timed out; none since
        assert warnings(caplog, "cache unavailable") == 1
        assert "TimeoutError" in caplog.text

        settings.INCIDENTLIB_CACHE_RETRY_SECONDS = 0  # try it at every use
        for url in ("/feed/", "/"):
            get(client, url)
        assert len(silent.accepted) > 1
    finally:
        silent.close()
