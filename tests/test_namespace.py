"""The project installs one import name, ``gameroom``: a game author's own ``schemas.py``,
``service.py`` or ``plugins.py`` never shadows a part of the server."""

import subprocess
import sys
from importlib.metadata import distribution

import gameroom


def test_the_distribution_installs_only_the_gameroom_import_name():
    dist = distribution("gameroom")
    top_level = set()
    for entry in dist.entry_points:
        if entry.group in ("console_scripts", "gameroom.games"):
            top_level.add(entry.value.split(":")[0].split(".")[0])
    assert top_level == {"gameroom"}
    assert gameroom.__name__ == "gameroom"


def test_an_authors_own_generic_modules_do_not_break_the_server(tmp_path):
    for name in ("schemas", "service", "plugins"):
        (tmp_path / f"{name}.py").write_text("raise ImportError('the author module was imported')\n")
    code = (
        "import gameroom.app, gameroom.registry\n"
        "from gameroom.plugins import stars_are_right\n"
        "from gameroom.schemas import matches\n"
        "registry = gameroom.registry.build_registry()\n"
        "print(sorted(g.slug for g in registry))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "stars-are-right" in out.stdout
