"""Game-independent AI: policies that pick a move from one seat's view only."""

from .levels import builtin_levels, choose_move

__all__ = ["builtin_levels", "choose_move"]
