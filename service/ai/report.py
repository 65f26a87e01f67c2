"""Tournament statistics: win rates with Wilson intervals, means with normal intervals, a table, a chart."""

from __future__ import annotations

import json
import math

Z95 = 1.959964


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``wins`` may be fractional: ties count as half)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(values: list[float], z: float = Z95) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal approximation)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = sum(values) / n
    if n == 1:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, z * math.sqrt(var / n)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summarize(results: list[dict], labels: list[str]) -> list[dict]:
    """One row per entrant of the finished matches of ``results`` (see :mod:`gameroom.ai.tournament`)."""
    rows = []
    finished = [r for r in results if r.get("scores") is not None]
    for e, label in enumerate(labels):
        wins, scores, margins, times = 0.0, [], [], []
        for r in finished:
            seat = r["entrants"].index(e)
            winners = r["winners"]
            if seat in winners:
                wins += 1.0 / len(winners)
            score = r["scores"][seat]
            others = [s for i, s in enumerate(r["scores"]) if i != seat]
            scores.append(score)
            margins.append(score - max(others) if others else 0.0)
            times.extend(r["decisions"][e])
        n = len(finished)
        lo, hi = wilson(wins, n)
        rows.append(
            {
                "entrant": label,
                "matches": n,
                "wins": wins,
                "win_rate": wins / n if n else math.nan,
                "win_low": lo,
                "win_high": hi,
                "score": mean_ci(scores),
                "margin": mean_ci(margins),
                "decisions": len(times),
                "think_mean": sum(times) / len(times) if times else math.nan,
                "think_p95": percentile(times, 0.95),
                "think_max": max(times) if times else math.nan,
            }
        )
    return rows


def table(rows: list[dict]) -> str:
    head = (
        f"{'entrant':<14}{'matches':>8}{'wins':>8}{'win rate [95% CI]':>24}{'mean score ± 95%':>20}"
        f"{'mean margin ± 95%':>20}{'think mean/p95/max (s)':>25}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        win = f"{r['win_rate']:.1%} [{r['win_low']:.1%}, {r['win_high']:.1%}]"
        score = f"{r['score'][0]:.2f} ± {r['score'][1]:.2f}"
        margin = f"{r['margin'][0]:+.2f} ± {r['margin'][1]:.2f}"
        think = f"{r['think_mean']:.3f}/{r['think_p95']:.3f}/{r['think_max']:.3f}"
        lines.append(
            f"{r['entrant']:<14}{r['matches']:>8}{r['wins']:>8g}{win:>24}{score:>20}{margin:>20}{think:>25}"
        )
    return "\n".join(lines)


def chart(rows: list[dict], path: str, title: str) -> None:
    """Write a PNG: win rates with their intervals, and mean scores with theirs. Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [r["entrant"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
    rates = [r["win_rate"] for r in rows]
    errors = [
        [max(0.0, r["win_rate"] - r["win_low"]) for r in rows],
        [max(0.0, r["win_high"] - r["win_rate"]) for r in rows],
    ]
    left.bar(labels, rates, yerr=errors, capsize=6, color="#4C72B0")
    left.axhline(1 / len(rows), color="grey", lw=0.8, ls="--")
    left.set_ylim(0, 1)
    left.set_title("win rate (ties ½), 95% Wilson CI")
    right.bar(
        labels, [r["score"][0] for r in rows], yerr=[r["score"][1] for r in rows], capsize=6, color="#55A868"
    )
    right.set_title("mean final score, 95% CI")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def headline(slug: str, results: list[dict], labels: list[str], budget, search_settings, seed) -> str:
    """The first line of a tournament's report: what was played, and the mean match length."""
    done = [r for r in results if not r.get("error")]
    steps = [r["steps"] for r in done]
    tuned = "".join(f", {s}" for s in search_settings)
    return (
        f"{slug}: {len(done)} matches, {' vs '.join(labels)}, budget {budget or 'default'}"
        f"{tuned}, seed {seed!r}, mean length {sum(steps) / max(1, len(steps)):.0f} steps"
    )


def write_json(path: str, meta: dict, rows: list[dict], results: list[dict], labels: list[str]) -> None:
    """Write ``meta``, the summary ``rows`` and every match (decision times by entrant label) to ``path``."""
    for r in results:
        r["decisions"] = {labels[e]: times for e, times in r["decisions"].items()}
    with open(path, "w") as out:
        json.dump({**meta, "summary": rows, "matches": results}, out, indent=1, default=str)
