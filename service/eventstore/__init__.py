"""The only code that talks to Redis about matches and events."""
from .redis_streams import AppendResult, EventStore

__all__ = ["AppendResult", "EventStore"]
