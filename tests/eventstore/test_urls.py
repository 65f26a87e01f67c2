"""A Redis URL shown in a log line or an error message never shows its password."""

import pytest

from gameroom.eventstore.urls import without_password


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://user:s3cret@h:6379/0", "redis://user:***@h:6379/0"),
        ("redis://:s3cret@h:6379", "redis://:***@h:6379"),
        ("redis://s3cret@h", "redis://***@h"),  # a lone user part is a password to redis-py
        ("redis://:s3/cr@et@h:1/2", "redis://:***@h:1/2"),  # unescaped / and @ in the password
        ("unix://:s3cret@/run/redis.sock?db=1", "unix://:***@/run/redis.sock?db=1"),
        ("unix:///run/redis.sock?db=0&password=s3cret", "unix:///run/redis.sock?db=0&password=***"),
        (
            "redis+cluster://u:s3cret@h1:7000,h2:7001?socket_timeout=1",
            "redis+cluster://u:***@h1:7000,h2:7001?socket_timeout=1",
        ),
        ("redis://h:6379/0", "redis://h:6379/0"),
        ("unix:///tmp/var/redis.sock", "unix:///tmp/var/redis.sock"),
    ],
)
def test_the_password_of_a_redis_url_is_hidden_and_the_rest_kept(url, shown):
    assert without_password(url) == shown
