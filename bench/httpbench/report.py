"""Medians over rounds (the ``summary`` of ``--json``) and the printed report."""

from __future__ import annotations

from _common import fmt, median

from .servers import uses_threads

#: summary field -> path in a round's figures; the median over rounds is taken.
_MEDIANS = {
    "moves_per_s": ["gameroom", "requests", "move", "per_s"],
    "move_p50_ms": ["gameroom", "requests", "move", "p50_ms"],
    "move_p99_ms": ["gameroom", "requests", "move", "p99_ms"],
    "legal_moves_per_s": ["gameroom", "requests", "legal-moves", "per_s"],
    "legal_moves_p50_ms": ["gameroom", "requests", "legal-moves", "p50_ms"],
    "legal_moves_p99_ms": ["gameroom", "requests", "legal-moves", "p99_ms"],
    "creates_per_s": ["gameroom", "requests", "create", "per_s"],
    "create_p50_ms": ["gameroom", "requests", "create", "p50_ms"],
    "create_p99_ms": ["gameroom", "requests", "create", "p99_ms"],
    "api_requests_per_s": ["gameroom", "all_requests_per_s"],
    "baseline_requests_per_s": ["baseline", "requests", "baseline", "per_s"],
    "baseline_p50_ms": ["baseline", "requests", "baseline", "p50_ms"],
    "baseline_p99_ms": ["baseline", "requests", "baseline", "p99_ms"],
    "ratio_api_requests_vs_baseline": ["ratio_api_requests"],
    "ratio_moves_vs_baseline": ["ratio_moves"],
    "ratio_move_p50_vs_baseline_p50": ["ratio_move_p50"],
    "server_cpu_us_per_api_request": ["gameroom", "server_cpu_us_per_request"],
    "server_cpu_us_per_baseline_request": ["baseline", "server_cpu_us_per_request"],
    "redis_cpu_us_per_api_request": ["gameroom", "redis_cpu_us_per_request"],
    "redis_cpu_us_per_baseline_request": ["baseline", "redis_cpu_us_per_request"],
    "redis_reads_per_api_request": ["gameroom", "redis_reads_per_request"],
    "redis_reads_per_baseline_request": ["baseline", "redis_reads_per_request"],
    "ratio_server_cpu_per_request": ["ratio_server_cpu_per_request"],
}


def round_ratios(b: dict, g: dict) -> dict:
    """One round: the baseline's and gameroom's figures, and their ratios."""
    base = b["requests"].get("baseline", {})
    move = g["requests"].get("move", {})
    nan = float("nan")
    return {
        "baseline": b,
        "gameroom": g,
        "ratio_api_requests": g["all_requests_per_s"] / base.get("per_s", nan),
        "ratio_moves": move.get("per_s", 0.0) / base.get("per_s", nan),
        "ratio_server_cpu_per_request": g["server_cpu_us_per_request"] / b["server_cpu_us_per_request"],
        "ratio_move_p50": move.get("p50_ms", nan) / base.get("p50_ms", nan),
    }


def summarize(rounds: list[dict]) -> dict:
    """Medians over rounds of the per-round figures and ratios."""

    def med(path):
        vals = []
        for r in rounds:
            v = r
            for p in path:
                v = v.get(p, {}) if isinstance(v, dict) else {}
            if isinstance(v, (int, float)):
                vals.append(v)
        return median(vals)

    s = {name: med(path) for name, path in _MEDIANS.items()}
    s["matches_finished"] = sum(r["gameroom"]["matches_finished"] for r in rounds)
    s["matches_cut"] = sum(r["gameroom"]["matches_cut"] for r in rounds)
    s["errors"] = {}
    for r in rounds:
        for side in ("gameroom", "baseline"):
            for k, v in r[side]["errors"].items():
                s["errors"][f"{side}: {k}"] = s["errors"].get(f"{side}: {k}", 0) + v
    return s


def print_report(res: dict) -> None:
    """The report: settings, ratios against the target, the table, CPU, and every round."""
    s = res["summary"]
    p = res["params"]
    print()
    client = p.get("client", "api")
    print(
        f"HTTP, game {p['game']}, {p['clients']} clients ({client} client: "
        f"{'GET legal-moves per turn + POST per move' if client == 'api' else 'one POST per move'}), "
        f"gunicorn -w {p['workers']} -k {p['worker_class']}"
        f"{' --threads ' + str(p['threads']) if uses_threads(p['worker_class']) else ''}, "
        f"{len(res['rounds'])} round(s); medians over rounds"
    )
    _print_ratios(s, p["target"])
    print()
    _print_table(s, p.get("baseline_round_trips", 1))
    print()
    _print_rounds(res["rounds"], s, p["target"])
    if s["errors"]:
        print(f"  errors: {s['errors']}")


