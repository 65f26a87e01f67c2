"""flask-smorest's Blueprint without per-request costs that only serve the docs.

flask-smorest does a few things on every request that change nothing here:

- each ``@blp.alt_response`` (documentation only) and each ``@blp.arguments``
  wraps the view in one more call layer with a ``current_app`` look-up: a
  move's endpoint documents eight error statuses and two argument schemas;
- webargs runs its whole parsing machinery for a JSON body that is a plain
  object, and for a request without a query string.

Here ``alt_response`` and ``arguments`` record the same documentation on the
view function itself (``arguments`` still lets webargs inject the parsed
arguments), and the parser loads a JSON object body, or an absent query
string (``{}``), with the schema directly. Anything the schema refuses, and
any other body, goes through webargs as before, so problems look the same.
The OpenAPI document is unchanged: the test that compares it with
``openapi.yaml`` would fail otherwise.
"""

from __future__ import annotations

import http
from copy import deepcopy

from flask import request
from flask_smorest import Blueprint as _Blueprint
from flask_smorest.utils import remove_none, resolve_schema_instance
from marshmallow import Schema, ValidationError
from webargs.core import _UNKNOWN_DEFAULT_PARAM, missing
from webargs.flaskparser import FlaskParser, is_json_request

from . import bodies


class Parser(FlaskParser):
    def _raw_load_json(self, req):
        """As webargs does, parsing with :func:`bodies.loads` (the API's limits on any JSON body)."""
        if not is_json_request(req):
            return missing
        return bodies.loads(req.get_data(cache=True))

    def parse(
        self, argmap, req=None, *, location=None, unknown=_UNKNOWN_DEFAULT_PARAM, validate=None, **kwargs
    ):
        data = _plain_data(location) if validate is None and isinstance(argmap, Schema) else None
        if data is not None:
            # webargs' precedence for `unknown`: explicit, this parser's, the location's default.
            chosen = (
                unknown
                if unknown != _UNKNOWN_DEFAULT_PARAM
                else (
                    self.unknown
                    if self.unknown != _UNKNOWN_DEFAULT_PARAM
                    else self.DEFAULT_UNKNOWN_BY_LOCATION.get(location)
                )
            )
            try:
                return argmap.load(data, **({"unknown": chosen} if chosen else {}))
            except ValidationError:
                pass  # webargs reports it, as for any request
        return super().parse(argmap, req, location=location, unknown=unknown, validate=validate, **kwargs)


def _plain_data(location: str | None) -> dict | None:
    """The request's data for ``location`` when it needs none of webargs' handling, else None."""
    if location == "json" and request.is_json:
        data = request.get_json(silent=True)
        return data if isinstance(data, dict) else None
    if location == "query" and not request.query_string:
        return {}
    return None


def _documented(func, section: str):
    """``func``'s API doc (a private copy, as flask-smorest makes) and its ``section``."""
    func._apidoc = deepcopy(getattr(func, "_apidoc", {}))
    return func._apidoc.setdefault(section, {})


class Blueprint(_Blueprint):
    ARGUMENTS_PARSER = Parser()

    def arguments(
        self,
        schema,
        *,
        location="json",
        content_type=None,
        required=True,
        description=None,
        example=None,
        examples=None,
        **kwargs,
    ):
        """Parse and document arguments (as flask-smorest does), adding no call layer of its own."""
        parameters = remove_none(
            {
                "in": location,
                "required": required,
                "schema": schema,
                "content_type": content_type,
                "example": example,
                "examples": examples,
                "description": description,
            }
        )
        status = kwargs.get("error_status_code", self.ARGUMENTS_PARSER.DEFAULT_VALIDATION_STATUS)

        def decorator(func):
            docs = _documented(func, "arguments")
            docs.setdefault("parameters", []).append(parameters)
            docs.setdefault("responses", {})[status] = http.HTTPStatus(status).name
            if location == "json":  # any JSON body may be malformed or too large
                for code in (400, 413):
                    docs["responses"].setdefault(code, http.HTTPStatus(code).name)
            return self.ARGUMENTS_PARSER.use_args(schema, location=location, **kwargs)(func)

        return decorator

    def documented_arguments(self, schema, *, location: str, description=None):
        """Document arguments that the view reads itself (no parsing per request), like :meth:`arguments`."""
        parameters = remove_none(
            {"in": location, "required": False, "schema": schema, "description": description}
        )

        def decorator(func):
            _documented(func, "arguments").setdefault("parameters", []).append(parameters)
            return func

        return decorator

    def alt_response(
        self,
        status_code,
        response=None,
        *,
        schema=None,
        content_type=None,
        description=None,
        example=None,
        examples=None,
        headers=None,
        success=False,
    ):
        """Document an alternative response (as flask-smorest does), adding no call layer."""
        if response is not None:
            resp_doc = response
        else:
            if description is None:
                description = http.HTTPStatus(int(status_code)).phrase
            resp_doc = remove_none(
                {
                    "schema": self._make_doc_response_schema(resolve_schema_instance(schema)),
                    "description": description,
                    "example": example,
                    "examples": examples,
                    "headers": headers,
                }
            )
            resp_doc["content_type"] = content_type

        def decorator(func):
            docs = _documented(func, "response")
            docs.setdefault("responses", {}).setdefault(status_code, []).append(resp_doc)
            if success:
                func._apidoc.setdefault("success_status_codes", []).append(status_code)
            return func

        return decorator

    def header(self, name: str, description: str, *, schema: dict | None = None):
        """Document a request header that the view reads itself (nothing is parsed here)."""
        parameter = {
            "in": "header",
            "name": name,
            "description": description,
            "required": False,
            "schema": schema or {"type": "string"},
        }

        def decorator(func):
            _documented(func, "arguments").setdefault("parameters", []).append(parameter)
            return func

        return decorator

    def operation(self, operation_id: str, **doc):
        """Give the operation its stable ``operationId`` (generated clients name their functions after it).

        ``doc``: more of the OpenAPI operation object, merged over what the
        other decorators document (as flask-smorest's ``doc``, without its call layer).
        """

        def decorator(func):
            manual = _documented(func, "manual_doc")
            manual.update(deepcopy(doc))
            manual["operationId"] = operation_id
            return func

        return decorator
