"""gameroom: an event-sourced REST game server."""


def create_app(config=None, registry=None):
    """Build the Flask app; see :func:`gameroom.app.create_app`."""
    from .app import create_app as _create_app

    return _create_app(config, registry)
