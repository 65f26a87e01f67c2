"""A log that lost its tail (a Redis failover that lost writes its replica had not
received) is taken as it is: a process that cached a fold of the lost versions
forgets it at the first conflict instead of refusing every move as ``busy``.

Found by bench/bench_failover.py: after a failover without WAIT, every move on a
match whose last versions were lost got ``409 busy`` from a process that had
folded them, until the fold left its in-process cache.
"""

from gameroom.eventstore import keys


def _take_one(matches, match_id):
    state = matches.load(match_id).folded.state
    pile = max(range(len(state["piles"])), key=lambda i: state["piles"][i])
    return matches.submit(match_id, state["turn"], {"type": "take", "pile": pile, "count": 1})


def test_a_process_that_cached_lost_versions_accepts_the_next_move_on_the_surviving_log(
    plain_matches, redis_client
):
    loaded, _tokens = plain_matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}])
    match_id = loaded.record.id
    for _ in range(3):
        _take_one(plain_matches, match_id)
    cached = plain_matches.load(match_id)
    assert cached.version == loaded.version + 3
    survived = cached.version - 2

    # The failover: the last two entries never reached the replica that took over.
    # The replica's copy of the log: the surviving entries, re-added with their ids.
    stream = keys.events(match_id)
    kept = redis_client.xrange(stream, count=survived)
    redis_client.delete(stream)
    for entry_id, fields in kept:
        redis_client.xadd(stream, fields, id=entry_id)
    assert plain_matches.store.version(match_id) == survived

    # The process still holds the fold of the lost versions (two of them: the same seat is
    # to move); the next move is judged on the surviving log and lands right after it.
    result = _take_one(plain_matches, match_id)
    assert result.version == survived + 1
    assert plain_matches.store.version(match_id) == survived + 1
    assert [e["version"] for e in plain_matches.store.read(match_id)] == list(range(1, survived + 2))
    assert plain_matches.load(match_id).version == survived + 1
