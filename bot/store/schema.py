"""The ledger's schema: one SQL script per version, run in order at start (bot/store/ledger.py).

A database is brought to SCHEMA_VERSION on the writer in one transaction; `PRAGMA user_version`
says how far a file has come. A migration is never edited once released: a change is a new version.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 13
_MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE chat_settings (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX chat_settings_by_chat ON chat_settings (chat_id, key, id);
    CREATE TABLE nights (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        preset_name TEXT NOT NULL,
        preset_json TEXT NOT NULL,
        stake_cents INTEGER NOT NULL CHECK (stake_cents > 0),
        players TEXT NOT NULL,
        dealer INTEGER NOT NULL,
        opened_by TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX nights_by_chat ON nights (chat_id, id);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        night_id INTEGER NOT NULL REFERENCES nights (id),
        hand_no INTEGER NOT NULL,
        kind TEXT NOT NULL,
        actor INTEGER,
        payload TEXT NOT NULL,
        raw_text TEXT NOT NULL,
        speaker TEXT NOT NULL,
        update_key TEXT UNIQUE,
        reverses INTEGER REFERENCES events (id),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX events_by_night ON events (night_id, id);
    CREATE UNIQUE INDEX one_reversal_each ON events (reverses) WHERE reverses IS NOT NULL;
    CREATE TABLE payments (
        id INTEGER PRIMARY KEY,
        event_id INTEGER NOT NULL REFERENCES events (id),
        night_id INTEGER NOT NULL REFERENCES nights (id),
        payer INTEGER NOT NULL CHECK (payer BETWEEN 0 AND 3),
        payee INTEGER NOT NULL CHECK (payee BETWEEN 0 AND 3),
        amount INTEGER NOT NULL,
        money_cents INTEGER NOT NULL,
        reason TEXT NOT NULL,
        CHECK (payer <> payee)
    );
    CREATE INDEX payments_by_night ON payments (night_id);
    CREATE INDEX payments_by_event ON payments (event_id);
    """,
    # 2: find a night's events of one kind (join, win, close/reopen) without scanning the night
    2: """
    CREATE INDEX events_by_night_kind ON events (night_id, kind, id);
    """,
    # 3: the Telegram inbox (bot/store/inbox.py); an update's row is marked done by the same transaction
    # that records its events, so a crash can neither lose an acknowledged update nor apply it twice
    3: """
    CREATE TABLE inbox (
        update_id INTEGER PRIMARY KEY,
        chat INTEGER,
        key TEXT,
        body TEXT NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        event_id INTEGER,
        received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX inbox_pending ON inbox (update_id) WHERE done = 0;
    CREATE INDEX inbox_by_key ON inbox (key, update_id);
    CREATE TRIGGER inbox_done_with_its_events AFTER INSERT ON events WHEN NEW.update_key IS NOT NULL
    BEGIN
        UPDATE inbox SET done = 1, event_id = NEW.id
        WHERE update_id = (SELECT MIN(update_id) FROM inbox WHERE key = NEW.update_key AND done = 0);
    END;
    CREATE TABLE chat_aliases (
        chat INTEGER PRIMARY KEY,
        chat_key TEXT NOT NULL
    );
    INSERT OR REPLACE INTO chat_aliases (chat, chat_key)
        SELECT CAST(substr(chat_id, 4) AS INTEGER), value FROM chat_settings
        WHERE key = 'migrated_from' AND chat_id LIKE 'tg:%' ORDER BY id;
    """,
    # 4: the night's folded table state at closed hands (bot/night/checkpoint.py): a cache, never the truth
    4: """
    CREATE TABLE checkpoints (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        last_event_id INTEGER NOT NULL,
        version TEXT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (night_id, last_event_id)
    );
    """,
    # 5: a place in the night has versions (bot/night/versions.py): a fix of a fix, and an undo of a fix
    # followed by an undo of what it brought back, reverse the same row twice; each is a new row
    5: """
    DROP INDEX one_reversal_each;
    CREATE INDEX events_by_reverses ON events (reverses) WHERE reverses IS NOT NULL;
    """,
    # 6: the tab across nights (bot/chat/handlers/tab.py). `night_figures` caches each closed night's figures per
    # person (a cache, never the truth: it counts only while its night's newest event is the one it
    # was built after, and its version is the code's). `tab_events` is the chat's own append-only
    # log of payments between people and nights settled on their own, with their undos; an update
    # it records marks its inbox row done in the same transaction, as `events` does.
    6: """
    CREATE TABLE night_figures (
        night_id INTEGER PRIMARY KEY REFERENCES nights (id),
        version TEXT NOT NULL,
        last_event_id INTEGER NOT NULL,
        figures TEXT NOT NULL
    );
    CREATE TABLE tab_events (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('paid', 'settled', 'undo')),
        payload TEXT NOT NULL,
        raw_text TEXT NOT NULL,
        speaker TEXT NOT NULL,
        update_key TEXT UNIQUE,
        reverses INTEGER REFERENCES tab_events (id),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX tab_events_by_chat ON tab_events (chat_id, id);
    CREATE TRIGGER inbox_done_with_its_tab_events AFTER INSERT ON tab_events WHEN NEW.update_key IS NOT NULL
    BEGIN
        UPDATE inbox SET done = 1
        WHERE update_id = (SELECT MIN(update_id) FROM inbox WHERE key = NEW.update_key AND done = 0);
    END;
    """,
    # 7: the taps of a guided 胡's tile pad (bot/chat/handlers/tile_flow.py), in the order they came, keyed
    # by the flow: the pad is their fold, so a tap on a keyboard an edit has not replaced yet still
    # counts, and a restart keeps the pad. `press` is the button press's own id (a repeated update
    # is counted once); money is never here (the flow's win is an event like any other).
    7: """
    CREATE TABLE flow_taps (
        id INTEGER PRIMARY KEY,
        flow_key TEXT NOT NULL,
        op TEXT NOT NULL,
        press TEXT UNIQUE,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX flow_taps_by_flow ON flow_taps (flow_key, id);
    """,
    # 8: the night's running tally (bot/night/tally.py): what /summary and its chart show, as of the
    # newest closed hand (`last_event_id`): each closed hand replaces the figures and adds to its
    # hand's rows, in its checkpoint's transaction; a correction stores it whole again. A cache, never
    # the truth: one of another version, or with a correction after it, is ignored and rebuilt.
    8: """
    CREATE TABLE tallies (
        night_id INTEGER PRIMARY KEY REFERENCES nights (id),
        last_event_id INTEGER NOT NULL,
        version TEXT NOT NULL,
        figures TEXT NOT NULL
    );
    CREATE TABLE tally_nets (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        hand INTEGER NOT NULL,
        player INTEGER NOT NULL,
        net INTEGER NOT NULL,
        PRIMARY KEY (night_id, hand, player)
    ) WITHOUT ROWID;
    CREATE TABLE tally_doubled (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        hand INTEGER NOT NULL,
        PRIMARY KEY (night_id, hand)
    ) WITHOUT ROWID;
    """,
    # 9: a night's numbers never change, across an upgrade too (bot/night/log_index.py). The code
    # before per-night numbers showed a line's row id as its number; a night it wrote keeps those:
    # `ids_numbered_through` is the newest row so numbered (0: the night numbers its lines from #1),
    # set by `_keep_row_id_numbers` on an upgrade from schema 6 or older.
    9: """
    ALTER TABLE nights ADD COLUMN ids_numbered_through INTEGER NOT NULL DEFAULT 0;
    """,
    # 10: each closed night's figures per person as plain rows, so that a period's (a month's, a
    # season's) are one indexed sum by the nights' day. Written with the night's stored figures
    # (night_figures), in the same transaction; a night closed by older code gets them at the next
    # /stats or /tab, from its stored figures. Like them a cache: `last_event_id` says which state of
    # the night they are of (a reopened night's rows stand for nothing until it closes again).
    10: """
    CREATE TABLE night_people (
        night_id INTEGER NOT NULL REFERENCES nights (id),
        person TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        day TEXT NOT NULL,
        last_event_id INTEGER NOT NULL,
        amount INTEGER NOT NULL,
        money_cents INTEGER NOT NULL,
        hands INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        self_draws INTEGER NOT NULL,
        deal_ins INTEGER NOT NULL,
        biggest INTEGER NOT NULL,
        PRIMARY KEY (night_id, person)
    ) WITHOUT ROWID;
    CREATE INDEX night_people_by_day ON night_people (chat_id, day);
    """,
    # 11: a chat's seasons (bot/store/seasons.py, bot/chat/handlers/seasons.py) as their own append-only
    # log, like the tab's: `new` starts a season (and ends the one open), `end` ends it, `undo` takes
    # the latest of them back. A season is a run of the chat's nights by id (the payload says from
    # which night, or through which), so its figures are one indexed sum of `night_people` by night.
    # An update it records marks its inbox row done in the same transaction, as `events` does.
    11: """
    CREATE TABLE season_events (
        id INTEGER PRIMARY KEY,
        chat_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('new', 'end', 'undo')),
        payload TEXT NOT NULL,
        raw_text TEXT NOT NULL,
        speaker TEXT NOT NULL,
        update_key TEXT UNIQUE,
        reverses INTEGER REFERENCES season_events (id),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX season_events_by_chat ON season_events (chat_id, id);
    CREATE TRIGGER inbox_done_with_its_season_events AFTER INSERT ON season_events WHEN NEW.update_key IS NOT NULL
    BEGIN
        UPDATE inbox SET done = 1
        WHERE update_id = (SELECT MIN(update_id) FROM inbox WHERE key = NEW.update_key AND done = 0);
    END;
    CREATE INDEX night_people_by_night ON night_people (chat_id, night_id);
    """,
    # 12: the bot's own answers, by Telegram message (bot/store/answers.py): a reply with /undo or /fix
    # to one acts on the line it reports (`event_id`, the ledger row its ✅ #N shows); `recorded` says
    # whether the answer recorded anything. A row for each answer a message carried.
    12: """
    CREATE TABLE answers (
        chat INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        event_id INTEGER,
        recorded INTEGER NOT NULL,
        sent_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX answers_by_message ON answers (chat, message_id);
    """,
    # 13: each closed night's rows of `/export all` (bot/store/exports.py), stored with its figures
    # when it closes, so that a chat of thousands of nights is written out from these rows as they are
    # read, not by folding every night again. A cache like night_figures: `last_event_id` says which
    # state of the night they are of (a reopen or a correction adds an event: the night is read again).
    13: """
    CREATE TABLE night_exports (
        night_id INTEGER PRIMARY KEY REFERENCES nights (id),
        version TEXT NOT NULL,
        last_event_id INTEGER NOT NULL,
        rows TEXT NOT NULL
    );
    """,
}
# The last schema that code numbering lines by their row id may have written (per-night numbers
# came while the schema was 6), and the first checkpoint codec only per-night code wrote.
ROW_ID_NUMBERS_SCHEMA = 6
PER_NIGHT_NUMBERS_CODEC = 3


