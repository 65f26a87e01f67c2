"""Test-only AI levels that never produce a move: ``broken`` and ``killed``.

``broken`` raises every time it is asked (a policy with a bug); ``killed``
kills its own RQ work horse with SIGKILL every time (as the OOM killer
would), and raises instead when it is not running inside an RQ job, so that
it never kills a test process. Register them in-process with
``build_registry(extra_plugins=[("broken-ai", broken_ai)])``.
"""

from __future__ import annotations

import os
import signal

from ..plugin_api import hookimpl


class BrokenPolicy(RuntimeError):
    """What ``broken`` raises."""


def broken_policy(game, view, seat, legal, rng, **_):
    raise BrokenPolicy(f"the broken level cannot choose among {len(legal)} moves")


def killed_policy(game, view, seat, legal, rng, **_):
    from rq import get_current_job

    if get_current_job() is None:
        raise BrokenPolicy("the killed level only kills RQ work horses")
    os.kill(os.getpid(), signal.SIGKILL)


@hookimpl
def gameroom_ai_policies(game):
    return {"broken": broken_policy, "killed": killed_policy}
