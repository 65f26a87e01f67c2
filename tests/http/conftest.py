"""The fast paths' own tests: a small JSON client over Flask's test client (tests/api checks
every response against openapi.yaml; these compare two ways of serving one request)."""

import pytest


class Api:
    """Create a match, read its state, make a move: JSON in, JSON out."""

    def __init__(self, client):
        self.client = client

    def get(self, path, token=None):
        return self.client.get(path, headers={"Authorization": f"Bearer {token}"} if token else {})

    def create(self, game="nim", seats=None, **body):
        seats = seats if seats is not None else [{"name": "Ana"}, {"name": "Bo"}]
        r = self.client.post("/api/matches", json={"game": game, "seats": seats, **body})
        assert r.status_code == 201, r.get_json()
        data = r.get_json()
        return data["match"]["id"], {int(k): v for k, v in data["tokens"].items()}

    def state(self, match_id, token=None):
        r = self.get(f"/api/matches/{match_id}/state", token=token)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def move(self, match_id, token, move, **body):
        headers = {"Authorization": f"Bearer {token}"}
        return self.client.post(
            f"/api/matches/{match_id}/moves", json={"move": move, **body}, headers=headers
        )


@pytest.fixture
def api(client):
    return Api(client)
