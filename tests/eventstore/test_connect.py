"""GAMEROOM_REDIS_URL names a single Redis or, with redis+cluster://, a Redis Cluster."""

import pytest
from click.testing import CliRunner

from gameroom.cli import main
from gameroom.eventstore.connect import (
    ClusterURLError,
    is_cluster_url,
    parse_cluster_url,
    refuse_cluster_queue,
)


def test_cluster_urls_name_every_startup_node_and_their_credentials():
    assert is_cluster_url("redis+cluster://a:7000") and is_cluster_url("REDISS+CLUSTER://a:7000")
    assert not is_cluster_url("redis://a:7000") and not is_cluster_url("unix:///tmp/r.sock")
    assert parse_cluster_url("redis+cluster://10.0.0.1:7000, h2:7001,[::1]:7002/") == (
        [("10.0.0.1", 7000), ("h2", 7001), ("::1", 7002)],
        {},
    )
    nodes, options = parse_cluster_url("rediss+cluster://user:p%40ss@h:7000?socket_timeout=3")
    assert nodes == [("h", 7000)]
    assert options == {"ssl": True, "username": "user", "password": "p@ss", "socket_timeout": 3.0}
    assert parse_cluster_url("redis+cluster://secret@h:1")[1] == {"password": "secret"}


@pytest.mark.parametrize(
    "url",
    [
        "redis://h:1",
        "redis+cluster://",
        "redis+cluster://h",
        "redis+cluster://h:port",
        "redis+cluster://h:\u00b2",  # a digit to str.isdigit, not to int()
        "redis+cluster://h:" + "9" * 5000,  # more digits than int() reads
        "redis+cluster://h:0",
        "redis+cluster://h:1,:2",
        "redis+cluster://h:1?db=3",
    ],
)
def test_malformed_cluster_urls_are_refused_with_what_is_expected(url):
    with pytest.raises(ClusterURLError):
        parse_cluster_url(url)


def test_rq_queue_on_a_cluster_is_refused_naming_the_setting():
    refuse_cluster_queue("redis://h:6379")
    refuse_cluster_queue("redis://h:6379", "redis+cluster://h:7000")  # a queue Redis of its own: fine
    with pytest.raises(ClusterURLError, match="GAMEROOM_QUEUE_REDIS_URL"):
        refuse_cluster_queue("redis+cluster://h:7000")
    result = CliRunner().invoke(main, ["worker", "--url", "redis+cluster://127.0.0.1:1"])
    assert result.exit_code == 2 and "GAMEROOM_QUEUE_REDIS_URL" in result.output


def test_the_refusal_names_the_url_that_is_a_cluster():
    queue_is = "GAMEROOM_QUEUE_REDIS_URL (--queue-url) names a Redis Cluster"
    defaulted = "GAMEROOM_REDIS_URL is a cluster, and the queue defaults to it"
    with pytest.raises(ClusterURLError) as refused:
        refuse_cluster_queue("redis+cluster://h:7000", "redis://h:6379")
    assert queue_is in str(refused.value) and defaulted not in str(refused.value)
    with pytest.raises(ClusterURLError) as refused:
        refuse_cluster_queue("", "redis+cluster://h:7000")
    assert defaulted in str(refused.value)
    for args, env in [
        (["--url", "redis://127.0.0.1:1", "--queue-url", "redis+cluster://127.0.0.1:2"], {}),
        (["--url", "redis://127.0.0.1:1"], {"GAMEROOM_QUEUE_REDIS_URL": "redis+cluster://127.0.0.1:2"}),
    ]:
        result = CliRunner().invoke(main, ["worker", *args], env=env)
        assert result.exit_code == 2 and queue_is in result.output, result.output
        assert defaulted not in result.output
    result = CliRunner().invoke(main, ["worker", "--url", "redis+cluster://127.0.0.1:1"])
    assert result.exit_code == 2 and defaulted in result.output, result.output
