"""The transport-neutral command layer: a line parsed, handled and answered."""
