"""What the Mini App asks of a chat's night (bot/web/): the state it draws, a tapped win's preview, a
line's 明细, the chart, the version it polls. Reads only: what the page records comes in as a chat
line, through the inbox and the chat's lane, like any typed line (docs/miniapp.md)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.chat.command import Command
from bot.chat.handlers import app_view
from bot.chat.handlers.app_view import WinDraft
from bot.chat.handlers.common import Context, Incoming, Refusal, Services
from bot.night.seating import Speaker, seat_of
from bot.text.replies import Reply
from locales import Translator


@dataclass(frozen=True)
class AppDesk:
    """The Mini App's questions, answered from the night its chat's lines fold (`Referee.app`)."""

    services: Services

    async def _context(self, chat_id: str, speaker: Speaker, language: str) -> Context | None:
        night = await self.services.nights.latest(chat_id, history=False)
        if night is None:
            return None
        await night.load_history()
        await night.folded()
        incoming = Incoming(chat_id, speaker, "")
        return Context(incoming, Command("score", ""), language, night, self.services)

    async def state(self, chat_id: str, speaker: Speaker, language: str) -> dict[str, object] | None:
        """The night as the Mini App draws it (docs/miniapp.md `state`); None: the chat has no night."""
        async with self.services.nights.using(chat_id):
            context = await self._context(chat_id, speaker, language)
            if context is None or context.night is None:
                return None
            translator = Translator(language)
            shown = app_view.state(context, context.night, speaker.id, translator)
            return {**shown, **await app_view.board_and_lines(context, context.night, translator)}

    async def preview(self, chat_id: str, speaker: Speaker, language: str, draft: WinDraft) -> dict[str, object]:
        """A win tapped on the Mini App, scored as it would be recorded, or why not; nothing is written.
        Raises app_view.BadDraft for a draft no pad makes."""
        translator = Translator(language)
        async with self.services.nights.using(chat_id):
            context = await self._context(chat_id, speaker, language)
            try:
                if context is None:
                    raise Refusal(Reply("night.none_open"))
                return app_view.preview(context, draft, translator)
            except Refusal as refusal:
                return {"ok": False, "reason": app_view.refusal_text(refusal, translator), "needed": None}

    async def detail(self, chat_id: str, number: int, language: str) -> str:
        """Line #N's 明细 (the Mini App's live view); the refusal's words when there is no such line."""
        translator = Translator(language)
        async with self.services.nights.using(chat_id):
            context = await self._context(chat_id, Speaker("", ""), language)
            try:
                if context is None:
                    raise Refusal(Reply("night.none"))
                return await app_view.detail(context, number, translator)
            except Refusal as refusal:
                return app_view.refusal_text(refusal, translator)

    async def chart(self, chat_id: str, language: str) -> bytes | None:
        """The night's chart as PNG (the Mini App's live view), None when there is none to draw."""
        async with self.services.nights.using(chat_id):
            context = await self._context(chat_id, Speaker("", ""), language)
            if context is None or context.night is None:
                return None
            return await app_view.chart(context, context.night)

    async def version(self, chat_id: str) -> tuple[int, int] | None:
        """(night id, rows in its log): changes with every line the night records, undoes or fixes."""
        night = await self.services.nights.latest(chat_id, history=False)
        return (night.id, night.log_size()) if night is not None else None

    async def seated(self, chat_id: str, speaker: Speaker) -> bool:
        """Whether the account sits in the chat's latest night (bound to its seat, or seated by @username)."""
        night = await self.services.nights.latest(chat_id, history=False)
        return night is not None and seat_of(night.seats, speaker) is not None
