"""The load generators: a keep-alive connection, per-thread tallies, and the bots.

Against gameroom a client creates a match with only human seats and plays it
to the end with random legal moves (:func:`play_matches`), in one of two ways:

- ``api``: GET /legal-moves at the start of each turn, then POST the move with
  ``?include=legal_moves``;
- ``rules``: a bot that knows the rules computes the legal moves from the state
  that the create and move responses carry: one POST per move.

Against the baseline it POSTs bodies as big as the moves seen (:func:`hit_baseline`).
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid

import orjson

from .servers import HOST


class Conn:
    """One keep-alive HTTP/1.1 connection; ``call`` returns (status, json body or None, seconds).

    The clients share the machine with the servers, so their own JSON work is
    done with orjson (a 10 KB Tiny Stellar Empires state costs the standard
    library ~80 µs to parse), the same for both servers.
    """

    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def call(self, method: str, path: str, body=None, token: str | None = None):
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
            raise
        elapsed = time.perf_counter() - t0
        try:
            payload = orjson.loads(raw) if raw else None
        except ValueError:
            payload = None
        return resp.status, payload, elapsed

    def close(self):
        self.conn.close()


class Stats:
    """Per-thread tallies, merged after the phase."""

    def __init__(self):
        self.lat = {}  # kind -> [seconds]
        self.errors = {}  # "kind status" -> count
        self.matches_done = 0
        self.matches_cut = 0
        self.match_ids = []
        self.streams = []

    def ok(self, kind: str, seconds: float):
        self.lat.setdefault(kind, []).append(seconds)

    def err(self, kind: str, what):
        key = f"{kind} {what}"
        self.errors[key] = self.errors.get(key, 0) + 1

    def merge(self, other: Stats):
        for k, v in other.lat.items():
            self.lat.setdefault(k, []).extend(v)
        for k, v in other.errors.items():
            self.errors[k] = self.errors.get(k, 0) + v
        self.matches_done += other.matches_done
        self.matches_cut += other.matches_cut
        self.match_ids += other.match_ids
        self.streams += other.streams


QUOTA_LOCK = threading.Lock()


def take_quota(quota: list) -> bool:
    """Take one unit of the shared ``quota`` (``[None]``: unlimited); False once it is used up."""
    with QUOTA_LOCK:
        if quota[0] is None:
            return True
        if quota[0] <= 0:
            return False
        quota[0] -= 1
        return True


#: game -> sizes in bytes of the first move bodies posted (the baseline's bodies are made as big).
MOVE_BODY_SIZE: dict[str, list[int]] = {}


def _note_body_size(game: str, move: dict) -> None:
    """Keep the size of the first moves' bodies (the baseline's bodies are made as big)."""
    sizes = MOVE_BODY_SIZE.setdefault(game, [])
    if len(sizes) < 2000:
        sizes.append(len(orjson.dumps({"move": move})))


def baseline_bodies(game: str) -> list[dict]:
    """Baseline request bodies as big as the game's move bodies (seen in the warm-up; ~60 B if none)."""
    sizes = MOVE_BODY_SIZE.get(game) or [60]
    rnd = random.Random(5)
    bodies = []
    for _ in range(64):
        size = rnd.choice(sizes)
        body = {"move": {"type": "take", "pad": ""}, "expected_version": rnd.randint(1, 100)}
        body["move"]["pad"] = "x" * max(0, size - len(json.dumps(body)))
        bodies.append(body)
    return bodies


def game_meta(port: int, args) -> dict:
    """What the run needs to know of ``--game`` (seats, step bound, hidden information), from the server."""
    conn = Conn(port)
    try:
        status, info, _ = conn.call("GET", f"/api/games/{args.game}")
    finally:
        conn.close()
    if status != 200:
        raise SystemExit(f"game '{args.game}' is not installed on the server (HTTP {status}: {info})")
    meta = info.get("info", info)
    lo, hi = meta.get("min_players", 2), meta.get("max_players", 2)
    seats = args.seats or min(max(2, lo), hi)
    if not lo <= seats <= hi:
        raise SystemExit(f"{args.game} takes {lo}-{hi} seats, not {seats}")
    return {
        "slug": args.game,
        "seats": seats,
        "max_steps": int(meta.get("max_steps") or 10_000),
        "min_players": lo,
        "max_players": hi,
        "hidden_information": bool(meta.get("hidden_information", True)),
    }


# -- against gameroom ----------------------------------------------------------------------


def play_matches(
    port: int,
    game: str,
    seats: int,
    max_steps: int,
    deadline: float,
    quota: list,
    rnd: random.Random,
    stats: Stats,
    client: str = "api",
) -> None:
    """Create and play random matches until ``deadline`` or until the shared ``quota`` is used up."""
    conn = Conn(port)
    play = _play_one if client == "api" else _play_one_knowing_rules
    try:
        while time.monotonic() < deadline:
            if not take_quota(quota):
                return
            try:
                play(conn, game, seats, max_steps, deadline, rnd, stats)
            except (OSError, http.client.HTTPException) as exc:
                stats.err("connection", type(exc).__name__)
                stats.matches_cut += 1
    finally:
        conn.close()


