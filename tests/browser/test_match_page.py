"""The match page as a player uses it: finished matches, redraws that keep the player's
place, the history's scrolling, resigning, leaving to an AI and rematches.

Matches are set up through the API (a second player is often just a token here);
what is checked is what the page shows and does.
"""

import re

from gameroom.testing.served import http_json

LAST_VISIBLE = """sel => {
  // The last item of the list is inside every box around it that scrolls.
  const items = document.querySelectorAll(sel);
  const item = items[items.length - 1];
  if (!item) return false;
  const r = item.getBoundingClientRect();
  for (let box = item.parentElement; box; box = box.parentElement) {
    const style = getComputedStyle(box);
    if (!/(auto|scroll)/.test(style.overflowY)) continue;
    const b = box.getBoundingClientRect();
    if (r.top < b.top - 1 || r.bottom > b.bottom + 1) return false;
  }
  return true;
}"""


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


def _nim_move(server, match_id, tokens):
    """The seat to act takes one stone from the first pile that has one."""
    _, state = http_json("GET", f"{server.base}/api/matches/{match_id}/state")
    seat = state["active_seats"][0]
    pile = next(i for i, n in enumerate(state["view"]["piles"]) if n)
    http_json(
        "POST",
        f"{server.base}/api/matches/{match_id}/moves",
        {"move": {"type": "take", "pile": pile, "count": 1}},
        token=tokens[seat],
    )
    return state["version"] + 1


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
    """Tic-tac-toe's board kept from loading, its view is drawn as a tree: its nine empty cells
    (nulls in a list) show as "—"."""
    tab = open_tab()
    tab.allow(r"net::ERR_FAILED")  # Chromium logs the aborted request as a console error
    tab.page.route(re.compile(r"/ui/games/tic-tac-toe/renderer\.js"), lambda route: route.abort())
    match_id, tokens = _match(server, "tic-tac-toe", ["Ana", "Bo"])
    _join(tab, server, match_id, 0, tokens[0])
    tab.page.wait_for_selector("#board .renderer-failed")
    tab.page.wait_for_selector("#board dl.tree")
    cells = tab.page.locator("#board dt", has_text="cells").locator("xpath=following-sibling::dd[1]")
    assert cells.text_content() == ", ".join(["—"] * 9)
    assert cells.locator(".nil").count() == 9
    assert "[object" not in tab.page.text_content("main")


# -- redraws keep the player's place --------------------------------------------------


def test_news_from_another_seat_keeps_the_typed_move_the_chosen_move_and_the_focus(open_tab, server):
    """Look at the Stars, two humans: Bo acts while Ana types a move, picks from the long list
    and has the keyboard focus on a star of her sheet. All three survive Ana's redraw."""
    ana = open_tab()
    page = ana.page
    match_id, tokens = _match(server, "look-at-the-stars", ["Ana", "Bo"])
    _join(ana, server, match_id, 0, tokens[0])
    page.wait_for_selector("#board .target")
    page.click("details.typed summary")
    page.fill("#typed-move", '{"type": "place_card", "rotation": 1')
    select = page.locator("#moves select.move-select").first
    select.select_option(index=7)
    chosen = select.locator("option:checked").text_content()
    target = page.locator("#board .target").nth(5)
    picked = target.get_attribute("data-target")
    target.focus()
    entries = page.locator("#history li").count()

    base = f"{server.base}/api/matches/{match_id}"
    _, state = http_json("GET", f"{base}/state?include=legal_moves", token=tokens[1])
    skip = next(m for m in state["legal_moves"] if m["type"] == "skip_card")
    http_json("POST", f"{base}/moves", {"move": skip}, token=tokens[1])
    _, state = http_json("GET", f"{base}/state?include=legal_moves", token=tokens[1])
    confirm = next(m for m in state["legal_moves"] if m["type"].startswith("confirm"))
    http_json("POST", f"{base}/moves", {"move": confirm}, token=tokens[1])
    page.wait_for_function("n => document.querySelectorAll('#history li').length > n", arg=entries)

    assert page.evaluate("() => document.querySelector('details.typed').open")
    assert page.input_value("#typed-move") == '{"type": "place_card", "rotation": 1'
    assert page.locator("#moves select.move-select").first.locator("option:checked").text_content() == chosen
    assert page.evaluate("() => document.activeElement.dataset.target") == picked


