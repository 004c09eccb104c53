"""PageWatch and the browser's host block: a request to another address is recorded and fails.

The page's requests go to two tiny servers of this test: one on 127.0.0.1 (a local server,
which live pages may reach) and one on 127.0.0.2, a loopback address the browser would reach
too if CHROMIUM_ARGS did not make every other host unresolvable. Each server counts what it
received, so "fails" means the server never saw the request, not only that fetch rejected.
"""

from __future__ import annotations

import http.server
import threading

import pytest

from c04_testing import OFFLINE_PREFIXES, PageWatch

FETCH_JS = "url => fetch(url).then(r => r.status, e => 'failed: ' + e)"


class _Server(http.server.ThreadingHTTPServer):
    """An HTTP server on ``host`` that answers every GET with a small page and counts them."""

    def __init__(self, host: str):
        self.hits: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.hits.append(self.path)
                body = b"<!doctype html><title>watch</title><p>ok</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__((host, 0), Handler)
        self.url = f"http://{host}:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()


@pytest.fixture
def servers():
    local, other = _Server("127.0.0.1"), _Server("127.0.0.2")
    yield local, other
    for server in (local, other):
        server.shutdown()
        server.server_close()


def test_live_page_reaches_local_server_but_not_another_host(page, servers):
    local, other = servers
    watch = PageWatch(page)
    page.goto(f"{local.url}/page")
    assert page.evaluate(FETCH_JS, f"{local.url}/local") == 200
    outside = f"{other.url}/outside"
    assert page.evaluate(FETCH_JS, outside).startswith("failed")
    assert watch.external == [outside]
    assert other.hits == []
    assert [hit for hit in local.hits if hit != "/favicon.ico"] == ["/page", "/local"]


def test_exported_file_reaches_no_server(page, servers, tmp_path):
    local, other = servers
    watch = PageWatch(page, OFFLINE_PREFIXES)
    html = tmp_path / "export.html"
    html.write_text("<!doctype html><title>export</title><p>offline</p>", encoding="utf-8")
    page.goto(html.as_uri())
    to_local, to_other = f"{local.url}/from-file", f"{other.url}/from-file"
    assert page.evaluate(FETCH_JS, to_local).startswith("failed")
    assert page.evaluate(FETCH_JS, to_other).startswith("failed")
    assert watch.external == [to_local, to_other]
    assert local.hits == []
    assert other.hits == []
