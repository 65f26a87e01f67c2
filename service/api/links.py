"""OpenAPI links: which response supplies the ids of which later request.

A client (or a stateful fuzzer such as schemathesis) follows them from a new
match to everything that can be done with it. An apispec plugin adds them to
the documented responses, so ``openapi.yaml`` and ``/api/openapi.json`` carry
them like every other part of the document.
"""

from __future__ import annotations

from apispec import BasePlugin

MATCH = "/api/matches/{match_id}"
#: What can be done with a match once its id is known: (path, method).
_WITH_MATCH = [
    (MATCH, "get"),
    (MATCH + "/state", "get"),
    (MATCH + "/legal-moves", "get"),
    (MATCH + "/events", "get"),
    (MATCH + "/stream", "get"),
    (MATCH + "/export", "get"),
    (MATCH + "/moves", "post"),
    (MATCH + "/undo", "post"),
    (MATCH + "/fork", "post"),
    (MATCH + "/seats/{seat}", "post"),
]


def _ref(path: str, method: str) -> str:
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method


def _name(path: str, method: str) -> str:
    tail = path.removeprefix(MATCH).strip("/").replace("/{seat}", "").replace("-", " ") or "match"
    return method.capitalize() + "".join(word.capitalize() for word in tail.replace("/", " ").split())


def _match_links(match_id: str) -> dict:
    return {
        _name(path, method): {"operationRef": _ref(path, method), "parameters": {"match_id": match_id}}
        for path, method in _WITH_MATCH
    }


#: What seat 0's token (when a human filled it at creation) may do in the new match.
_AS_SEAT = [
    (MATCH + "/state", "get"),
    (MATCH + "/legal-moves", "get"),
    (MATCH + "/moves", "post"),
    (MATCH + "/undo", "post"),
    (MATCH + "/events", "get"),
    (MATCH + "/export", "get"),
]


def _seat_links(match_id: str, token: str) -> dict:
    """Links that carry a seat's bearer token (qualified ``header.Authorization``, as OpenAPI allows)."""
    return {
        _name(path, method) + "AsSeat0": {
            "operationRef": _ref(path, method),
            "parameters": {"match_id": match_id, "header.Authorization": f"Bearer {{{token}}}"},
        }
        for path, method in _AS_SEAT
    }


#: (path, method, status) -> links of that response.
LINKS = {
    ("/api/matches", "post", "201"): {
        **_match_links("$response.body#/match/id"),
        **_seat_links("$response.body#/match/id", "$response.body#/tokens/0"),
    },
    (MATCH + "/fork", "post", "201"): _match_links("$response.body#/match/id"),
    ("/api/matches/import", "post", "201"): _match_links("$response.body#/match/id"),
    (MATCH + "/seats/{seat}", "post", "201"): _match_links("$response.body#/match/id"),
    (MATCH + "/undo", "post", "202"): {
        "GetUndoRequest": {
            "operationRef": _ref(MATCH + "/undo-requests/{request_id}", "get"),
            "parameters": {"match_id": "$request.path.match_id", "request_id": "$response.body#/request/id"},
        },
        "VoteOnUndoRequest": {
            "operationRef": _ref(MATCH + "/undo-requests/{request_id}", "post"),
            "parameters": {"match_id": "$request.path.match_id", "request_id": "$response.body#/request/id"},
        },
    },
}


class LinksPlugin(BasePlugin):
    """Adds :data:`LINKS` to the responses they belong to."""

    def operation_helper(self, path=None, operations=None, **kwargs):
        for method, operation in (operations or {}).items():
            for status, response in (operation.get("responses") or {}).items():
                links = LINKS.get((path, method, str(status)))
                if links and isinstance(response, dict):
                    response["links"] = links