def test_a_refused_typed_move_keeps_the_box_open_with_its_text(open_tab, server):
    tab = open_tab()
    tab.allow(r"status of 422")  # Chromium logs the refused POST itself
    match_id, tokens = _match(server, "nim", ["Ana", "ai:random"], {"piles": [3, 4, 5]})
    _join(tab, server, match_id, 0, tokens[0])
    tab.wait_turn()
    typed = '{"type": "take", "pile": 0, "count": 9}'
    tab.page.click("text=Type a move (JSON)")
    tab.page.fill("#typed-move", typed)
    tab.page.click("text=Send move")
    tab.page.wait_for_selector("#message.error")
    tab.page.wait_for_selector("#moves button.move:not([disabled])")  # drawn again after the refusal
    assert tab.page.evaluate("() => document.querySelector('details.typed').open")
    assert tab.page.input_value("#typed-move") == typed


def test_after_a_move_made_by_keyboard_the_focus_stays_in_the_page(open_tab, server):
    tab = open_tab()
    page = tab.page
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    _join(tab, server, match_id, 0, tokens[0])
    if not tab.state_line().startswith("Your turn"):
        _nim_move(server, match_id, tokens)
    tab.wait_turn()
    page.focus("#moves button.move")
    before = tab.state_line()
    page.keyboard.press("Enter")
    page.wait_for_function("s => (document.querySelector('#status')?.textContent || '') !== s", arg=before)
    page.wait_for_selector("#moves button.move:not([disabled]), #moves p.quiet")
    assert page.evaluate("() => document.activeElement.closest('main') !== null"), (
        "the focus is on the page's content, not lost to <body>"
    )
    assert page.evaluate("() => document.activeElement.id") == "status", (
        "nothing to do now: the status line, which says whose turn it is"
    )


def test_a_star_picked_by_keyboard_keeps_the_focus_and_enter_places_it(open_tab, server):
    tab = open_tab()
    page = tab.page
    match_id, tokens = _match(server, "look-at-the-stars", ["Ana", "ai:random"])
    _join(tab, server, match_id, 0, tokens[0])
    tab.wait_turn()
    target = page.locator(".lats .main-sheet .target").first
    picked = target.get_attribute("data-target")
    target.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".lats .main-sheet .preview", state="attached")
    assert page.evaluate("() => document.activeElement.dataset.target") == picked
    assert page.evaluate("() => document.activeElement.classList.contains('selected')")
    before = tab.state_line()
    page.keyboard.press("Enter")  # again, on the picked star: place the card there
    page.wait_for_function("s => (document.querySelector('#status')?.textContent || '') !== s", arg=before)
    assert "not yet confirmed" in tab.state_line() or "version 2" in tab.state_line()
    assert page.evaluate("() => document.activeElement.closest('main') !== null")


# -- the history's scrolling ------------------------------------------------------------


