"""Write the golden playthroughs of Look at the Stars (checked by tests/test_golden.py).

Run from the repository root::

    .venv/bin/python tests/plugins/look_at_the_stars/make_golden.py

Only rerun it after a deliberate rules change (and bump ``rules_version``).
"""

from pathlib import Path

from gameroom.plugins.look_at_the_stars import LookAtTheStars
from gameroom.testing.golden import write_matches

#: (file name, seats, seed, options)
MATCHES = [
    ("two-seats-default", 2, "golden-lats-2", {}),
    (
        "five-seats-galaxy",
        5,
        "golden-lats-5",
        {"power_bonus_card": "galaxy", "point_bonus_card": 7, "live_score": True},
    ),
    (
        "solo-new-stars",
        1,
        "golden-lats-1",
        {"power_bonus_card": "new_stars", "allow_mirror": True, "solo_variant": True},
    ),
]

if __name__ == "__main__":
    write_matches(LookAtTheStars(), Path(__file__).with_name("golden"), MATCHES)
