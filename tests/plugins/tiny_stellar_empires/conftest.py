import pytest

from gameroom.plugins.tiny_stellar_empires.content import CARD_SET_DIRS_ENV


@pytest.fixture(autouse=True)
def _card_files_allowed_in_tmp(monkeypatch, tmp_path):
    """Tests write alternative card files to tmp_path: the owner's card set folder (and the only one)."""
    monkeypatch.setenv(CARD_SET_DIRS_ENV, str(tmp_path))
