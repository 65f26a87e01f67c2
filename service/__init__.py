"""gameroom: an event-sourced REST game server."""

import sys


def create_app(config=None, registry=None):
    """Build the Flask app; see :func:`gameroom.app.create_app`."""
    from .app import create_app as _create_app

    return _create_app(config, registry)


class _SourceFolderName:
    """Serve ``service.X`` as the installed ``gameroom.X``: the same module object, never a second copy.

    The package's sources live in a folder named ``service/``, so a process whose working directory
    is a checkout's root (``gunicorn service.wsgi:app`` run there, as scripts written before the
    package was named ``gameroom`` do) can import this folder under that name. Two copies of every
    module would then disagree on their classes (a game plugin would be "not a Game").
    """

    def __init__(self, alias: str, real: str):
        self.alias, self.real = alias, real
        self._specs: dict = {}

    def find_spec(self, fullname, path=None, target=None):
        from importlib.util import spec_from_loader

        if not fullname.startswith(self.alias + "."):
            return None
        return spec_from_loader(fullname, self)

    def create_module(self, spec):
        from importlib import import_module

        module = import_module(self.real + spec.name[len(self.alias) :])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module):
        # the import machinery set the alias's spec on the real module: give it its own back
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)


if __name__ == "service":
    import importlib as _importlib

    sys.modules[__name__] = _importlib.import_module("gameroom")
    sys.meta_path.insert(0, _SourceFolderName("service", "gameroom"))
