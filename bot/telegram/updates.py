"""The update handlers: one update, read (bot/telegram/input.py), goes to the handler of its kind —
a chat line, an edit (a correction), a button press, the bot's own membership — which asks the
command layer (`Referee.handle`) and posts what it answers. `Updates.process` is the table.

A line the ledger could not write (locked longer than its busy timeout, a full disk) is never
answered "nothing recorded" nor marked done: `process` says False and the chat's lane handles it
again (bot/telegram/lanes.py)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from telegram import CallbackQuery, Message, Update
from telegram.error import TelegramError

from bot.chat.availability import storage_unavailable
from bot.chat.service import MAX_RULES_BYTES, Incoming, Replied, Speaker, Upload, edited_line
from bot.store.queue import Row
from bot.telegram.app_lines import AppAnswers, is_app_line
from bot.telegram.chats import Chats
from bot.telegram.connections import Connections
from bot.telegram.delivery import Outgoing
from bot.telegram.input import PER_PRESSER, Document, Input, Kind, addressed_elsewhere, deep_link, read_update
from bot.telegram.pinned import PinnedBoards
from bot.telegram.sending import Sender
from bot.text.replies import Choice, Reply, Response, render_response
from locales import Translator

log = logging.getLogger(__name__)
PRIVACY_WARNED = "privacy_warned"  # chat setting: "1" while the chat was told plain words are not seen


class NotWrittenYet(Exception):
    """The ledger could not be written (locked by another program, a full disk): the update recorded
    nothing and is handled again, after a pause, before anything later in its chat."""


@dataclass
class Updates:
    connections: Connections
    chats: Chats
    sender: Sender
    pinned: PinnedBoards
    app_answers: AppAnswers = field(default_factory=AppAnswers)  # lines pressed on the Mini App

    async def process(self, row: Row, update: Update) -> bool:
        """Handle one update; False when the storage failed before anything was recorded (try again)."""
        recorded = False
        read = read_update(update)
        try:
            if read.kind is Kind.BUTTON and update.callback_query is not None:
                recorded = await self.on_button(update.callback_query, read, row)
            elif read.kind is Kind.NEW:
                recorded = await self.on_text(read, row)
            elif read.kind is Kind.EDITED:
                recorded = await self.on_edit(read, row)
            elif read.kind is Kind.MEMBER:
                await self.on_member(read)
            # forwarded, via a bot, a channel's automatic forward: someone else's words, never recorded
        except NotWrittenYet:
            return False
        except Exception as error:
            if storage_unavailable(error):  # a setting of the chat's, not written: handling it again is safe
                log.warning("update %s: the ledger is not writable (%s)", row.update_id, error)
                return False
            log.exception("update %s failed", row.update_id)
            await self.report_failure(update, row)
        # A line's events mark its row done in their own transaction (the inbox trigger); a guided
        # flow's last step records under the flow's key, so a press is marked here (a replay finds
        # the flow recorded).
        if not (recorded and row.key) or update.callback_query is not None:
            self.connections.inbox.mark_done(row.update_id)
        return True

    async def report_failure(self, update: Update, row: Row) -> None:
        """Say what is true: nothing recorded, unless the update's events were committed."""
        message = update.effective_message
        if not isinstance(message, Message):
            return
        try:
            chat_key = await self.chats.chat_key(message)
            user = update.effective_user
            language = await self.connections.referee.language(chat_key, user.language_code if user else None)
            recorded = await self.connections.inbox.is_done(row.update_id)
        except Exception:
            log.exception("could not find out what update %s recorded", row.update_id)
            return
        key = "error.internal_recorded" if recorded else "error.internal"
        if update.callback_query is not None:
            await self.sender.answer(update.callback_query, Translator(language).t(key))
            return
        outgoing = Outgoing(message.chat.id, self.chats.thread(message), chat_key, Response((Reply(key),), language))
        self.sender.outbox.push(outgoing)

    def post(self, item: Outgoing) -> None:
        """An answer to the chat's outbox; a recorded event's board to the chat's pinned live board."""
        self.sender.outbox.push(item)
        if item.response.recorded and item.response.scoreboard is not None and item.response.night_id is not None:
            self.pinned.live.push(item)

    async def on_text(self, read: Input, row: Row, text: str | None = None) -> bool:
        """A chat line (or a caption); True when it recorded something."""
        line = text if text is not None else read.text
        bot = self.connections.bot
        if read.sender is None or line is None or addressed_elsewhere(line, bot.username):
            return False
        chat_key = await self.chats.chat_key(read)
        referee = self.connections.referee
        said = await referee.read(chat_key, deep_link(line, bot.username))  # read once
        rules_file = read.document is not None and said.command is not None and said.command.name == "rules"
        # a question needs no rights; a rules file sent with /rules changes the rules: it does
        speaker = await self.chats.speaker(read.sender, read, rights=not said.asks_only or rules_file)
        upload = None
        if read.document is not None and rules_file:  # only a document captioned /rules is read, and only
            upload = (  # once its sender may change the rules: a stranger's file is never downloaded
                await self.fetch(read.document)
                if not read.private and await referee.may_change_rules(chat_key, speaker)
                else Upload(read.document.name, read.document.size or 0, fetched=False)
            )
        incoming = Incoming(
            chat_id=chat_key,
            speaker=speaker,
            text=said.text,
            update_key=row.key,
            private=read.private,
            mentions=self.chats.mentions(read),
            read=said,
            replied=self.replied(read) if text is None else None,  # an edit's fix names its own line
            upload=upload,
        )
        response = await referee.handle(incoming)
        if response is not None and response.unwritten:
            raise NotWrittenYet(row.update_id)
        if is_app_line(row) and self.app_answers.hold(row, response):
            return False  # what it would ask, or why not, is said in the Mini App; the group sees what it records
        if response is not None and (response.replies or response.attachments):
            assert read.chat_id is not None
            shown = await self.pinned.as_shown(read.chat_id, await self.with_privacy(response, chat_key))
            self.post(Outgoing(read.chat_id, read.topic, chat_key, shown))
        return response is not None and response.recorded

    def replied(self, read: Input) -> Replied | None:
        """The message the line replies to: the bot's own answer only when its author is this bot
        (by id: a player's text that looks like an answer is a player's message)."""
        if read.reply_to is None or read.chat_id is None:
            return Replied(None, 0) if read.replies_elsewhere else None
        author = read.replied_to
        mine = author is not None and author.is_bot and author.id == str(self.connections.bot.id)
        return Replied(read.chat_id, read.reply_to, answer=mine)

    async def fetch(self, document: Document) -> Upload:
        """A document's text, read with getFile when it is small enough to be a rules file (its size
        is asked before it is fetched, and counted again after); not read (None) when too big, not
        UTF-8 text, or not fetched (the command layer says which it was)."""
        if document.size is not None and document.size > MAX_RULES_BYTES:
            return Upload(document.name, document.size)
        try:
            found = await self.connections.bot.get_file(document.file_id)
            data = bytes(await found.download_as_bytearray())
        except TelegramError as error:
            log.warning("document %s not fetched: %s", document.file_id, error)
            return Upload(document.name, document.size or 0, fetched=False)
        if len(data) > MAX_RULES_BYTES:
            return Upload(document.name, len(data))
        try:
            return Upload(document.name, len(data), data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            return Upload(document.name, len(data))

    async def on_edit(self, read: Input, row: Row) -> bool:
        """An edit is a correction: of the event its line recorded (`/fix N <edited line>`), or, when
        the line recorded nothing, a new line."""
        if read.text is None or read.chat_id is None or read.message_id is None:
            return False
        chat_key = await self.chats.chat_key(read)
        referee = self.connections.referee
        found = await referee.event_of_message(chat_key, read.chat_id, read.message_id)
        if found is None:
            return await self.on_text(read, row)
        number, _ = found  # the line's current version: a second edit replaces the first one's fix
        if number is None:  # a seat claim, a line of another night: nothing tonight to correct
            language = await referee.language(chat_key, read.sender.language if read.sender else None)
            self.post(Outgoing(read.chat_id, read.topic, chat_key, Response((Reply("edit.no_line"),), language)))
            return False
        aimed = edited_line(read.text, number, read.reply_to is not None)
        # a correction read as typed keeps the reply it is (a reply-fix edited aims where it did)
        return await self.on_text(read, row, None if aimed == read.text else aimed)

    async def on_member(self, read: Input) -> None:
        """The bot added to a group, or its rights changed: getMe is read again (privacy turned off
        at BotFather shows once the bot is re-added), and an administrator reads every message. With
        privacy on, say at once what it cannot see, with /new as a button; once it sees plain words
        again in a chat it warned, say so once. Any change of membership looks up the pin right afresh."""
        chats, referee = self.chats, self.connections.referee
        if read.chat_id is not None:
            chats.pin_rights.pop(read.chat_id, None)
        if not read.group or read.chat_id is None or read.member_status not in ("member", "administrator"):
            return
        await chats.read_privacy()
        chat_key = await chats.base_key(read.chat_id)
        warned = await referee.chat_setting(chat_key, PRIVACY_WARNED) == "1"
        sees = chats.reads_all or bool(read.member_can_read)
        if sees == (not warned):  # nothing new to say: it saw before, or it was told it does not
            if sees and not chats.reads_all:  # an administrator with privacy on: the /new reply knows
                await referee.set_chat_setting(chat_key, PRIVACY_WARNED, "0")
            return
        language = await referee.language(chat_key, read.sender.language if read.sender else None)
        if sees:
            pins = await chats.may_pin(read.chat_id)
            reply = Reply("telegram.privacy_off" if pins else "telegram.privacy_off_no_pin")
            response = Response((reply,), language)
        else:
            new = (Choice(Reply("telegram.new_button"), "/new"),)
            response = Response((Reply("telegram.privacy"),), language, choices=new)
        await referee.set_chat_setting(chat_key, PRIVACY_WARNED, "0" if sees else "1")
        self.sender.outbox.push(Outgoing(read.chat_id, None, chat_key, response))

    async def with_privacy(self, response: Response, chat_key: str) -> Response:
        """The /new reply says in one line when plain words are not seen (privacy mode), unless the
        bot is known to see them in this chat (an administrator there)."""
        if self.chats.reads_all or not response.replies or response.replies[0].key != "night.opened":
            return response
        if await self.connections.referee.chat_setting(chat_key.split(":topic:")[0], PRIVACY_WARNED) == "0":
            return response
        return replace(response, replies=(*response.replies, Reply("telegram.privacy")))

    async def on_button(self, query: CallbackQuery, read: Input, row: Row) -> bool:
        """A button press: recorded once; later presses, strangers' and forged ones get an answer
        to the presser alone, never a group message."""
        message = query.message
        answer, referee = self.sender.answer, self.connections.referee
        if query.data is None or not isinstance(message, Message) or row.key is None:
            await answer(query, None)
            return False
        chat_key = await self.chats.chat_key(message)
        translator = Translator(await referee.language(chat_key, query.from_user.language_code))
        recorded_as = await self.connections.inbox.earlier(row.key, row.update_id)
        if recorded_as is not None:  # a second press: a toast, not an alert to dismiss
            number = await referee.number_of_event(chat_key, recorded_as)
            said = translator.t("button.recorded_before")
            shown = said if number is None else translator.t("button.already_recorded", id=number)
            await answer(query, shown, alert=False)
            return False
        parts = query.data.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/") or not await self.button_is_current(chat_key, *parts[:2]):
            await answer(query, translator.t("button.stale"), alert=False)
            return False
        speaker = await self.chats.speaker(read.sender, read) if read.sender else Speaker(str(query.from_user.id), "")
        incoming = Incoming(
            chat_id=chat_key,
            speaker=speaker,
            text=parts[2],
            update_key=row.key,
            private=read.private,
            press=f"cbq:{query.id}",
        )
        response = await referee.handle(incoming)
        if response is not None and response.unwritten:  # the press is answered once it is written
            raise NotWrittenYet(row.update_id)
        if response is not None and response.press_answer is not None:
            # a tap on the tile pad: the button's own answer, which is no group message (Telegram counts
            # sends and edits against the group's 20 a minute, not these); the pad stays as it is
            await answer(query, render_response(response, translator), alert=response.press_answer == "alert")
            return False
        if response is None or not (response.recorded or response.choices or response.edits or response.settles):
            text = render_response(response, translator) if response is not None else ""
            # a button spent already (its question answered): a toast; a refusal worth reading: an alert
            spent = response is None or response.spent or not text
            await answer(query, text or translator.t("button.used"), alert=not spent)
            return False
        await answer(query, None)
        response = await self.pinned.as_shown(message.chat.id, response)
        thread = self.chats.thread(message)
        pressed = query.data  # whose part of the message it is (bot/telegram/shared.py)
        if response.edits:  # a guided flow: its next step (or its result) is written over its answer
            self.post(Outgoing(message.chat.id, thread, chat_key, response, edit=message.message_id, pressed=pressed))
            return response.recorded
        keep = parts[2].startswith(PER_PRESSER)  # the join button stays while seats are free
        clear = None if keep else message.message_id
        self.post(Outgoing(message.chat.id, thread, chat_key, response, clear_keyboard=clear, pressed=pressed))
        return response.recorded

    async def button_is_current(self, chat_key: str, night_text: str, hand_text: str) -> bool:
        """A button belongs to one night (and hand, for most): pressed later, it is stale."""
        if night_text == "-":  # a button of no night (/new on the privacy note)
            return hand_text == "*"
        current = await self.connections.referee.current_hand(chat_key)
        if current is None or str(current[0]) != night_text:
            return False
        return hand_text in ("*", str(current[1]))
