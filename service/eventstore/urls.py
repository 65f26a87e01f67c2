"""Redis URLs as they may be shown: in logs and error messages, never with their password."""

from __future__ import annotations

import re

#: ``password=...`` in a URL's query string (redis-py reads it there too).
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&]*", re.IGNORECASE)


def without_password(url: str) -> str:
    """``url`` with its password, in the user part or the query string, replaced by ``***``.

    ``redis://user:secret@h:6379/0`` -> ``redis://user:***@h:6379/0``. A user part
    with no colon is a password to redis-py and to cluster URLs
    (``redis+cluster://secret@h:7000``), so it is hidden whole. The user part
    ends at the last ``@`` before the query string, so a password with an
    unescaped ``/`` or ``@`` is hidden too.
    """
    scheme, sep, rest = url.partition("://")
    head, question, query = rest.partition("?")
    query = _QUERY_PASSWORD.sub(r"\1***", question + query)
    if sep and "@" in head:
        credentials, host = head.rsplit("@", 1)
        user, colon, _password = credentials.partition(":")
        head = f"{user}:***@{host}" if colon else f"***@{host}"
    return f"{scheme}{sep}{head}{query}"
