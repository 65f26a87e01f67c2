"""No client text reaches the filesystem: options name installed content, never a path.

Over HTTP on the real Redis. Python's audit hooks (PEP 578) see every ``open``
and directory listing this process makes while a request is handled, so a
test can tell that a refused value was never opened, not only that it was
refused.
"""

import json
import os
import sys
import types
from importlib import resources

import pytest
from marshmallow import fields

from gameroom import create_app
from gameroom.plugin_api import hookimpl
from gameroom.plugins.tiny_stellar_empires.content import CARD_SET_DIRS_ENV, MAX_CARD_SET_BYTES
from gameroom.registry import build_registry

TSE = "tiny-stellar-empires"
SHIPPED = (
    resources.files("gameroom.plugins.tiny_stellar_empires")
    .joinpath("data", "tiny-stellar-empires.json")
    .read_text()
)
CANARY = "canary-9f3ab1"  # text of the secret file: it must never come back
_SEEN: list | None = None  # while a list: every (event, paths) the audit hook saw


def _audit(event, args):
    if _SEEN is not None and event in ("open", "os.listdir", "os.scandir", "os.chdir", "glob.glob"):
        _SEEN.append((event, [os.fsdecode(a) for a in args if isinstance(a, (str, bytes, os.PathLike))]))


sys.addaudithook(_audit)  # cannot be removed; does nothing outside ``watching``


class watching:
    """Record the files opened and folders listed inside the block."""

    def __enter__(self):
        global _SEEN
        _SEEN = []
        return _SEEN

    def __exit__(self, *exc):
        global _SEEN
        _SEEN = None


def touched(seen, *needles):
    return [s for s in seen if any(n in p for p in s[1] for n in needles)]


@pytest.fixture
def secret_file(tmp_path):
    """A file no client may read: a valid card set, so only the path rule can refuse it."""
    path = tmp_path / "outside" / "secret.json"
    path.parent.mkdir()
    data = json.loads(SHIPPED)
    data["status_note"] = CANARY
    path.write_text(json.dumps(data))
    return path


def path_like_values(target):
    """Ways a client might smuggle a path to ``target`` (an existing file) into a string option."""
    up = "../" * 12
    return [
        str(target),
        f"{up}{str(target).lstrip('/')}",
        f"file://{target}",
        f"service:{target}",
        f"gameroom.plugins.tiny_stellar_empires:{up}{str(target).lstrip('/')}",
        f"plugins:{target}",
        str(target.with_suffix("")),
        str(target.parent / "." / target.name),
        f"{target}\x00.json",
        "/etc/passwd",
        "service:/etc/passwd",
        "/dev/zero",
        "service:/dev/zero",
        "/proc/self/environ",
        "~/.ssh/id_rsa",
        "C:\\Windows\\win.ini",
        "\\\\server\\share\\cards.json",
    ]


def _create(api, game, options, seats=2):
    return api.post(
        "/api/matches", {"game": game, "seats": [{"name": f"P{i}"} for i in range(seats)], "options": options}
    )


def test_card_set_path_is_refused_without_opening_any_file(api, expect_problem, secret_file):
    with watching() as seen:  # the watch itself works
        secret_file.read_text()
    assert touched(seen, str(secret_file.parent))
    for value in path_like_values(secret_file):
        with watching() as seen:
            r = _create(api, TSE, {"card_set": value})
        expect_problem(r, 422, "bad-options")
        assert "never a path" in json.dumps(r.get_json()), value
        assert (
            touched(seen, str(secret_file.parent), "/etc/passwd", "/dev/zero", "/proc/self", ".ssh") == []
        ), value


def test_card_set_refusal_does_not_reveal_whether_a_file_exists(api, secret_file):
    def body(value):
        r = _create(api, TSE, {"card_set": value})
        return r.status_code, json.dumps(r.get_json()).replace(json.dumps(value)[1:-1], "VALUE")

    assert body(str(secret_file)) == body(str(secret_file.parent / "absent.json"))
    assert body(str(secret_file.parent)) == body(str(secret_file.parent / "absent"))
    assert body("/etc/passwd") == body("/etc/no-such-file")


