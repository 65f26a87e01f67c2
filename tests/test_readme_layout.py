"""README's layout map names every package and top-level module of ``service/``, and only those.

Issue 32, item 8: a reader finds any part of the server from one map. The map is the
fenced block under ``## Layout``; its lines indented under ``service/`` are ``name/`` (a
package) or ``name.py`` (a module), each followed by one line of what it is for. The table
after it names the files of the server's main paths; each of them must exist too.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"


def _layout_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1]
    block = section.split("```\n", 2)[1]
    return block.splitlines()


def _mapped() -> dict[str, str]:
    """``name -> description`` for the lines of the map inside ``service/``."""
    lines = _layout_block()
    assert lines[0].startswith("service/"), lines[0]
    mapped = {}
    for line in lines[1:]:
        if not line.startswith("  "):
            break
        m = re.match(r"^  (\S+)\s+(\S.*)$", line)
        assert m, f"a map line without a description: {line!r}"
        name, what = m.groups()
        assert name not in mapped, f"{name} is named twice"
        mapped[name] = what
    return mapped


def _actual() -> set[str]:
    packages = {f"{p.name}/" for p in SERVICE.iterdir() if (p / "__init__.py").is_file()}
    modules = {p.name for p in SERVICE.glob("*.py")}
    return packages | modules


def test_the_map_names_every_package_and_module_of_service():
    mapped, actual = set(_mapped()), _actual()
    assert actual - mapped == set(), f"not in README's layout map: {sorted(actual - mapped)}"
    assert mapped - actual == set(), f"in README's layout map but not in service/: {sorted(mapped - actual)}"


def test_each_entry_says_what_it_is_for_in_one_line():
    for name, what in _mapped().items():
        assert len(what.split()) >= 3, f"{name}: {what!r} says too little"


def test_the_paths_table_names_files_that_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Layout\n", 1)[1]
    table = [line for line in text.splitlines() if line.startswith("| ") and "→" in line]
    assert len(table) >= 6, "the table of the server's main paths is missing"
    for row in table:
        for path in re.findall(r"`([\w/]+\.py)`", row):
            if path == "views.py":  # a game's module: every first-party game has one
                assert all(
                    (p / "views.py").is_file()
                    for p in (ROOT / "plugins").iterdir()
                    if (p / "game.py").is_file()
                )
                continue
            assert (SERVICE / path).is_file(), f"{row.split('|')[1].strip()}: service/{path} does not exist"
        files = {p for p in re.findall(r"`([\w/]+\.py)`", row)}
        assert len(files) <= 5, (
            f"{row}: a path a reader follows through more than 4 files (plus an alternative)"
        )