def test_the_history_shows_its_newest_entry_and_the_replay_its_current_one(open_tab, server):
    tab = open_tab()
    page = tab.page
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [15, 15]})
    for _ in range(24):
        _nim_move(server, match_id, tokens)
    page.goto(f"{server.base}/#/match/{match_id}")
    page.wait_for_selector("#history li[data-version='25']")
    assert page.evaluate(
        "() => document.querySelector('#history .log').scrollHeight"
        " > document.querySelector('#history').clientHeight"
    ), "(the check below needs a history longer than its box)"
    assert page.evaluate(LAST_VISIBLE, "#history li")
    version = _nim_move(server, match_id, tokens)
    page.wait_for_selector(f"#history li[data-version='{version}']")
    assert page.evaluate(LAST_VISIBLE, "#history li"), "a new entry shows too"

    page.goto(f"{server.base}/#/replay/{match_id}")
    page.wait_for_selector(f"#sentences li.current[data-version='{version}']")
    assert page.evaluate(LAST_VISIBLE, "#sentences li")
    page.click("#back")
    page.wait_for_selector(f"#sentences li.current[data-version='{version - 1}']")
    assert page.evaluate(LAST_VISIBLE, "#sentences li")


# -- resign, leave, rematch ---------------------------------------------------------------


def test_a_player_resigns_after_confirming_then_starts_a_rematch(open_tab, server):
    tab = open_tab()
    page = tab.page
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    _join(tab, server, match_id, 0, tokens[0])
    page.click("#resign-button")
    assert "Resign?" in page.text_content("#seat-actions")
    page.click("#resign-cancel")  # changing one's mind changes nothing
    page.click("#resign-button")
    page.click("#resign-confirm")
    status_matches(tab, "^Finished. Winner: Bo")
    assert "Ana resigned." in page.locator("#history li").last.text_content()

    page.click("#rematch-button")
    page.wait_for_function(f"() => /#\\/match\\/(?!{match_id})[^/]+\\/seat\\/0$/.test(location.hash)")
    new_id = re.search(r"#/match/([^/]+)/seat/0$", page.url).group(1)
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('gameroom.tokens'))")
    assert stored[new_id]["0"], "the new match's token is kept like an invitation's"
    status_matches(tab, "^Waiting for the other players to accept the rematch")
    _, accepted = http_json("POST", f"{server.base}/api/matches/{match_id}/rematch", token=tokens[1])
    assert accepted["match"]["id"] == new_id
    status_matches(tab, "^(Your turn|Waiting for Bo)")


def test_a_player_leaves_to_an_ai_and_then_watches(open_tab, server):
    tab = open_tab()
    page = tab.page
    tab.allow(r"status of 401")  # at most one: the request on its way when the seat was left
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    _join(tab, server, match_id, 0, tokens[0])
    page.select_option("#leave-level", "greedy")
    page.click("#leave-button")
    assert "greedy" in page.text_content("#confirm-text")
    page.click("#leave-confirm")
    page.wait_for_function(f"() => location.hash === '#/match/{match_id}'")
    page.wait_for_selector(".who >> text=spectator")
    assert "an AI (greedy) plays seat 1" in page.text_content("#message")
    page.wait_for_selector(".seats li[data-seat='0'] >> text=AI greedy")
    assert page.locator("#moves button, #resign-button").count() == 0
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('gameroom.tokens') || '{}')")
    assert "0" not in stored.get(match_id, {}), "the retired token is forgotten"
    page.wait_for_timeout(4_000)
    assert len([e for e in tab.errors if "401" in e]) <= 1


def test_a_seat_left_through_the_api_turns_its_page_into_a_spectators(open_tab, server):
    """Bo leaves from another client: his page stops using the retired token (no 401 every few
    seconds) and watches; Ana's page shows that an AI plays Bo's seat now."""
    ana, bo = open_tab(), open_tab()
    bo.allow(r"status of 401")
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    _join(ana, server, match_id, 0, tokens[0])
    _join(bo, server, match_id, 1, tokens[1])
    http_json("POST", f"{server.base}/api/matches/{match_id}/leave", {"level": "random"}, token=tokens[1])
    bo.page.wait_for_function(f"() => location.hash === '#/match/{match_id}'", timeout=15_000)
    bo.page.wait_for_selector(".who >> text=spectator")
    assert "left the match" in bo.page.text_content("#message")
    ana.page.wait_for_selector(".seats li[data-seat='1'] >> text=AI random", timeout=15_000)
    assert "left" in ana.page.text_content(".seats li[data-seat='1']")
    seen = len([e for e in bo.errors if "401" in e])
    bo.page.wait_for_timeout(6_000)
    assert len([e for e in bo.errors if "401" in e]) == seen, "no request with the retired token after that"
    assert seen <= 3


