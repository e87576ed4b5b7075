"""`/board`: whether the chat sees the scoreboard after every event or once a hand (bot/views/board.py)."""

from __future__ import annotations

from bot.chat.handlers.common import Context, Refusal
from bot.night.seating import may_record, player_list
from bot.text.replies import Reply, Response
from bot.views.board import DEFAULT_MODE, SETTING, mode_of


async def board(context: Context) -> Response:
    """Alone it says the setting; with a word it changes it. Changing it needs the right /lang
    needs: whoever may record at the chat's latest night, anyone before the first night."""
    nights, chat = context.services.nights, context.incoming.chat_id
    word = context.command.word
    if not word:
        current = await nights.setting(chat, SETTING) or DEFAULT_MODE
        return Response((Reply(f"board.now_{current}"),), context.language)
    mode = mode_of(word)
    if mode is None:
        raise Refusal(Reply("board.unknown", {"given": word}))
    night, speaker = context.night, context.incoming.speaker
    if night is not None and not context.incoming.private and not may_record(night.row, context.seats, speaker):
        raise Refusal(Reply("permission.board", {"players": player_list(context.seats)}))
    await nights.set_setting(chat, SETTING, mode)
    return Response((Reply(f"board.set_{mode}"),), context.language)
