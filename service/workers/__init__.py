"""RQ job functions and their enqueueing (AI turns)."""