def test_card_set_named_from_the_owners_folder_is_read_and_a_path_to_it_is_refused(
    api, expect_problem, tmp_path, monkeypatch
):
    monkeypatch.setenv(CARD_SET_DIRS_ENV, str(tmp_path))
    data = json.loads(SHIPPED)
    data["empire_cards"][0]["name"] = "House rules"
    (tmp_path / "house.json").write_text(json.dumps(data))
    r = _create(api, TSE, {"card_set": "house"})
    assert r.status_code == 201, r.get_json()
    events = api.get(f"/api/matches/{r.get_json()['match']['id']}/events").get_json()["entries"][0]["events"]
    assert events[0]["options"]["card_set"] == "house"
    shipped = api.post("/api/matches", {"game": TSE, "seats": [{"name": "A"}, {"name": "B"}]}).get_json()
    default = api.get(f"/api/matches/{shipped['match']['id']}/events").get_json()["entries"][0]["events"]
    assert events[0]["set"]["hash"] != default[0]["set"]["hash"]  # the owner's file was read
    expect_problem(_create(api, TSE, {"card_set": str(tmp_path / "house.json")}), 422, "bad-options")


def test_oversized_device_or_pipe_card_set_in_the_owners_folder_is_refused_without_reading_it_all(
    api, expect_problem, tmp_path, monkeypatch
):
    monkeypatch.setenv(CARD_SET_DIRS_ENV, str(tmp_path))
    (tmp_path / "huge.json").write_bytes(b" " * (MAX_CARD_SET_BYTES + 1))
    body = expect_problem(_create(api, TSE, {"card_set": "huge"}), 422, "bad-options")
    assert "larger than" in json.dumps(body)
    os.symlink("/dev/zero", tmp_path / "zero.json")  # would exhaust memory if read to its end
    os.mkfifo(tmp_path / "pipe.json")  # would block a request thread forever if opened for reading
    for name in ("zero", "pipe"):
        body = expect_problem(_create(api, TSE, {"card_set": name}), 422, "bad-options")
        assert f"no card set named '{name}'" in json.dumps(body)


def test_card_set_registered_by_a_plugin_is_named_not_pathed(redis_server, redis_client, tmp_path):
    (tmp_path / "promo.json").write_text(SHIPPED)
    pack = types.ModuleType("promo_pack")

    @hookimpl
    def gameroom_content(game):
        return {"card_set": {"promo": tmp_path / "promo.json"}} if game.info.slug == TSE else None

    pack.gameroom_content = gameroom_content
    app = create_app(
        {"redis_url": redis_server.url, "ai_mode": "off"},
        build_registry(extra_plugins=[("promo-pack", pack)]),
    )
    client = app.test_client()
    seats = [{"name": "A"}, {"name": "B"}]
    r = client.post("/api/matches", json={"game": TSE, "seats": seats, "options": {"card_set": "promo"}})
    assert r.status_code == 201, r.get_json()
    r = client.post(
        "/api/matches",
        json={"game": TSE, "seats": seats, "options": {"card_set": str(tmp_path / "promo.json")}},
    )
    assert r.status_code == 422 and r.get_json()["code"] == "bad-options"


def _string_options(game):
    """Every option of ``game`` that accepts a string (String and free-form Raw fields)."""
    schema = game.schemas().options()
    return [
        name
        for name, field in schema.fields.items()
        if isinstance(field, (fields.String, fields.Raw))
        and not isinstance(field, (fields.Number, fields.Boolean))
    ]


def test_no_string_option_of_any_installed_game_reaches_the_filesystem(api, registry, secret_file):
    tried = 0
    for installed in registry:
        game = installed.game
        seats = max(2, game.info.min_players)
        for option in [*_string_options(game), "file", "path"]:  # and names no game has
            for value in path_like_values(secret_file):
                with watching() as seen:
                    r = _create(api, installed.slug, {option: value}, seats)
                assert r.status_code in (201, 422), (installed.slug, option, value, r.get_json())
                assert (
                    touched(seen, str(secret_file.parent), "/etc/passwd", "/dev/zero", "/proc/self", ".ssh")
                    == []
                )
                assert CANARY not in r.get_data(as_text=True)  # nothing of the file's text comes back
                tried += 1
    assert {i.slug for i in registry} >= {"nim", TSE, "stars-are-right", "look-at-the-stars"}
    assert tried > 100


def test_two_plugins_registering_one_card_set_name_is_refused_at_start_up(tmp_path):
    from gameroom.registry import PluginError

    def pack(name):
        module = types.ModuleType(name)

        @hookimpl
        def gameroom_content(game):
            return {"card_set": {"same-name": tmp_path / "x.json"}} if game.info.slug == TSE else None

        module.gameroom_content = gameroom_content
        return module

    with pytest.raises(PluginError, match="same-name"):
        build_registry(extra_plugins=[("pack-a", pack("pack_a")), ("pack-b", pack("pack_b"))])
