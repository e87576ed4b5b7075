"""The pinned live board: each night's board is one message at the top of the chat, edited in place
as events are recorded (coalesced: at most one edit per chat every BOARD_EDIT_SECONDS, by
`LiveBoards` in bot/telegram/delivery.py, in a turn no answer waits for: bot/telegram/pace.py). The
night's first board is sent and pinned, and unpins the last night's; a chat where the bot may not
pin gets no live board and, once, a note on how to give the right. Where the board is live, a
recorded event's reply is its short live form."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace

from telegram.error import BadRequest, NetworkError

from bot.telegram.app_link import with_button
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.delivery import MESSAGE_LIMIT, LiveBoards, Outgoing, with_retries
from bot.telegram.sending import Sender, not_modified, telegram_failure
from bot.text.replies import Reply, Response, render
from locales import Translator

log = logging.getLogger(__name__)
BOARD_EDIT_SECONDS = 10.0  # the pinned board is edited at most this often per chat (BOARD_EDIT_SECONDS)


@dataclass
class PinnedBoards:
    connections: Connections
    chats: Chats
    sender: Sender
    board_interval: float = BOARD_EDIT_SECONDS
    boards: dict[tuple[str, int], int] = field(default_factory=dict)  # (chat key, night) -> its pinned board
    shown: dict[tuple[str, int], str] = field(default_factory=dict)  # (chat key, night) -> the text it shows
    live: LiveBoards = field(init=False)

    def __post_init__(self) -> None:
        self.live = LiveBoards(
            self.publish_board, self.board_interval, classify=telegram_failure, pacer=self.sender.pacer
        )

    async def as_shown(self, chat: int, response: Response) -> Response:
        """A reply where the chat's board is pinned and live (the bot may pin there): its live form — a
        recorded event's (bot/views/board.py `live`: no board after a hand, a win in three lines), a
        summary's (who pays whom; the board shows the standing)."""
        moved = self.chats.moved
        if response.live is None or not await self.chats.may_pin(moved.get(chat, chat)):
            return response
        return replace(response, replies=response.live)

    async def publish_board(self, item: Outgoing) -> bool:
        """The night's pinned board, edited in place; the night's first board is sent and pinned. A
        chat where the bot may not pin gets no live board (the board comes at the end of each hand)
        and, once per chat, a short note saying how to give the right. A 429 is left to the caller; True when
        the board shows it (Telegram was called, or the board said it already; the next edit waits the
        chat's interval)."""
        response = item.response
        assert response.scoreboard is not None and response.night_id is not None
        bot = self.connections.bot
        chat, night_id = self.chats.moved.get(item.chat, item.chat), response.night_id
        text = render(response.scoreboard, Translator(response.language))
        link = self.sender.link.button(chat, item.thread, night_id, response.language) if self.sender.link else None
        markup = with_button(None, link)  # an edit without its button would take it off
        if len(text) > MESSAGE_LIMIT:  # names too long for one message: the hand-end boards are split instead
            log.info("chat %s: the board is too long to pin", chat)
            return False
        board_id = await self.board_message(item.chat_key, night_id)
        if board_id is not None:
            if self.shown.get((item.chat_key, night_id)) == text:
                return True  # the board shows this already (an edit would change nothing and cost a message)
            if not await self.night_open(item):
                return False
            try:
                await self.sender.call(
                    chat,
                    lambda: bot.edit_message_text(text, chat_id=chat, message_id=board_id, reply_markup=markup),
                    urgent=False,
                )
                self.shown[(item.chat_key, night_id)] = text
                return True
            except BadRequest as error:
                if not_modified(error):  # the same board again (not known since a restart): nothing to do
                    self.shown[(item.chat_key, night_id)] = text
                    return True
                log.info("chat %s: pinned board %s not edited (%s): pinning a new one", chat, board_id, error)
                self.boards.pop((item.chat_key, night_id), None)
        if not await self.chats.may_pin(chat):
            await self.ask_for_pin_right(item)
            return False
        if not await self.night_open(item):
            return False
        try:
            sent = await with_retries(
                lambda: self.sender.call(
                    chat,
                    lambda: bot.send_message(
                        chat, text, message_thread_id=item.thread, disable_notification=True, reply_markup=markup
                    ),
                    urgent=False,
                ),
                self.sender.policy,
                telegram_failure,
                resend=False,
            )
        except NetworkError as error:
            failure = telegram_failure(error)
            if failure is None or not failure.maybe_delivered:
                raise
            # the board may be in the chat, unpinned: not sent twice now; the next event's board is pinned
            log.warning("chat %s: the new board may not have been sent (%s)", chat, error)
            return True
        try:
            # pinning shows a line in the group ("… pinned …"): counted like a message
            await self.sender.call(
                chat, lambda: bot.pin_chat_message(chat, sent.message_id, disable_notification=True), urgent=False
            )
        except BadRequest as error:  # the right was taken away since it was looked up
            log.info("chat %s: the board could not be pinned (%s)", chat, error)
            self.chats.pin_rights[chat] = (time.monotonic(), False)
            await self.ask_for_pin_right(item)
            return True
        await self.remember_board(chat, item.chat_key, night_id, sent.message_id)
        self.shown[(item.chat_key, night_id)] = text
        return True

    async def night_open(self, item: Outgoing) -> bool:
        """Whether the board's night is still open: a night closed while its board waited gets no board
        more (its closing answer said the last word, #48 item 5)."""
        assert item.response.night_id is not None
        return await self.connections.referee.night_open(item.chat_key, item.response.night_id)

    async def board_message(self, chat_key: str, night_id: int) -> int | None:
        """The night's pinned board: kept in memory, and in the chat's settings for a restart."""
        board_id = self.boards.get((chat_key, night_id))
        if board_id is None:
            stored = await self.connections.referee.chat_setting(chat_key, f"board:{night_id}")
            # only a board this bot pinned: an older version kept an unpinned live board under the same key
            if stored and stored == await self.connections.referee.chat_setting(chat_key, "board:pinned"):
                self.boards[(chat_key, night_id)] = board_id = int(stored)
        return board_id

    async def remember_board(self, chat: int, chat_key: str, night_id: int, message_id: int) -> None:
        """A new night's board replaces the last night's at the top of the chat: the old one is unpinned
        (it stays in the history as that night's last board)."""
        referee = self.connections.referee
        earlier = await referee.chat_setting(chat_key, "board:pinned")
        await referee.set_chat_setting(chat_key, f"board:{night_id}", str(message_id))
        await referee.set_chat_setting(chat_key, "board:pinned", str(message_id))
        self.boards[(chat_key, night_id)] = message_id
        if earlier and int(earlier) != message_id:
            await self.sender.quietly(self.connections.bot.unpin_chat_message(chat, message_id=int(earlier)))

    async def ask_for_pin_right(self, item: Outgoing) -> None:
        """Once per chat (remembered across restarts): the issue is the group's admins', and a
        group that chose not to give the right is not reminded every night."""
        asked = "board:asked"
        if await self.connections.referee.chat_setting(item.chat_key, asked):
            return
        await self.connections.referee.set_chat_setting(item.chat_key, asked, "1")
        note = Response((Reply("telegram.pin_ask"),), item.response.language)
        self.sender.outbox.push(Outgoing(item.chat, item.thread, item.chat_key, note))
