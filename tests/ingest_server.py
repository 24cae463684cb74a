"""A real local HTTP server for the followed sources' tests: no test reaches the internet.

It serves the stored examples of tests/data/ingest/ at their paths, answers `If-None-Match`
and `If-Modified-Since` as a server does (304), and can be told to misbehave for one path:
answer a status, redirect, be slow, or send a body bigger than the limit.

    def test_something(served):          # the `served` fixture: a started server
        served.files["/feed.xml"] = b"..."   # change or add what a path answers
        served.behave["/x"] = ("status", 500)
        url = served.url("/x")
"""

import email.utils
import hashlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "ingest"
LAST_MODIFIED = email.utils.formatdate(1_540_000_000, usegmt=True)


class SourceServer:
    def __init__(self):
        self.files = {
            "/" + path.relative_to(DATA).as_posix(): path.read_bytes()
            for path in DATA.rglob("*")
            if path.is_file()
        }
        self.behave = {}
        self.requests = []  # (path, headers) of each request
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                server.requests.append((self.path, dict(self.headers)))
                server.answer(self)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.port = self.http.server_address[1]
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def answer(self, handler):
        path = handler.path.split("?")[0]
        behaviour = self.behave.get(path)
        if behaviour and behaviour[0] == "status":
            handler.send_response(behaviour[1])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        if behaviour and behaviour[0] == "redirect":
            handler.send_response(302)
            handler.send_header("Location", behaviour[1])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        if behaviour and behaviour[0] == "slow":
            time.sleep(behaviour[1])
        if behaviour and behaviour[0] == "huge":
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.end_headers()
            try:
                for _ in range(behaviour[1] // 65536 + 1):
                    handler.wfile.write(b" " * 65536)
            except OSError:
                pass  # the client stopped reading: as it should
            return
        body = self.files.get(path)
        if body is None:
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if handler.headers.get("If-None-Match") == etag:
            handler.send_response(304)
            handler.send_header("ETag", etag)
            handler.end_headers()
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("ETag", etag)
        handler.send_header("Last-Modified", LAST_MODIFIED)
        handler.end_headers()
        handler.wfile.write(body)

    def close(self):
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def served(settings):
    """The stored examples on a local server; 127.0.0.1 may be fetched (INGEST_ALLOWED_HOSTS)."""
    settings.INGEST_ALLOWED_HOSTS = ["127.0.0.1"]
    server = SourceServer()
    yield server
    server.close()
