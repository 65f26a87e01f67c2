"""The lobby when the network fails for a moment, and at phone width.

A failed request is made with Playwright's request interception (the request
is aborted: the page sees what it sees when the server is down), then let
through again: the page must recover without a reload.
"""

import re

from gameroom.testing.served import http_json

FAILED = r"net::ERR_FAILED"  # Chromium logs each aborted request as a console error


def test_a_game_whose_description_failed_to_load_is_asked_again(open_tab, server):
    """Switching to Nim while its description cannot load says so and cannot create a match
    for another game; Try again (the server back) makes the form Nim's, and Nim matches open."""
    tab = open_tab()
    page = tab.page
    tab.allow(FAILED)
    down = re.compile(r"/api/games/nim$")
    page.route(down, lambda route: route.abort())
    page.select_option("#new-game", "nim")
    page.wait_for_selector("#game-problem >> text=could not be loaded")
    assert page.locator("#create[disabled]").count() == 1, "no match of the game shown before"
    assert page.get_attribute("#create-form", "data-game") is None
    page.click("#game-retry")  # still down: still said
    page.wait_for_selector("#game-problem >> text=could not be loaded")
    page.unroute(down)
    page.click("#game-retry")
    page.wait_for_selector('#create-form[data-game="nim"]')
    assert page.text_content("#game-problem") == ""
    match_id, _ = tab.create("nim", [("Ana", "human"), ("Bot", "ai:random")], {"piles": "3, 4, 5"})
    _, summary = http_json("GET", f"{server.base}/api/matches/{match_id}")
    assert summary["game"] == "nim"
    page.click("text=Watch this match")
    page.wait_for_selector("#board dl.tree")
    assert "cannot be reached" not in page.text_content("main")


def test_the_match_list_says_when_it_cannot_be_loaded_and_recovers(open_tab):
    tab = open_tab()
    page = tab.page
    tab.allow(FAILED)
    page.wait_for_selector("table.matches tbody tr")
    down = re.compile(r"/api/matches\?")
    page.route(down, lambda route: route.abort())
    page.click("#refresh")
    page.wait_for_selector("#message.error >> text=could not be loaded")
    page.select_option("#filter-status", "finished")
    page.wait_for_selector("#message.error >> text=could not be loaded")
    page.unroute(down)
    page.click("#refresh")
    page.wait_for_function("() => document.querySelector('#message').textContent === ''")
    page.wait_for_selector("table.matches tbody tr")
    assert [e for e in tab.errors if e.startswith("uncaught")] == [], "no unhandled rejection"


def test_a_board_that_failed_to_load_is_loaded_when_the_page_opens_again(open_tab, server):
    tab = open_tab()
    page = tab.page
    tab.allow(FAILED)
    _, created = http_json(
        "POST",
        f"{server.base}/api/matches",
        {"game": "look-at-the-stars", "seats": [{"name": "Ana"}, {"name": "Bot", "ai": "random"}]},
    )
    match_id = created["match"]["id"]
    down = re.compile(r"/ui/games/look-at-the-stars/renderer\.js")
    page.route(down, lambda route: route.abort())
    page.goto(f"{server.base}/#/match/{match_id}")
    page.wait_for_selector("#board .renderer-failed")
    assert page.locator("#board .generic-view").count() == 1, "the view as a tree meanwhile"
    page.unroute(down)
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-form")
    page.goto(f"{server.base}/#/match/{match_id}")
    page.wait_for_selector("#board .lats")
    assert page.locator("#board .renderer-failed").count() == 0


def test_at_phone_width_every_match_and_its_actions_show_without_scrolling_sideways(open_tab, server):
    tab = open_tab(width=375, height=740)
    page = tab.page
    _, created = http_json(
        "POST", f"{server.base}/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, None]}
    )
    match_id = created["match"]["id"]
    page.click("#refresh")
    row = page.locator(f"tr[data-match='{match_id}']")
    row.wait_for()
    width = page.evaluate("() => window.innerWidth")
    for control in (
        row.locator("input"),
        row.locator("text=Claim seat 2"),
        row.locator("text=Watch"),
        row.locator("text=Replay"),
    ):
        box = control.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, control
    assert page.evaluate(
        "() => [...document.querySelectorAll('main .scroll')].every(e => e.scrollWidth <= e.clientWidth)"
    ), "no box of the lobby scrolls sideways"
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    tab.shot("phone-lobby-cards")


def _in_view(page, selector: str) -> bool:
    return page.evaluate(
        "s => { const r = document.querySelector(s).getBoundingClientRect();"
        " return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }",
        selector,
    )


def test_at_phone_width_a_refused_match_says_which_option_is_wrong_next_to_the_form(open_tab):
    tab = open_tab(width=375, height=740)
    page = tab.page
    tab.allow(r"status of 4\d\d")
    page.select_option("#new-game", "stars-are-right")
    page.wait_for_selector('#create-form[data-game="stars-are-right"]')
    page.fill("#opt-no_cancel_checks", "aa")
    page.click("#create")
    problem = page.locator("#create-form #create-problem[role=alert]")
    problem.wait_for()
    assert "no_cancel_checks: " in problem.text_content()
    assert "[bad-options]" in problem.text_content()
    assert _in_view(page, "#create-problem"), "the message shows where the user tapped"
    page.fill("#seat-0-name", "x" * 64)
    page.fill("#opt-no_cancel_checks", "")
    page.evaluate("() => { document.querySelector('#seat-0-name').removeAttribute('maxlength'); }")
    page.fill("#seat-0-name", "x" * 300)
    page.click("#create")
    page.wait_for_selector("#create-problem >> text=seats.0.name")


def test_a_list_option_that_is_not_a_number_is_caught_in_the_browser_and_named(open_tab, server):
    tab = open_tab(width=375, height=740)
    page = tab.page
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    page.select_option("#new-game", "nim")
    page.wait_for_selector('#create-form[data-game="nim"]')
    page.fill("#opt-piles", "3, x")
    page.click("#create")
    page.wait_for_selector('#create-problem >> text=item 2 ("x") is not a number')
    assert posted == [], "nothing is sent"
    assert page.evaluate("() => document.activeElement.id") == "opt-piles"
    assert _in_view(page, "#create-problem")


def test_a_refused_claim_says_so_on_its_own_card(open_tab, server):
    tab = open_tab(width=375, height=740)
    page = tab.page
    tab.allow(r"status of 4\d\d")
    _, created = http_json(
        "POST", f"{server.base}/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, None]}
    )
    match_id = created["match"]["id"]
    page.click("#refresh")
    row = page.locator(f"tr[data-match='{match_id}']")
    row.wait_for()
    http_json("POST", f"{server.base}/api/matches/{match_id}/seats/1", {"name": "Bo"})
    row.locator("input").fill("Cy")
    row.locator("text=Claim seat 2").click()
    problem = row.locator(".claim-problem[role=alert]")
    problem.wait_for()
    page.wait_for_function(
        "id => document.querySelector(`tr[data-match='${id}'] .claim-problem`).textContent.includes('[')",
        arg=match_id,
    )
    assert _in_view(page, f"tr[data-match='{match_id}'] .claim-problem")
