"""What each seat may see (LATS section 6), event redaction and state sampling.

H1: sheets as of the last reveal, the bonus cards, revealed cards, pile and
cards left, who has confirmed. H2: a seat's unconfirmed steps are shown only
to that seat (its own sheet is live; other sheets are the public snapshot;
its step events are redacted to ``step_taken`` for everyone else). H3: the
deck order and the removed cards are never shown.
"""

from __future__ import annotations

from .content import CONTENT, TURNS
from .geometry import jkey, jpt, line_json, xy
from .scoring import public_scores
from .state import TURN_RESET, TURNS_PER_PILE, new_player, pile_of

#: Step events a seat makes during its turn; others only learn that it acted (H2).
#: Every sealed step looks the same to them (``step_taken``), so views, events and
#: text do not tell how many steps a seat took; and the platform keeps the steps
#: out of the log until the seat confirms (``sealed_steps`` in game.py), so no
#: version, ETag or stream id counts them either.
SEALED = {
    "card_placed",
    "shooting_star_placed",
    "card_skipped",
    "occurrence_selected",
    "power_used",
    "power_declined",
}


def _pts(codes) -> list:
    return [xy(p) for p in codes]


def sheet_json(player: dict, own: bool) -> dict:
    """A sheet as JSON; ``own`` adds the seat's turn bookkeeping (pending powers, its steps)."""
    out = {
        "sheet": player["sheet"],
        "name": CONTENT.sheets[player["sheet"]].name,
        "lines": [line_json(k) for k in player["lines"]],
        "consumed": [line_json(k) for k in player["consumed"]],
        "shooting_stars": [
            {"segments": [line_json(k) for k in star], "head": xy(head)}
            for star, head in zip(player["shooting"], player["heads"])
        ],
        "planets": _pts(player["planets"]),
        "new_stars": _pts(player["new_stars"]),
        "galaxies": _pts(player["galaxies"]),
        "twinkling_stars": _pts(player["twinkles"]),
        "novas": _pts(player["novas"]),
        "auras": _pts(player["auras"]),
        "moon": xy(player["moon"]) if player["moon"] is not None else None,
        "black_hole": xy(player["black_hole"]) if player["black_hole"] is not None else None,
    }
    if own:
        out.update(
            drawn=player["drawn"],
            pending=[[line_json(k) for k in o] for o in player["pending"]],
            selected=[line_json(k) for k in player["selected"]] if player["selected"] is not None else None,
            new_stars_left=player["stars_left"],
            turn_steps=list(player["log"]),
        )
    return out


def player_from_json(sheet: dict) -> dict:
    """The inverse of :func:`sheet_json` (turn bookkeeping reset when absent)."""
    player = new_player(sheet["sheet"])
    player.update(
        lines=[jkey(line) for line in sheet["lines"]],
        consumed=[jkey(line) for line in sheet["consumed"]],
        shooting=[[jkey(s) for s in star["segments"]] for star in sheet["shooting_stars"]],
        heads=[jpt(star["head"]) for star in sheet["shooting_stars"]],
        planets=[jpt(p) for p in sheet["planets"]],
        new_stars=[jpt(p) for p in sheet["new_stars"]],
        galaxies=[jpt(p) for p in sheet["galaxies"]],
        twinkles=[jpt(p) for p in sheet["twinkling_stars"]],
        novas=[jpt(p) for p in sheet["novas"]],
        auras=[jpt(p) for p in sheet["auras"]],
        moon=jpt(sheet["moon"]) if sheet["moon"] is not None else None,
        black_hole=jpt(sheet["black_hole"]) if sheet["black_hole"] is not None else None,
    )
    if "drawn" in sheet:
        player.update(
            drawn=sheet["drawn"],
            pending=[sorted(jkey(line) for line in o) for o in sheet["pending"]],
            selected=sorted(jkey(line) for line in sheet["selected"])
            if sheet["selected"] is not None
            else None,
            stars_left=sheet["new_stars_left"],
            log=list(sheet["turn_steps"]),
        )
    return player


def rules_json(rules: dict) -> dict:
    point = CONTENT.point_bonus[rules["point_bonus"]]
    power = CONTENT.power_bonus[rules["power_bonus"]]
    return {
        "point_bonus": {
            "card": point.option_number,
            "index": point.index,
            "points": point.points,
            "name": point.name,
            "lines": [[list(a), list(b)] for a, b in point.shape],
        },
        "power_bonus": {
            "index": power.index,
            "power": power.power,
            "level": power.level,
            "lines": [[list(a), list(b)] for a, b in power.shape],
        },
        "options": dict(rules),
    }


def view(state: dict, seat) -> dict:
    turn = state["turn"]
    over = state["result"] is not None
    own = seat if isinstance(seat, int) and 0 <= seat < state["n"] else None
    sheets = [
        sheet_json(state["players"][s], True) if s == own else sheet_json(state["public"][s], False)
        for s in range(state["n"])
    ]
    out = {
        "num_seats": state["n"],
        "seat": own,
        "rules": rules_json(state["rules"]),
        "turn": turn,
        "pile": pile_of(turn),
        "lowest_usable_row": CONTENT.lowest_row[pile_of(turn)],
        "current_card": state["deck"][turn - 1],
        "revealed_cards": state["deck"][:turn],
        "cards_left_in_pile": TURNS_PER_PILE - ((turn - 1) % TURNS_PER_PILE) - 1,
        "cards_left": TURNS - turn,
        "confirmed": [p["confirmed"] for p in state["players"]],
        "sheets": sheets,
        "scores": None,
        "outcome": state["result"],
    }
    if state["rules"]["live_score"] and not over:
        # H4: computed from public sheets only, so everyone sees the same numbers.
        out["scores"] = list(state["public_scores"])
    elif over:
        out["scores"] = list(state["result"]["scores"])
    return out


def redact(event: dict, seat) -> dict:
    if event["type"] == "game_set_up":
        return {k: v for k, v in event.items() if k != "deck"}  # H3
    if event["type"] == "fork_shuffled":
        return {"type": "fork_shuffled", "count": len(event["unrevealed"])}  # H3
    if event["type"] in SEALED and event.get("seat") != seat:
        return {"type": "step_taken", "seat": event["seat"]}
    return event


def sample_state(view_data: dict, seat: int, rng) -> dict:
    """A full state showing ``seat`` exactly ``view_data``; the unrevealed deck is shuffled at random."""
    revealed = list(view_data["revealed_cards"])
    unseen = [c for c in range(len(CONTENT.night_cards)) if c not in set(revealed)]
    deck = revealed + rng.shuffled(unseen)
    public, players = [], []
    for s, sheet in enumerate(view_data["sheets"]):
        player = player_from_json(sheet)
        snapshot = {**player, **TURN_RESET}
        public.append(snapshot)
        if s != seat:
            # Others' sealed steps are unknown: a confirmed seat is sampled as having skipped.
            confirmed = view_data["confirmed"][s]
            player = {**snapshot, "drawn": confirmed, "confirmed": confirmed}
        else:
            player["confirmed"] = view_data["confirmed"][s]
        players.append(player)
    rules = dict(view_data["rules"]["options"])
    return {
        "n": view_data["num_seats"],
        "rules": rules,
        "deck": deck,
        "turn": view_data["turn"],
        "players": players,
        "public": public,
        "result": view_data["outcome"],
        "public_scores": public_scores(public, rules) if rules["live_score"] else None,
    }