def test_names_are_isolated_from_the_text_around_them(open_tab, server):
    """A right-to-left name (the server refuses bidi controls, but Arabic and Hebrew names are
    welcome) reorders only itself, in the seats, status and history: each is a <bdi>."""
    tab = open_tab()
    hostile = "عائشة"
    match_id, tokens = _match(server, "nim", [hostile, "Bo"], {"piles": [3, 4, 5]})
    _nim_move(server, match_id, tokens)
    _nim_move(server, match_id, tokens)  # one of the two is Ana's
    _join(tab, server, match_id, 0, tokens[0])
    tab.page.wait_for_selector("#history li[data-version='3']")
    for where in (".who", ".seats li[data-seat='0']", "#history li"):
        isolated = tab.page.locator(f"{where} bdi").all_text_contents()
        assert hostile in isolated, where


def test_an_undo_in_the_history_says_who_undid_and_to_where(open_tab, server):
    tab = open_tab()
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    _, state = http_json("GET", f"{server.base}/api/matches/{match_id}/state")
    mover = state["active_seats"][0]
    _nim_move(server, match_id, tokens)
    base = f"{server.base}/api/matches/{match_id}"
    _, asked = http_json("POST", f"{base}/undo", {"steps": 1}, token=tokens[mover])
    if asked["status"] != "applied":  # the other seat consents
        request = asked["request"]["id"]
        http_json("POST", f"{base}/undo-requests/{request}", {"approve": True}, token=tokens[1 - mover])
    tab.page.goto(f"{server.base}/#/match/{match_id}")
    tab.page.wait_for_selector("#history li[data-version='3']")
    assert (
        tab.page.text_content("#history li[data-version='3']")
        == f"v3 {['Ana', 'Bo'][mover]} undid to version 1."
    )


def _finished_nim(server):
    """A nim match Ana resigned: (id, tokens)."""
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    http_json("POST", f"{server.base}/api/matches/{match_id}/resign", token=tokens[0])
    return match_id, tokens


def test_an_open_page_of_a_finished_match_hears_of_a_rematch_asked_elsewhere(open_tab, server):
    tab = open_tab()
    page = tab.page
    page.bring_to_front()  # a page in the background has its timers throttled and no focus
    match_id, tokens = _finished_nim(server)
    _join(tab, server, match_id, 1, tokens[1])
    status_matches(tab, "^Finished")
    assert page.text_content("#rematch-button") == "Rematch"
    http_json("POST", f"{server.base}/api/matches/{match_id}/rematch", token=tokens[0])
    page.wait_for_selector("#rematch-button >> text=Join the rematch", timeout=15_000)


def test_the_old_match_page_leads_to_the_rematch_this_browser_joined(open_tab, server):
    tab = open_tab()
    page = tab.page
    page.bring_to_front()  # a page in the background has its timers throttled
    match_id, tokens = _finished_nim(server)
    http_json("POST", f"{server.base}/api/matches/{match_id}/rematch", token=tokens[1])
    _join(tab, server, match_id, 0, tokens[0])
    page.click("#rematch-button >> text=Join the rematch")
    page.wait_for_function(f"() => /#\\/match\\/(?!{match_id})[^/]+\\/seat\\/0$/.test(location.hash)")
    new_id = re.search(r"#/match/([^/]+)/seat/0$", page.url).group(1)
    page.goto(f"{server.base}/#/match/{match_id}/seat/0")
    page.reload()  # a fresh load of the old match's page, as a player coming back to it has
    page.wait_for_selector("#rematch-link >> text=Go to the rematch")
    assert page.locator("#rematch-button").count() == 0, "no offer that would be refused (seat-taken)"
    assert "Ana is in the rematch" in page.text_content("#history")
    page.click("#rematch-link")
    page.wait_for_function(f"() => location.hash === '#/match/{new_id}/seat/0'")
    status_matches(tab, "^(Your turn|Waiting for Bo)")


