"""The project installs one import name, ``gameroom``: a game author's own ``schemas.py``,
``service.py`` or ``plugins.py`` never shadows a part of the server."""

import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

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


def test_the_source_folder_name_imports_the_installed_modules_not_a_second_copy():
    """A script run in a checkout's root may name the old import path (``gunicorn service.wsgi:app``,
    ``from service.eventstore.embedded import …``, as the peer benchmark's compare.sh does): it gets
    the installed ``gameroom`` modules themselves, so game plugins still pass the registry's checks."""
    root = Path(__file__).resolve().parents[1]
    code = (
        "import service.wsgi, gameroom.wsgi, service, gameroom\n"
        "from service.eventstore.embedded import find_redis_server\n"
        "from service.registry import build_registry\n"
        "import gameroom.eventstore.embedded as real\n"
        "assert service is gameroom and service.wsgi is gameroom.wsgi\n"
        "assert find_redis_server is real.find_redis_server\n"
        "assert real.__spec__.name == 'gameroom.eventstore.embedded', real.__spec__\n"
        "print(sorted(g.slug for g in build_registry()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "tic-tac-toe" in out.stdout and "stars-are-right" in out.stdout
