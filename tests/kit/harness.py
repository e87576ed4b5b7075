"""Play a table through the command layer as the console does: `Speaker: text` lines."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from bot.chat.service import Incoming, Referee
from bot.console import split_speaker
from bot.night.seating import Speaker
from bot.text.replies import Response, render_response
from locales import Translator

_update_ids = itertools.count(1)


@dataclass
class Table:
    referee: Referee
    chat_id: str
    language: str | None = None
    default_speaker: str = "Alice"

    async def respond(self, line: str, update_key: str | None = None) -> Response | None:
        name, text = split_speaker(line)
        speaker = Speaker(
            id=name or self.default_speaker, name=name or self.default_speaker, by_name=True, language=self.language
        )
        key = update_key if update_key is not None else f"{self.chat_id}:{next(_update_ids)}"
        return await self.referee.handle(Incoming(self.chat_id, speaker, text, key))

    async def say(self, line: str, update_key: str | None = None) -> str:
        response = await self.respond(line, update_key)
        if response is None:
            return ""
        translator = Translator(response.language)
        return render_response(response, translator)  # the board is in the replies when the chat sees it

    async def play(self, script: str) -> str:
        return "\n".join([await self.say(line) for line in script.strip().splitlines() if line.strip()])

    async def balances(self) -> dict[str, int]:
        night = await self.referee.night_json(self.chat_id)
        assert night is not None
        return night["balances"]  # type: ignore[return-value]

    async def night(self) -> dict[str, object]:
        night = await self.referee.night_json(self.chat_id)
        assert night is not None
        return night

    async def row_counts(self) -> tuple[int, int, int]:
        db = self.referee.nights.ledger._db
        counts = []
        for table_name in ("nights", "events", "payments"):
            async with db.execute(f"SELECT COUNT(*) FROM {table_name}") as cursor:
                row = await cursor.fetchone()
                counts.append(int(row[0]) if row else 0)
        return counts[0], counts[1], counts[2]