def _statements(script: str) -> list[str]:
    """Split a migration into statements; a trigger's body holds `;` of its own."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


def migrate(db: sqlite3.Connection) -> None:
    """Bring the schema to SCHEMA_VERSION (on the writer, in one transaction)."""
    row = db.execute("PRAGMA user_version").fetchone()
    version = row[0] if row else 0
    for target in sorted(v for v in _MIGRATIONS if v > version):
        for statement in _statements(_MIGRATIONS[target]):
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {target}")
    if 0 < version <= ROW_ID_NUMBERS_SCHEMA:
        _keep_row_id_numbers(db)


def _keep_row_id_numbers(db: sqlite3.Connection) -> None:
    """Mark the nights whose lines were shown by their row id (`✅ #8` was row 8), so that they
    keep those numbers. Schema 6 was written both before and after per-night numbers came; what
    tells them apart is the checkpoints' codec (its version's first part): a night with a checkpoint
    of per-night code (codec 3 on) was numbered per night when it was last played; one with only
    older checkpoints was not; one with none (no hand closed yet) was, if no night in the file has
    a checkpoint of per-night code either."""
    codec = "CAST(substr(c.version, 1, instr(c.version, ':') - 1) AS INTEGER)"
    per_night = f"SELECT 1 FROM checkpoints c WHERE {codec} >= {PER_NIGHT_NUMBERS_CODEC}"
    db.execute(
        "UPDATE nights SET ids_numbered_through = (SELECT COALESCE(MAX(id), 0) FROM events e"
        " WHERE e.night_id = nights.id)"
        f" WHERE NOT EXISTS ({per_night} AND c.night_id = nights.id)"
        " AND (EXISTS (SELECT 1 FROM checkpoints c WHERE c.night_id = nights.id)"
        f" OR NOT EXISTS ({per_night}))"
    )
