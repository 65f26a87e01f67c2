"""Game boards played with the keyboard alone (Tab to a control, Enter), at phone width:
the focus stays where the player is, and the board speaks of rows, columns and seats
counting from 1, as the history's sentences do.

The other seat is a second player played through the API, so each match goes where the
test needs it.
"""

from gameroom.plugins.stars_are_right.content import CARDS
from gameroom.testing.served import http_json

PHONE = {"width": 390, "height": 844}


def _create(server, game, options=None):
    _, created = http_json(
        "POST",
        f"{server.base}/api/matches",
        {"game": game, "seats": [{"name": "Ana"}, {"name": "Bo"}], "options": options or {}},
    )
    return created["match"]["id"], created["tokens"]


def _move(server, match_id, token, move):
    http_json("POST", f"{server.base}/api/matches/{match_id}/moves", {"move": move}, token=token)


def _tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focus is on ``selector``, as a keyboard user reaches a control."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} is not reachable with Tab")


def _focus_shows(page) -> bool:
    """The focused control shows it: it matches :focus-visible and has an outline."""
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return e.matches(':focus-visible') && getComputedStyle(e).outlineStyle !== 'none'; }"
    )


def test_tic_tac_toe_is_played_to_a_win_by_keyboard_on_its_own_board(open_tab, server):
    tab = open_tab(**PHONE)
    page = tab.page
    match_id, tokens = _create(server, "tic-tac-toe")
    page.goto(f"{server.base}/#/join/{match_id}/0/{tokens['0']}")
    page.wait_for_selector(".ttt .grid")
    assert page.locator(".ttt .cell").count() == 9
    assert page.locator("#board dl.tree").count() == 0, "its own board, not the generic tree"
    players = page.text_content(".ttt .players")
    assert "X Ana" in players and "O Bo" in players
    tab.wait_turn()
    assert page.locator("#moves button.move").first.text_content() == "mark row 1, column 1", (
        "the list under the board names the cells as the board does"
    )
    # Ana (X) takes the top row; Bo (O) answers in the middle row.
    for mine, theirs in ((0, 3), (1, 4), (2, None)):
        tab.wait_turn()
        cell = f'.ttt .cell[data-cell="{mine}"]'
        _tab_to(page, cell)
        assert _focus_shows(page), "the focused cell shows a focus ring"
        assert page.get_attribute(cell, "aria-label") == f"row 1, column {mine + 1}: empty, mark it"
        page.keyboard.press("Enter")
        page.wait_for_function("s => document.querySelector(s)?.textContent === 'X'", arg=cell)
        page.wait_for_function(
            "text => [...document.querySelectorAll('#history li')].some(li => li.textContent.includes(text))",
            arg=f"Ana marked row 1, column {mine + 1}.",
        )
        assert page.evaluate("() => document.activeElement.closest('main') !== null"), (
            "focus kept in the page"
        )
        if theirs is not None:
            _move(server, match_id, tokens["1"], {"type": "mark", "cell": theirs})
            page.wait_for_selector(f'.ttt .cell[data-cell="{theirs}"] >> text=O')
    page.wait_for_function(
        "() => (document.querySelector('#status')?.textContent || '').startsWith('Finished')"
    )
    assert tab.state_line().startswith("Finished. Winner: Ana")
    won = page.eval_on_selector_all(".ttt .cell.win", "cells => cells.map(c => c.dataset.cell)")
    assert won == ["0", "1", "2"], "the winning line is highlighted"
    assert "in the winning line" in page.get_attribute('.ttt .cell[data-cell="1"]', "aria-label")
    assert "Ana (X) won" in page.text_content(".ttt .turn")
    assert page.locator(".ttt .cell:not([disabled])").count() == 0, "nothing left to mark"
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), "fits a phone"
    tab.shot("tic-tac-toe-keyboard-won")


