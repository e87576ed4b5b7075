"""A night folded from its events: the one owner of its state and caches."""
