"""Read-only answers built from a night: score, history, board, summary, charts, export, stats."""
