"""The web client's files: served from a list made at start-up, never from a client's path."""

import pytest

from gameroom.plugin_api import Game, GameInfo
from gameroom.web import STATIC, game_assets


def test_the_lobby_is_served_at_the_root_with_a_strict_policy(client):
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert b'src="/ui/app.js"' in r.data
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["Referrer-Policy"] == "no-referrer"


def test_every_client_module_is_served_as_javascript(client):
    for path in STATIC.glob("*.js"):
        r = client.get(f"/ui/{path.name}")
        assert r.status_code == 200 and r.mimetype == "text/javascript", path.name


@pytest.mark.parametrize(
    "path",
    [
        "/ui/../setup.cfg",
        "/ui/%2e%2e%2fsetup.cfg",
        "/ui/..%2F..%2Fsetup.cfg",
        "/ui/games/nim/renderer.js",
        "/ui/games/..%2F..%2Fservice/app.py",
        "/ui/games/stars-are-right/..%2Fgame.py",
        "/ui/nothing.js",
        "/ui/games/stars-are-right/schemas.py",
    ],
)
def test_anything_not_listed_is_404_and_never_a_file_read(client, path):
    assert client.get(path).status_code == 404


class Drawn(Game):
    info = GameInfo(slug="drawn", title="Drawn", min_players=1, max_players=1)


def test_a_game_renderer_folder_is_listed_without_foreign_files(tmp_path):
    (tmp_path / "renderer.js").write_text("export function render() {}")
    (tmp_path / "board.css").write_text("")
    (tmp_path / "secret.py").write_text("")
    game = Drawn()
    game.renderer = lambda: str(tmp_path)

    class Installed:
        slug = "drawn"

    Installed.game = game
    assert set(game_assets([Installed])["drawn"]) == {"renderer.js", "board.css"}


def test_a_game_without_a_renderer_gets_the_generic_one(client):
    games = {g["slug"]: g for g in client.get("/api/games").get_json()}
    assert games["nim"]["renderer"] is None


def test_a_renderer_may_list_its_files_one_by_one(tmp_path):
    (tmp_path / "renderer.js").write_text("export function render() {}")
    (tmp_path / "content.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    game = Drawn()
    game.renderer = lambda: [tmp_path / "renderer.js", tmp_path / "content.json", tmp_path / "notes.txt"]

    class Installed:
        slug = "drawn"

    Installed.game = game
    assert set(game_assets([Installed])["drawn"]) == {"renderer.js", "content.json"}
