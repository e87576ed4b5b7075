"""The SQLite store: the ledger, the group-commit writer, the inbox."""
