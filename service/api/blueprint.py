"""flask-smorest's Blueprint, as upstream runs it, with a strict JSON body loader and doc-only decorators.

Every request runs flask-smorest's and webargs' own code: ``arguments``,
``response`` and ``alt_response`` are upstream's. Two additions:

- the parser loads JSON bodies with :func:`bodies.loads` (the API's limits on
  any JSON body) through webargs' public ``load_json`` loader; a body that is
  not JSON is refused exactly as webargs refuses it (400 ``{"json": [...]}``);
- :meth:`Blueprint.no_body` reads the body of an action that takes no
  parameters with the same loader and a schema of no fields, so such a body
  is refused as any other route refuses it, never ignored;
- decorators that only document (an operation id, a request header, arguments
  the view reads itself, and the 400/413 that any JSON body may get) record
  the documentation on the view's ``_apidoc`` as flask-smorest's own
  decorators do (the way its maintainers advise for custom doc decorators) and
  add no call layer.

The hot move path does not come here at all (:mod:`gameroom.http.lean`).
"""

from __future__ import annotations

import http
import json
from copy import deepcopy
from functools import wraps

from flask_smorest import Blueprint as _Blueprint
from flask_smorest.utils import remove_none
from webargs.core import missing
from webargs.flaskparser import FlaskParser, abort, is_json_request

from gameroom.schemas.seats import EmptyBodySchema

from ..errors import UnsupportedMediaType
from . import bodies


class Parser(FlaskParser):
    def load_json(self, req, schema):
        """As webargs' loader, parsing with :func:`bodies.loads`. A body that is not declared
        JSON is refused (415), not read as no body: a leave's ``{"level": "mcts"}`` sent as
        ``curl -d`` (form-encoded) must not hand the seat to the default level instead."""
        if not is_json_request(req):
            if req.content_length or req.get_data(cache=True):
                raise UnsupportedMediaType(
                    "A request body must be JSON, sent with Content-Type: application/json."
                )
            return missing
        data = req.get_data(cache=True)
        if not data:
            return missing
        try:
            return bodies.loads(data)
        except json.JSONDecodeError as exc:  # also a body that is not UTF-8
            abort(400, exc=exc, messages={"json": ["Invalid JSON body."]})


def _documented(func, section: str):
    """``func``'s API doc (a private copy, as flask-smorest makes) and its ``section``."""
    func._apidoc = deepcopy(getattr(func, "_apidoc", {}))
    return func._apidoc.setdefault(section, {})


class Blueprint(_Blueprint):
    ARGUMENTS_PARSER = Parser()

    def arguments(self, schema, *, location="json", **kwargs):
        """flask-smorest's ``arguments``; a JSON body is also documented as maybe malformed (400) or too large (413)."""
        parse = super().arguments(schema, location=location, **kwargs)
        if location != "json":
            return parse

        def decorator(func):
            view = parse(func)
            responses = _documented(view, "arguments").setdefault("responses", {})
            for code in (400, 413, 415):
                responses.setdefault(code, http.HTTPStatus(code).name)
            return view

        return decorator

    def no_body(self):
        """For an action that takes no parameters: no body, or ``{}``; the view gets no argument.

        The body is still read, as :meth:`arguments` reads any: one that is not JSON is a 415,
        broken or too deep a 400, too large a 413, and one with anything in it a 422. Left
        unread, ``please do not resign`` as text/plain would have resigned."""
        parse = self.arguments(
            EmptyBodySchema(), required=False, description="none: send no body, or an empty JSON object"
        )

        def decorator(func):
            @wraps(func)
            def view(*args, **kwargs):
                return func(*args[:-1], **kwargs)  # webargs appends the (empty) body last

            return parse(view)

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
        other decorators document (as flask-smorest's ``doc``).
        """

        def decorator(func):
            manual = _documented(func, "manual_doc")
            manual.update(deepcopy(doc))
            manual["operationId"] = operation_id
            return func

        return decorator
