"""A real Chromium for browser tests, driven by Playwright (the ``playwright`` package).

Playwright's own browser download is not used: the tests drive the system's
Chromium (Debian's ``chromium`` package, ``/usr/bin/chromium``; another one
with ``GAMEROOM_CHROMIUM``). Without it the browser tests are skipped, and
the skip says why and how to install it.

Use the ``browser`` fixture (``pytest_plugins = ["gameroom.testing.browser"]``)
or :func:`launch` directly.
"""

from __future__ import annotations

import os
import shutil

import pytest

LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """The Chromium executable to drive, or None when there is none."""
    for candidate in (
        os.environ.get("GAMEROOM_CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


SKIP_REASON = (
    "browser tests skipped: no Chromium found (apt-get install chromium, "
    "or set GAMEROOM_CHROMIUM to a Chromium executable)"
)


def launch(playwright):
    """A headless Chromium browser of ``playwright`` (``sync_playwright().start()``)."""
    return playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=LAUNCH_ARGS)


@pytest.fixture(scope="session")
def browser():
    """A headless system Chromium for the session; skips the test when there is none."""
    path = chromium_path()
    if path is None:
        pytest.skip(SKIP_REASON)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(
            "browser tests skipped: the playwright package is not installed (pip install -e '.[test]')"
        )
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()
