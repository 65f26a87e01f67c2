"""flask-smorest's Api, with problem+json as the documented error format."""

from __future__ import annotations

import http

from flask_smorest import Api
from flask_smorest.spec import prepare_response

from gameroom.schemas import ProblemSchema

from .problems import MEDIA_TYPE

#: Keyword arguments of ``alt_response`` for an error status.
PROBLEM = {"schema": ProblemSchema, "content_type": MEDIA_TYPE}

#: ... for 401, which names the scheme to use (RFC 9110 section 11.6.1).
UNAUTHORIZED = {
    **PROBLEM,
    "headers": {
        "WWW-Authenticate": {
            "description": "`Bearer`: send a seat's token as `Authorization: Bearer <token>`",
            "schema": {"type": "string"},
        }
    },
}

#: Response headers, as OpenAPI header objects.
LOCATION = {"Location": {"description": "the new match's URL", "schema": {"type": "string"}}}
ETAG = {
    "ETag": {
        "description": "the version and the seat it was seen by; send it back as `If-None-Match`",
        "schema": {"type": "string"},
    }
}


class GameroomApi(Api):
    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self):
        """Document every error status as application/problem+json (what problems.py sends)."""
        for status in http.HTTPStatus:
            response = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, MEDIA_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, MEDIA_TYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)
