"""The match page as a player uses it: finished matches, redraws that keep the player's
place, the history's scrolling, resigning, leaving to an AI and rematches.

Matches are set up through the API (a second player is often just a token here);
what is checked is what the page shows and does.
"""

from gameroom.testing.served import http_json


def status_matches(tab, pattern: str) -> None:
    """Wait until the status line matches ``pattern`` (a JavaScript regular expression)."""
    tab.page.wait_for_function(
        f"() => /{pattern}/.test(document.querySelector('#status')?.textContent || '')"
    )


def _match(server, game, names, options=None):
    """A match whose seats are all humans (a name) or AIs (``"ai:level"``): (id, {seat: token})."""
    seats = [{"name": "Bot", "ai": n[3:]} if n.startswith("ai:") else {"name": n} for n in names]
    _, created = http_json(
        "POST", f"{server.base}/api/matches", {"game": game, "seats": seats, "options": options or {}}
    )
    return created["match"]["id"], {int(s): t for s, t in created["tokens"].items()}


def _join(tab, server, match_id, seat, token):
    tab.page.goto(f"{server.base}/#/join/{match_id}/{seat}/{token}")
    tab.page.wait_for_selector("#status:not(:empty)")


# -- a finished match ---------------------------------------------------------------


def test_a_finished_match_opens_on_its_final_position_and_outcome(open_tab, server):
    """Every way onto a finished match's page (watch, a seat, the replay's way back) shows how it ended."""
    tab = open_tab()
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    http_json("POST", f"{server.base}/api/matches/{match_id}/resign", token=tokens[0])
    for fragment in (f"#/match/{match_id}", f"#/join/{match_id}/0/{tokens[0]}", f"#/match/{match_id}/seat/0"):
        tab.page.goto(f"{server.base}/#/")  # from the lobby, as its links are followed
        tab.page.wait_for_selector("#create-form")
        tab.page.goto(f"{server.base}/{fragment}")
        status_matches(tab, "^Finished. Winner: Bo")
        assert "Something went wrong" not in tab.page.text_content("main")
        tab.page.wait_for_selector("#board dd >> text='3, 4, 5'")  # the final position
        assert tab.page.text_content("#live") == "over"
    tab.page.click("text=Replay")
    tab.page.wait_for_selector("#scrubber")
    tab.page.click("text=Back to the match")
    status_matches(tab, "^Finished. Winner: Bo")
    assert "Ana resigned." in tab.page.locator("#history li").last.text_content()


# -- the generic board ---------------------------------------------------------------


def test_the_generic_board_shows_empty_cells_as_dashes(open_tab, server):
    """Tic-tac-toe has no board of its own: its nine empty cells (nulls in a list) show as "—"."""
    tab = open_tab()
    match_id, tokens = _match(server, "tic-tac-toe", ["Ana", "Bo"])
    _join(tab, server, match_id, 0, tokens[0])
    tab.page.wait_for_selector("#board dl.tree")
    cells = tab.page.locator("#board dt", has_text="cells").locator("xpath=following-sibling::dd[1]")
    assert cells.text_content() == ", ".join(["—"] * 9)
    assert cells.locator(".nil").count() == 9
    assert "[object" not in tab.page.text_content("main")
