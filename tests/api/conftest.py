"""An API client for the tests that checks every response against openapi.yaml; the app, once
with the fast paths on and once with them off.

``fast_paths`` is a parameter of every test here that builds an app through the ``app`` fixture
(or asks for ``fast_paths``): it sets ``GAMEROOM_FAST_PATHS`` for the test, so the app (and any
other ``create_app`` the test calls with a dict of settings) serves either through the fast
paths (the lean path below Flask, gameroom's own Redis connections) or through Flask's routes and
redis-py's client alone (service/http/README.md). A module that means one way only overrides
``fast_paths`` with a plain fixture.
"""

import json
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse

from gameroom import create_app

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"


@pytest.fixture(params=[True, False], ids=["fast-paths-on", "fast-paths-off"])
def fast_paths(request, monkeypatch) -> bool:
    """Whether the app serves through the fast paths (both, one test each)."""
    monkeypatch.setenv("GAMEROOM_FAST_PATHS", "1" if request.param else "0")
    return request.param


@pytest.fixture
def app(fast_paths, redis_server, redis_client, registry):
    """The root conftest's app, built with ``fast_paths`` (read from the environment it sets)."""
    app = create_app(
        {"redis_url": redis_server.url, "ai_mode": "rq", "sse_keepalive": 0.2, "sse_max_age": 3.0}, registry
    )
    assert app.config["GAMEROOM"].fast_paths is fast_paths
    app.config["TESTING"] = True
    yield app


@pytest.fixture(scope="session")
def openapi():
    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    return OpenAPI.from_file_path(str(SPEC_PATH), config=config)


class Api:
    """Thin wrapper over pytest-flask's client: JSON in, JSON out, spec-checked."""

    def __init__(self, client, openapi):
        self.client = client
        self.openapi = openapi
        self.checked = 0

    def call(self, method, path, body=None, token=None, headers=None, raw=None, validate=True):
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        kwargs = {"headers": headers}
        if raw is not None:
            kwargs["data"], kwargs["content_type"] = raw, "application/json"
        elif body is not None:
            kwargs["json"] = body
        response = getattr(self.client, method.lower())(path, **kwargs)
        if validate and response.status_code != 304 and response.mimetype != "text/event-stream":
            self._validate(method, path, response, headers)
        return response

    def _validate(self, method, path, response, headers):
        parts = urlsplit(path)
        request = MockRequest(
            "http://localhost", method.lower(), parts.path, args=dict(parse_qsl(parts.query)), headers=headers
        )
        mock = MockResponse(
            response.get_data(),
            status_code=response.status_code,
            headers=dict(response.headers),
            content_type=response.mimetype,
        )
        self.openapi.validate_response(request, mock)
        self.checked += 1

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.call("POST", path, body, **kw)

    # -- conveniences ---------------------------------------------------

    def create(self, game="nim", seats=None, **body):
        seats = seats if seats is not None else [{"name": "Ana"}, {"name": "Bo"}]
        r = self.post("/api/matches", {"game": game, "seats": seats, **body})
        assert r.status_code == 201, r.get_json()
        data = r.get_json()
        return data["match"]["id"], {int(k): v for k, v in data["tokens"].items()}

    def state(self, match_id, token=None, version=None):
        q = f"?version={version}" if version else ""
        r = self.get(f"/api/matches/{match_id}/state{q}", token=token)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def legal(self, match_id, token):
        r = self.get(f"/api/matches/{match_id}/legal-moves", token=token)
        assert r.status_code == 200, r.get_json()
        return r.get_json()["moves"]

    def move(self, match_id, token, move, **body):
        return self.post(f"/api/matches/{match_id}/moves", {"move": move, **body}, token=token)


@pytest.fixture
def api(client, openapi):
    return Api(client, openapi)


def problem(response, status, code):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == code, body
    assert body["status"] == status and body["title"] and body["detail"] and body["type"].endswith(code)
    return body


@pytest.fixture
def expect_problem():
    return problem


def dumps(x):
    return json.dumps(x, sort_keys=True)
