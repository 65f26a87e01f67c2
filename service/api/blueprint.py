"""flask-smorest's Blueprint without per-request costs that only serve the docs.

Two things flask-smorest does on every request that change nothing for us:

- each ``@blp.alt_response`` (documentation only) wraps the view in one more
  call layer: a move's endpoint documents eight error statuses, so eight
  extra calls and ``current_app`` look-ups per request;
- a query-string schema is run through webargs' whole parsing machinery even
  when the request has no query string.

Here ``alt_response`` records the same documentation on the view function
itself, and a request without a query string has its query schema loaded
from ``{}`` directly (any error there still goes through webargs, so
problems look the same). The OpenAPI document is unchanged: the test that
compares it with ``openapi.yaml`` would fail otherwise.
"""
from __future__ import annotations

import http
from copy import deepcopy

from flask import request
from flask_smorest import Blueprint as _Blueprint
from flask_smorest.utils import remove_none, resolve_schema_instance
from marshmallow import EXCLUDE, Schema, ValidationError
from webargs.flaskparser import FlaskParser


class Parser(FlaskParser):
    def parse(self, argmap, req=None, *, location=None, validate=None, **kwargs):
        if (location == "query" and validate is None and isinstance(argmap, Schema)
                and not request.query_string):
            try:
                return argmap.load({}, unknown=EXCLUDE)
            except ValidationError:
                pass  # webargs reports it, as for any request
        return super().parse(argmap, req, location=location, validate=validate, **kwargs)


class Blueprint(_Blueprint):
    ARGUMENTS_PARSER = Parser()

    def alt_response(self, status_code, response=None, *, schema=None, content_type=None, description=None,
                     example=None, examples=None, headers=None, success=False):
        """Document an alternative response (as flask-smorest does), adding no call layer."""
        if response is not None:
            resp_doc = response
        else:
            if description is None:
                description = http.HTTPStatus(int(status_code)).phrase
            resp_doc = remove_none({
                "schema": self._make_doc_response_schema(resolve_schema_instance(schema)),
                "description": description,
                "example": example,
                "examples": examples,
                "headers": headers,
            })
            resp_doc["content_type"] = content_type

        def decorator(func):
            apidoc = deepcopy(getattr(func, "_apidoc", {}))
            apidoc.setdefault("response", {}).setdefault("responses", {}).setdefault(status_code, []).append(resp_doc)
            if success:
                apidoc.setdefault("success_status_codes", []).append(status_code)
            func._apidoc = apidoc
            return func

        return decorator

