"""CORS in a real browser: a page of an allowed origin creates a match with fetch, follows
it with EventSource and receives a move's entry; a page of another origin cannot call the API."""

import functools
import http.server
import threading

import pytest

from gameroom.testing.live_server import LiveServer, free_port

PAGE = """<!doctype html><meta charset="utf-8"><title>another origin</title>
<script>
async function play(api) {
  const created = await (await fetch(api + "/api/matches", {method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({game: "tic-tac-toe", seats: [{name: "X"}, {name: "O"}]})})).json();
  const id = created.match.id, token = created.tokens["0"];
  const entry = new Promise((resolve, reject) => {
    const source = new EventSource(`${api}/api/matches/${id}/stream?token=${token}`);
    source.addEventListener("entry", (e) => {
      const data = JSON.parse(e.data);
      if (data.version === 2) { source.close(); resolve({id: e.lastEventId, data}); }
    });
    setTimeout(() => reject(new Error("no entry in 20 s")), 20000);
  });
  const move = await fetch(`${api}/api/matches/${id}/moves`, {method: "POST",
      headers: {"Content-Type": "application/json", "Authorization": "Bearer " + token},
      body: JSON.stringify({move: {type: "mark", cell: 4}})});
  return {status: move.status, etag: move.headers.get("ETag"), entry: await entry};
}
async function tryCall(api) {
  try { await fetch(api + "/api/games"); return "allowed"; } catch (e) { return "refused"; }
}
</script>"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def page_origin(tmp_path):
    (tmp_path / "page.html").write_text(PAGE)
    handler = functools.partial(_Quiet, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_a_page_on_an_allowed_origin_plays_and_follows_the_stream_in_chromium(
    browser, redis_server, tmp_path, page_origin
):
    allowed = f"http://127.0.0.1:{page_origin}"
    with LiveServer(redis_server.url, tmp_path, env={"GAMEROOM_CORS_ORIGINS": allowed}) as api:
        page = browser.new_page()
        try:
            page.goto(f"{allowed}/page.html")
            result = page.evaluate("api => play(api)", api.base)
            assert result["status"] == 201
            assert result["entry"]["id"] == "2"
            assert result["entry"]["data"]["events"] == [{"type": "marked", "seat": 0, "cell": 4}]
            # localhost is another origin than 127.0.0.1: not allowed, the browser refuses to hand it the reply.
            page.goto(f"http://localhost:{page_origin}/page.html")
            assert page.evaluate("api => tryCall(api)", api.base) == "refused"
        finally:
            page.close()