def _swap_ready(server):
    """A match where Ana (seat 0) is in the sky phase with swaps only: she invoked a card whose
    invocation has an S (a third of the cards; none also has an F) and ended her services."""
    for _ in range(12):
        match_id, tokens = _create(server, "stars-are-right", {"first_player": "seat_0"})
        _, state = http_json(
            "GET",
            f"{server.base}/api/matches/{match_id}/state?include=legal_moves",
            token=tokens["0"],
        )
        invoke = next(
            (m for m in state["legal_moves"] if m["type"] == "invoke" and "S" in CARDS[m["card"]].invocation),
            None,
        )
        if invoke:
            _move(server, match_id, tokens["0"], invoke)
            _move(server, match_id, tokens["0"], {"type": "end_services"})
            return match_id, tokens
    raise AssertionError("no deal in 12 gave Ana a card that invokes a swap")


def test_stars_are_right_a_swap_picked_by_keyboard_keeps_the_focus_and_picking_again_cancels(
    open_tab, server
):
    tab = open_tab(**PHONE)
    page = tab.page
    match_id, tokens = _swap_ready(server)
    page.goto(f"{server.base}/#/join/{match_id}/0/{tokens['0']}")
    page.wait_for_selector(".sar .sky")
    tab.wait_turn()
    assert "Click the first tile to swap." in page.text_content(".sar .sky-note")
    _tab_to(page, ".sar .cell:not([disabled])")
    cell = page.evaluate("() => document.activeElement.dataset.cell")
    picked = f'.sar .cell[data-cell="{cell}"]'
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.dataset.cell") == cell, "the focus stays on the tile"
    assert _focus_shows(page)
    assert page.get_attribute(picked, "class") == "cell picked"
    assert page.get_attribute(picked, "aria-pressed") == "true"
    assert "picked to swap" in page.get_attribute(picked, "aria-label")
    page.keyboard.press("Enter")  # the same tile again: no swap after all
    assert page.evaluate("() => document.activeElement.dataset.cell") == cell
    assert page.locator(".sar .cell.picked").count() == 0
    assert page.get_attribute(picked, "aria-pressed") == "false"
    assert "Click the first tile to swap." in page.text_content(".sar .sky-note")
    # Pick it again, then its partner: the history tells the swap as the board labels the tiles.
    page.keyboard.press("Enter")
    _tab_to(page, ".sar .cell:not([disabled]):not(.picked)")
    partner = page.get_attribute(":focus", "aria-label").split(":")[0]
    before = tab.state_line()
    page.keyboard.press("Enter")
    page.wait_for_function("s => (document.querySelector('#status')?.textContent || '') !== s", arg=before)
    first = page.get_attribute(picked, "aria-label").split(":")[0]
    said = page.locator("#history li").last.text_content()
    assert "Ana swapped the tiles at " in said and first in said and partner in said, said


def test_the_tic_tac_toe_board_says_who_won_a_resigned_match_and_that_a_waiting_one_has_not_started(
    open_tab, server
):
    """The board's line follows the match, not only the grid: a resignation ends a match the grid
    has not, and a match waiting for a player has a turn in its view that nobody can play."""
    tab = open_tab(**PHONE)
    page = tab.page
    match_id, tokens = _create(server, "tic-tac-toe")
    _move(server, match_id, tokens["0"], {"type": "mark", "cell": 4})
    http_json("POST", f"{server.base}/api/matches/{match_id}/resign", None, token=tokens["1"])
    for url in (f"{server.base}/#/match/{match_id}", f"{server.base}/#/replay/{match_id}"):
        page.goto(url)
        page.wait_for_selector(".ttt .turn")
        page.wait_for_function(
            "() => (document.querySelector('.ttt .turn')?.textContent || '').includes('won')"
        )
        line = page.text_content(".ttt .turn")
        assert "Ana (X) won: the match ended before the grid did." in line and "to play" not in line, line
    _, waiting = http_json(
        "POST", f"{server.base}/api/matches", {"game": "tic-tac-toe", "seats": [{"name": "Ana"}, None]}
    )
    page.goto(f"{server.base}/#/match/{waiting['match']['id']}")
    page.wait_for_selector(".ttt .turn")
    line = page.text_content(".ttt .turn")
    assert "has not started" in line and "to play" not in line, line