def _print_ratios(s: dict, target: float) -> None:
    print(
        f"  ratio  API requests/s vs baseline requests/s : {s['ratio_api_requests_vs_baseline']:.2f}  "
        f"(target >= {target:.2f}: {'MET' if s['ratio_api_requests_vs_baseline'] >= target else 'NOT MET'})"
    )
    print(
        f"  ratio  moves/s vs baseline requests/s         : {s['ratio_moves_vs_baseline']:.2f}  "
        f"(target >= {target:.2f}: {'MET' if s['ratio_moves_vs_baseline'] >= target else 'NOT MET'})"
    )
    print(f"  ratio  move p50 latency vs baseline p50       : {s['ratio_move_p50_vs_baseline_p50']:.2f}x")


def _print_table(s: dict, k: int) -> None:
    print(f"  {'':<38}{'per s':>10}{'p50 ms':>9}{'p99 ms':>9}")
    label = "baseline POST (1 XADD)" if k == 1 else f"baseline POST ({k - 1} HGET + 1 XADD)"
    rows = [
        (label, "baseline_requests_per_s", "baseline_p50_ms", "baseline_p99_ms"),
        ("gameroom POST /moves (moves)", "moves_per_s", "move_p50_ms", "move_p99_ms"),
        ("gameroom GET /legal-moves", "legal_moves_per_s", "legal_moves_p50_ms", "legal_moves_p99_ms"),
        ("gameroom POST /matches (create)", "creates_per_s", "create_p50_ms", "create_p99_ms"),
    ]
    for name, rate, p50, p99 in rows:
        print(f"  {name:<38}{fmt(s[rate]):>10}{fmt(s[p50], 2):>9}{fmt(s[p99], 2):>9}")
    print(f"  {'gameroom, all API calls':<38}{fmt(s['api_requests_per_s']):>10}")
    print(f"  matches finished: {s['matches_finished']}, cut at the end of a phase: {s['matches_cut']}")
    print(
        f"  server CPU per request (gunicorn master+workers, from /proc): gameroom "
        f"{fmt(s['server_cpu_us_per_api_request'], 0)} us, baseline {fmt(s['server_cpu_us_per_baseline_request'], 0)} us "
        f"({s['ratio_server_cpu_per_request']:.2f}x); redis-server CPU per request: "
        f"{fmt(s['redis_cpu_us_per_api_request'], 0)} us vs {fmt(s['redis_cpu_us_per_baseline_request'], 0)} us"
    )
    print(
        "  redis-server socket reads per request (commands sent together are read together): "
        f"gameroom {fmt(s['redis_reads_per_api_request'], 2)}, baseline {fmt(s['redis_reads_per_baseline_request'], 2)}"
    )


def _print_rounds(rounds: list[dict], s: dict, target: float) -> None:
    per_round = sorted(r["ratio_moves"] for r in rounds)
    print(
        f"  moves/s ratio per round: {', '.join(f'{v:.2f}' for v in per_round)} (sorted; median "
        f"{s['ratio_moves_vs_baseline']:.2f}, {sum(v >= target for v in per_round)} of {len(per_round)} rounds "
        f">= {target:.2f})"
    )
    print(
        "  per round:"
        + "".join(
            f"  [{i + 1}] base {r['baseline']['requests'].get('baseline', {}).get('per_s', 0):.0f}/s, "
            f"api {r['gameroom']['all_requests_per_s']:.0f}/s, moves {r['gameroom']['requests'].get('move', {}).get('per_s', 0):.0f}/s"
            for i, r in enumerate(rounds)
        )
    )
    print(
        "  client CPU (this process, share of one core):"
        + "".join(
            f"  [{i + 1}] base {r['baseline']['client_cpu_s'] / r['baseline']['seconds']:.2f}, "
            f"gameroom {r['gameroom']['client_cpu_s'] / r['gameroom']['seconds']:.2f}"
            for i, r in enumerate(rounds)
        )
    )