def _create(conn: Conn, game: str, seats: int, stats: Stats):
    """Create a match with ``seats`` human seats; ``(created response, tokens by seat)``, or None."""
    body = {"game": game, "seats": [{"name": f"bench-{i}"} for i in range(seats)]}
    status, created, dt = conn.call("POST", "/api/matches", body)
    if status != 201:
        stats.err("create", status)
        time.sleep(0.05)
        return None
    stats.ok("create", dt)
    stats.match_ids.append(created["match"]["id"])
    return created, {int(s): t for s, t in created["tokens"].items()}


def _play_one(
    conn: Conn, game: str, seats: int, max_steps: int, deadline: float, rnd: random.Random, stats: Stats
) -> None:
    """The API client: GET legal-moves at the start of a turn, POST moves with ?include=legal_moves."""
    made = _create(conn, game, seats, stats)
    if made is None:
        return
    created, tokens = made
    match_id = created["match"]["id"]
    active = created["match"]["active_seats"]
    known = None  # (seat, legal moves) from the last move's response (?include=legal_moves)
    for _step in range(max_steps + 1):
        if not active:
            stats.matches_done += 1
            return
        if time.monotonic() >= deadline:
            break
        if known is not None and known[0] in active and known[1]:
            # The same seat acts again: the move response already listed its legal moves.
            seat, legal = known
        else:
            seat = active[0] if len(active) == 1 else rnd.choice(active)
            status, body, dt = conn.call("GET", f"/api/matches/{match_id}/legal-moves", token=tokens[seat])
            if status != 200:
                stats.err("legal-moves", status)
                break
            stats.ok("legal-moves", dt)
            legal = body["moves"]
        state = _post_random_move(
            conn, game, match_id, tokens[seat], legal, rnd, stats, "?include=legal_moves"
        )
        if state is None:
            break
        active = [] if state["status"] == "finished" else state["active_seats"]
        known = (seat, state.get("legal_moves") or [])
    stats.matches_cut += 1


def _post_random_move(
    conn: Conn,
    game: str,
    match_id: str,
    token: str,
    legal: list,
    rnd: random.Random,
    stats: Stats,
    query: str = "",
) -> dict | None:
    """POST a random one of ``legal``; the state the response carries, or None after noting the error."""
    if not legal:
        stats.err("legal-moves", "empty")
        return None
    move = rnd.choice(legal)
    status, result, dt = conn.call(
        "POST", f"/api/matches/{match_id}/moves{query}", {"move": move}, token=token
    )
    if status != 201:
        stats.err("move", status)
        return None
    stats.ok("move", dt)
    _note_body_size(game, move)
    return result["state"]


_RULES: dict = {}


def rules_for(game: str):
    """The installed game's rules, for a client that computes legal moves itself (``--client rules``)."""
    if game not in _RULES:
        from gameroom.registry import build_registry

        rules = build_registry().get(game)
        if rules.info.hidden_information:
            raise SystemExit(f"--client rules needs a game without hidden information; {game} has some")
        _RULES[game] = rules
    return _RULES[game]


def _play_one_knowing_rules(
    conn: Conn, game: str, seats: int, max_steps: int, deadline: float, rnd: random.Random, stats: Stats
) -> None:
    """A bot that knows the rules: one POST per move, legal moves computed from the returned view.

    Only for games without hidden information, where a seat's view is the
    whole state, so the game's own ``legal_moves`` runs on it client-side
    (what a self-play bot built on the same rules library does). The
    creation's response carries the opening state and every move response
    the next one.
    """
    rules = rules_for(game)
    made = _create(conn, game, seats, stats)
    if made is None:
        return
    created, tokens = made
    match_id = created["match"]["id"]
    state = created["state"]  # the public view, which is the whole state in such a game
    for _step in range(max_steps + 1):
        active = [] if state["status"] == "finished" else state["active_seats"]
        if not active:
            stats.matches_done += 1
            return
        if time.monotonic() >= deadline:
            break
        seat = active[0] if len(active) == 1 else rnd.choice(active)
        state = _post_random_move(
            conn, game, match_id, tokens[seat], rules.legal_moves(state["view"], seat), rnd, stats
        )
        if state is None:
            break
    stats.matches_cut += 1


# -- against the baseline ------------------------------------------------------------------


def hit_baseline(
    port: int, deadline: float, quota: list, bodies: list, rnd: random.Random, stats: Stats
) -> None:
    """POST ``bodies`` (at random) to the baseline's XADD endpoint, on one stream of this thread's own."""
    conn = Conn(port)
    stream = uuid.uuid4().hex
    stats.streams.append(stream)
    try:
        while time.monotonic() < deadline:
            if not take_quota(quota):
                return
            try:
                status, _, dt = conn.call("POST", f"/baseline/{stream}", rnd.choice(bodies))
            except (OSError, http.client.HTTPException) as exc:
                stats.err("connection", type(exc).__name__)
                continue
            if status == 201:
                stats.ok("baseline", dt)
            else:
                stats.err("baseline", status)
    finally:
        conn.close()
