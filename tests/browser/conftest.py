"""Browser tests: a real Chromium (Debian's ``chromium``) driven by Playwright
against a real ``gameroom serve`` process (embedded Redis, one AI worker, the
shipped defaults).

Without a browser (or without the ``playwright`` package) every test here is
skipped, and the summary says so in one line. ``GAMEROOM_CHROMIUM`` points at
another Chromium binary. Screenshots go to ``tests/browser/screenshots/``
(git-ignored).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gameroom.testing.browser import chromium_path
from gameroom.testing.served import Served

CHROMIUM = chromium_path() or "/usr/bin/chromium"
SHOTS = Path(__file__).with_name("screenshots")
HERE = Path(__file__).parent


def _why_skipped() -> str | None:
    if not Path(CHROMIUM).exists():
        return (
            f"browser tests skipped: no Chromium at {CHROMIUM} "
            "(apt-get install -y chromium, or set GAMEROOM_CHROMIUM)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "browser tests skipped: the playwright package is not installed (pip install -e '.[test]')"
    return None


SKIP = _why_skipped()
if not SKIP:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout


def pytest_collection_modifyitems(config, items):
    if SKIP:
        for item in items:
            if HERE in Path(item.fspath).parents:
                item.add_marker(pytest.mark.skip(reason=SKIP))


def pytest_terminal_summary(terminalreporter):
    if SKIP:
        terminalreporter.write_line(
            SKIP.upper().split(":")[0] + ":" + SKIP.split(":", 1)[1], yellow=True, bold=True
        )


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    if SKIP:
        pytest.skip(SKIP)
    running = Served(
        tmp_path_factory.mktemp("serve"),
        workers=1,
        env={"GAMEROOM_ACCESS_LOG": "1"},  # the tests check that no token reaches it
    ).start()  # as a user starts it
    yield running
    running.stop()
    SHOTS.mkdir(exist_ok=True)
    shutil.copy(
        running.log_path, SHOTS / "serve.log"
    )  # kept beside the screenshots for a look after a failure


# ``browser``: the session's one Chromium, from gameroom.testing.browser (tests/conftest.py
# loads it). Two sync Playwright instances cannot run in one process.


class Tab:
    """A page that records console errors and every URL it requests."""

    #: Chromium logs every non-2xx response as a console error; tests that provoke one say which.
    def __init__(self, page, base: str):
        self.page = page
        self.base = base
        self.errors: list[str] = []
        self.urls: list[str] = []
        self.allowed: list[re.Pattern] = []
        self.stale_clicks: list[str] = []  # board moves that vanished before the click (a redraw)
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.on("request", lambda r: self.urls.append(r.url))

    def allow(self, pattern: str) -> None:
        self.allowed.append(re.compile(pattern))

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(p.search(e) for p in self.allowed)]

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    # -- lobby and play, as a person does them: by clicking --------------------

    def create(
        self, game: str, seats: list[tuple[str, str]], options: dict | None = None, seed: str | None = None
    ):
        """Create a match from the lobby form; returns (match id, {seat: invitation link})."""
        page = self.page
        page.select_option("#new-game", game)
        page.wait_for_selector(f'#create-form[data-game="{game}"]')
        page.select_option("#new-count", str(len(seats)))
        for i, (name, kind) in enumerate(seats):
            page.fill(f"#seat-{i}-name", name)
            page.select_option(f"#seat-{i}-kind", kind)
        for name, value in (options or {}).items():
            field = page.locator(f"#opt-{name}")
            if isinstance(value, bool):
                field.set_checked(value)
            elif field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(str(value))
            else:
                field.fill(str(value))
        if seed:
            page.fill("#new-seed", seed)
        page.click("#create")
        page.wait_for_selector("#created")
        links = {}
        for field in page.locator("#created .invites input").all():
            link = field.input_value()
            match = re.search(r"#/join/([^/]+)/(\d+)/", link)
            links[int(match.group(2))] = link
        return match.group(1), links

    def state_line(self) -> str:
        return self.page.text_content("#status") or ""

    def wait_turn(self, timeout: float = 60_000) -> bool:
        """Wait until this seat can act (True) or the match is over (False)."""
        self.page.wait_for_function(
            "() => { const s = document.querySelector('#status');"
            " return s && (s.textContent.startsWith('Finished')"
            " || (s.textContent.startsWith('Your turn')"
            "     && document.querySelector('#moves button.move:not([disabled])'))); }",
            timeout=timeout,
        )
        return not self.state_line().startswith("Finished")

    def click_move(self, rng, prefer=()) -> str:
        """Click one legal move (a preferred type when offered, else at random); returns its label."""
        page = self.page
        before = self.state_line(), page.text_content("#message") or ""
        groups = page.locator("#moves fieldset.move-group").all()
        legends = [g.locator("legend").text_content() for g in groups]
        chosen = next((g for g, legend in zip(groups, legends) for p in prefer if legend.startswith(p)), None)
        group = chosen or rng.choice(groups)
        select = group.locator("select")
        if select.count():
            options = select.locator("option").all()
            select.select_option(index=rng.randrange(len(options)))
            label = select.locator("option:checked").text_content()
            target = group.locator("button.move")
        else:
            target = rng.choice(group.locator("button.move").all())
            label = target.text_content()
        target.click()
        page.wait_for_function(
            "([s, m]) => (document.querySelector('#status')?.textContent !== s)"
            " || (document.querySelector('#message')?.textContent !== m"
            "     && document.querySelector('#moves button.move:not([disabled])'))",
            arg=list(before),
        )
        return label

    BOARD_MOVES = (
        "#board .board-move:not([disabled]), #board .push:not([disabled]), #board .cell:not([disabled]),"
        " #board .target"
    )
    CONFIRM = "#board .place:not([disabled]), #board .use-power:not([disabled])"

    def click_board(self, rng, prefer=()) -> str:
        """Click one move on the game's own board (not the generic list); returns its label."""
        page = self.page
        try:  # a board may finish drawing just after the generic move list (its own assets load first)
            page.wait_for_selector(self.BOARD_MOVES, timeout=10_000)
        except PlaywrightTimeout:
            pass
        for _ in range(5):
            before = self.state_line(), page.text_content("#message") or ""
            # The labels in one read: news from another seat redraws the board, so a list of
            # element handles can go stale between reading it and clicking.
            moves = page.locator(self.BOARD_MOVES)
            labels = moves.all_text_contents()
            if not labels and not self.state_line().startswith("Your turn"):
                # The seat's previous move was still landing when its turn was read (a loaded
                # machine): the turn has passed since. Wait for the seat's next turn and read again.
                if not self.wait_turn():
                    return ""
                continue
            assert labels, (
                "the board offers no move although the seat may act: "
                f"{self.state_line()!r}; board: {(page.text_content('#board') or '')[:600]!r};"
                f" moves: {(page.text_content('#moves') or '')[:300]!r}"
            )
            preferred = [
                i for i, text in enumerate(labels) if any(text.lower().startswith(p) for p in prefer)
            ]
            index = rng.choice(preferred or range(len(labels)))
            label = labels[index]
            try:
                moves.nth(index).click(timeout=5_000)
                break
            except PlaywrightTimeout:
                self.stale_clicks.append(label)
                if not self.wait_turn():  # the board changed because the match is over
                    return label
                # Still there but covered where the pointer aims (target lines crossing on a star
                # sheet): take it by keyboard, as a keyboard user does (Tab to it, Enter).
                again = page.locator(self.BOARD_MOVES)
                if index < again.count() and again.nth(index).text_content(timeout=2_000) == label:
                    again.nth(index).focus()
                    page.keyboard.press("Enter")
                    break
        else:
            raise AssertionError("the board kept changing under the click")
        if page.locator("#board .picked").count():  # the first of two clicks (a swap): now its partner
            rng.choice(page.locator("#board .cell:not([disabled]):not(.picked)").all()).click()
        elif page.locator(self.CONFIRM).count():  # a spot on the sheet was picked: place it there
            # Other seats act at the same time, and each of their steps redraws the board (the pick
            # survives): a click may meet a button just replaced, so try again on the new one.
            for _ in range(5):
                try:
                    page.locator(self.CONFIRM).first.click(timeout=4_000)
                    break
                except PlaywrightTimeout:
                    continue
            else:
                raise AssertionError("the picked placement could not be confirmed")
        page.wait_for_function(
            "([s, m]) => (document.querySelector('#status')?.textContent !== s)"
            " || (document.querySelector('#message')?.textContent !== m"
            "     && document.querySelector('#moves button.move:not([disabled])'))",
            arg=list(before),
        )
        return label

    def play_to_end(self, rng, limit: int, prefer=(), board: bool = False) -> int:
        """Play this seat by clicking (on the board, or the generic list) until the match ends."""
        for made in range(limit):
            if not self.wait_turn():
                return made
            if board:
                self.click_board(rng, prefer)
            else:
                self.click_move(rng, prefer)
        raise AssertionError(f"not over after {limit} moves: {self.state_line()}")


@pytest.fixture
def open_tab(browser, server):
    """``open_tab(width=1280, height=900)``: a fresh browser context (its own localStorage) on the lobby."""
    contexts, tabs = [], []

    def make(width: int = 1280, height: int = 900) -> Tab:
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(30_000)
        contexts.append(context)
        tab = Tab(context.new_page(), server.base)
        tab.page.goto(server.base + "/")
        tab.page.wait_for_selector("#create-form")
        tabs.append(tab)
        return tab

    yield make
    for context in contexts:
        context.close()
    for tab in tabs:
        assert tab.unexpected_errors() == [], "console errors in the page"
        leaked = [u for u in tab.urls if "token=" in u and "/stream?" not in u]
        assert leaked == [], "a token in a URL query other than the stream's"
