"""First-party games, one package each, registered through the ``gameroom.games`` entry points."""
