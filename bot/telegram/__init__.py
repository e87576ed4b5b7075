"""The Telegram front end: the application, its intake of updates, reading them, delivering replies, the heartbeat."""
