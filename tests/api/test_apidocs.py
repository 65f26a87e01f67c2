"""GET /api/docs: an interactive API page whose assets all come from this server (no CDN)."""

import re
import shutil
import subprocess
import threading

import pytest
from werkzeug.serving import make_server

from gameroom.api.apidocs import ASSETS


@pytest.fixture
def fast_paths():
    """One run, fast paths on (the default): the docs page and its assets are Flask's either way."""
    return True


def _links(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]+)"', html)


def test_the_docs_page_loads_only_local_assets_and_offers_every_game_document(client, registry):
    r = client.get("/api/docs")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert '<meta name="viewport"' in html
    links = _links(html)
    assert links and all(link.startswith("/api/") for link in links), links
    assert "//" not in "".join(re.findall(r'<script src="([^"]+)"', html))
    for link in links:
        if link.startswith("/api/docs/assets/"):
            asset = client.get(link)
            assert asset.status_code == 200 and len(asset.get_data()) > 500, link
            assert asset.mimetype == ASSETS[link.rsplit("/", 1)[1]]
    assert '"/api/openapi.json"' in html
    for installed in registry:
        assert f'"/api/games/{installed.slug}/openapi.json"' in html


@pytest.mark.parametrize(
    "name",
    [
        "index.html",
        "swagger-ui.js.map",
        "..",
        "%2e%2e%2f%2e%2e%2fsetup.cfg",
        "..%2F..%2F..%2Fetc%2Fpasswd",
        "swagger-ui.css%00.png",
    ],
)
def test_only_the_page_s_own_assets_are_served(client, expect_problem, name):
    r = client.get(f"/api/docs/assets/{name}")
    assert r.status_code == 404
    assert r.mimetype == "application/problem+json"


@pytest.fixture
def server(app):
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    thread.join(10)


@pytest.mark.browser
def test_a_real_browser_renders_the_operations_of_a_per_game_document(server):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("SKIPPED the browser check: no chromium on PATH (apt-get install chromium)")
    url = f"{server}/api/docs?urls.primaryName=Nim%20(typed)"
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=390,900",
            "--virtual-time-budget=10000",
            "--dump-dom",
            url,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    dom = done.stdout
    assert "gameroom: Nim" in dom, dom[-2000:] + done.stderr[-2000:]
    assert "/api/matches/{match_id}/moves" in dom
