"""Write the golden playthroughs of The Stars Are Right (checked by tests/test_golden.py).

Run from the repository root::

    .venv/bin/python tests/plugins/stars_are_right/make_golden.py

Only rerun it after a deliberate rules change (and bump ``rules_version``).
"""

from pathlib import Path

from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.testing.golden import write_matches

#: (file name, seats, seed, options)
MATCHES = [
    ("golden-sar-2", 2, "golden-sar-2", {"turn_limit": 60}),
    ("golden-sar-3", 3, "golden-sar-3", {"turn_limit": 25, "allow_mirror": True, "first_player": "seat_0"}),
    (
        "golden-sar-4",
        4,
        "golden-sar-4",
        {
            "turn_limit": 15,
            "no_cancel_checks": "abd",
            "limit_discard_may_choose_new": False,
            "dark_cells_may_overhang": True,
        },
    ),
]

if __name__ == "__main__":
    write_matches(StarsAreRight(), Path(__file__).with_name("golden"), MATCHES)
