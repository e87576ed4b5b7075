"""The async shell around the engine: command parsing, the SQLite ledger, console and Telegram."""