def test_a_rematch_seat_kept_for_its_player_is_not_shown_or_offered_as_open(open_tab, server):
    tab = open_tab()
    page = tab.page
    match_id, tokens = _finished_nim(server)
    _, asked = http_json("POST", f"{server.base}/api/matches/{match_id}/rematch", token=tokens[0])
    new_id = asked["match"]["id"]
    page.goto(f"{server.base}/#/match/{new_id}")
    page.wait_for_selector("#status:not(:empty)")
    assert page.text_content(".seats li[data-seat='1']") == "Seat 2 (kept for Bo)"
    status_matches(tab, "^Waiting for the other players to accept the rematch\\.$")
    page.goto(f"{server.base}/#/")
    page.click("#refresh")
    row = page.locator(f"tr[data-match='{new_id}']")
    row.wait_for()
    assert "seat 2 kept for its player" in row.text_content()
    assert row.locator("form.claim").count() == 0, "no Claim for a kept seat"


def test_a_rematch_whose_other_player_left_waits_for_anyone_to_take_the_seat(open_tab, server):
    tab = open_tab()
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    http_json("POST", f"{server.base}/api/matches/{match_id}/leave", {"level": "random"}, token=tokens[1])
    http_json("POST", f"{server.base}/api/matches/{match_id}/resign", token=tokens[0])
    _, asked = http_json("POST", f"{server.base}/api/matches/{match_id}/rematch", token=tokens[0])
    tab.page.goto(f"{server.base}/#/match/{asked['match']['id']}")
    status_matches(tab, "^Waiting for a player to take the open seat\\.$")
    assert tab.page.text_content(".seats li[data-seat='1']").endswith("(open)")


def test_a_server_out_of_reach_is_no_longer_said_once_it_answers_again(open_tab, server):
    tab = open_tab()
    page = tab.page
    page.bring_to_front()  # a page in the background has its timers throttled and no focus
    tab.allow(r"net::ERR_FAILED")
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    _join(tab, server, match_id, 0, tokens[0])
    down = re.compile(r"/api/matches/[^/?]+(/state|/undo-requests|/events|$|\?)")
    page.route(down, lambda route: route.abort())
    page.wait_for_selector("#message >> text=[network-error]", timeout=15_000)
    page.unroute(down)
    page.wait_for_function("() => document.querySelector('#message').textContent === ''", timeout=15_000)
    status_matches(tab, "^(Your turn|Waiting for Bo)")


def test_after_leaving_or_a_rematch_the_focus_is_on_the_new_screens_heading(open_tab, server):
    tab = open_tab()
    page = tab.page
    page.bring_to_front()  # a page in the background has its timers throttled and no focus
    tab.allow(r"status of 401")
    on_heading = "() => document.activeElement === document.querySelector('main h1')"
    match_id, tokens = _match(server, "nim", ["Ana", "Bo"], {"piles": [3, 4, 5]})
    _join(tab, server, match_id, 0, tokens[0])
    page.click("#leave-button")
    page.focus("#leave-confirm")
    page.keyboard.press("Enter")
    page.wait_for_selector(".who >> text=spectator")
    page.wait_for_function(on_heading)
    done_id, done_tokens = _finished_nim(server)
    _join(tab, server, done_id, 0, done_tokens[0])
    page.focus("#rematch-button")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => /#\\/match\\/(?!{done_id})[^/]+\\/seat\\/0$/.test(location.hash)")
    page.wait_for_function(on_heading)  # the next Tab starts at the top of the screen
