"""Telegram's update shapes read by the one pure function (bot/telegram/input.py), on update JSON as
the Bot API sends it (field names and nesting from core.telegram.org/bots/api)."""

from __future__ import annotations

from typing import Any

from telegram import Bot, Update

from bot.telegram.input import Kind, deep_link, display_name, read_update

GROUP = -1001234567890
ZHANGSAN = {"id": 5001, "is_bot": False, "first_name": "张三", "language_code": "zh-hans"}
ALEX = {"id": 5002, "is_bot": False, "first_name": "Alex", "last_name": "Chen"}


def message(text: str | None = "碰 李四", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "message_id": 77,
        "from": ZHANGSAN,
        "chat": {"id": GROUP, "title": "周五麻将", "type": "supergroup"},
        "date": 1733000000,
    }
    if text is not None:
        body["text"] = text
    body.update(extra)
    return body


def test_a_plain_line_from_a_user_without_username() -> None:
    read = read_update({"update_id": 10, "message": message()})
    assert read.kind is Kind.NEW and read.text == "碰 李四"
    assert read.sender is not None and read.sender.id == "5001" and read.sender.username is None
    assert read.sender.last_name is None and display_name(read.sender) == "张三"
    assert read.key == f"msg:{GROUP}:77" and read.group and read.topic is None


def test_a_ptb_update_reads_the_same_as_its_json() -> None:
    body = {"update_id": 11, "message": message("/score")}
    assert read_update(Update.de_json(body, Bot("1:x"))) == read_update(body)


def test_forwards_via_bot_and_automatic_forwards_are_not_the_speakers_lines() -> None:
    origin = {"type": "user", "date": 1732000000, "sender_user": ALEX}
    assert read_update({"update_id": 1, "message": message(forward_origin=origin)}).kind is Kind.FORWARDED
    hidden = {"type": "hidden_user", "date": 1732000000, "sender_user_name": "Ghost"}
    assert read_update({"update_id": 2, "message": message(forward_origin=hidden)}).kind is Kind.FORWARDED
    via = {"id": 42, "is_bot": True, "first_name": "gif", "username": "gif"}
    assert read_update({"update_id": 3, "message": message(via_bot=via)}).kind is Kind.VIA_BOT
    channel = {"id": -1009, "title": "News", "type": "channel"}
    auto = message(
        is_automatic_forward=True,
        sender_chat=channel,
        forward_origin={"type": "channel", "chat": channel, "message_id": 5, "date": 1},
    )
    assert read_update({"update_id": 4, "message": auto}).kind is Kind.AUTOMATIC_FORWARD


def test_a_caption_is_read_like_text() -> None:
    photo = [{"file_id": "a", "file_unique_id": "a", "width": 90, "height": 90}]
    caption = message(None, photo=photo, caption="/hu self 123m456m789m234p5p+5p", caption_entities=[])
    read = read_update({"update_id": 5, "message": caption})
    assert read.kind is Kind.NEW and read.text == "/hu self 123m456m789m234p5p+5p"
    assert read_update({"update_id": 6, "message": message(None, photo=photo)}).kind is Kind.OTHER


def test_a_channel_is_its_own_sender_and_an_anonymous_admin_is_the_group() -> None:
    placeholder = {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"}
    news = {"id": -100555, "title": "Mahjong News", "type": "channel", "username": "mjnews"}
    read = read_update({"update_id": 7, "message": message("/undo", sender_chat=news, **{"from": placeholder})})
    assert read.sender is not None and read.sender.id == "chat:-100555" and read.sender.is_channel
    assert not read.sender.anonymous_admin
    other = {"id": -100556, "title": "Other", "type": "channel"}
    second = read_update({"update_id": 8, "message": message("/undo", sender_chat=other, **{"from": placeholder})})
    assert second.sender is not None and second.sender.id != read.sender.id  # not the shared 136817688
    anonymous = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}
    group = {"id": GROUP, "title": "周五麻将", "type": "supergroup"}
    admin = read_update({"update_id": 9, "message": message("/undo", sender_chat=group, **{"from": anonymous})})
    assert admin.sender is not None and admin.sender.anonymous_admin and not admin.sender.is_channel


def test_the_general_topic_is_the_chats_table_and_a_topic_is_its_own() -> None:
    forum = {"id": GROUP, "title": "Club", "type": "supergroup", "is_forum": True}
    general_reply = message(chat=forum, message_thread_id=1, reply_to_message=message("/new", message_id=1, chat=forum))
    assert read_update({"update_id": 12, "message": general_reply}).topic is None
    in_topic = message(chat=forum, message_thread_id=40, is_topic_message=True)
    assert read_update({"update_id": 13, "message": in_topic}).topic == 40


def test_an_edit_is_keyed_by_message_and_edit_date() -> None:
    first = read_update({"update_id": 14, "edited_message": message("胡 王五 花5", edit_date=1733000100)})
    again = read_update({"update_id": 15, "edited_message": message("胡 王五 花6", edit_date=1733000200)})
    assert first.kind is Kind.EDITED and first.key == f"edit:{GROUP}:77:1733000100"
    assert again.key != first.key  # a second edit is a second correction


def test_migration_and_membership() -> None:
    old = {"id": -4001, "title": "T", "type": "group"}
    moved = read_update({"update_id": 16, "message": message(None, chat=old, migrate_to_chat_id=GROUP)})
    assert moved.kind is Kind.MIGRATION and moved.migrate_to == GROUP
    arrived = read_update({"update_id": 17, "message": message(None, migrate_from_chat_id=-4001)})
    assert arrived.migrate_from == -4001
    bot = {"id": 999, "is_bot": True, "first_name": "Referee", "username": "referee_bot"}
    member = {
        "chat": {"id": GROUP, "title": "T", "type": "supergroup"},
        "from": ZHANGSAN,
        "date": 1733000000,
        "old_chat_member": {"status": "left", "user": bot},
        "new_chat_member": {"status": "member", "user": bot},
    }
    read = read_update({"update_id": 18, "my_chat_member": member})
    assert read.kind is Kind.MEMBER and read.member_status == "member" and not read.member_can_read


def test_a_text_mention_is_one_person_however_many_words() -> None:
    text = "/new Alex Chen 李四 王五"
    entities = [
        {"type": "bot_command", "offset": 0, "length": 4},
        {"type": "text_mention", "offset": 5, "length": 9, "user": ALEX},
    ]
    read = read_update({"update_id": 19, "message": message(text, entities=entities)})
    assert len(read.mentions) == 1 and read.mentions[0].text == "Alex Chen"
    assert read.mentions[0].person is not None and read.mentions[0].person.id == "5002"


def test_a_button_press_and_per_presser_keys() -> None:
    sent = message("第 1 局开始", **{"from": {"id": 999, "is_bot": True, "first_name": "Referee"}})
    query = {"id": "q1", "from": ZHANGSAN, "chat_instance": "c", "message": sent, "data": "1:*:/join"}
    read = read_update({"update_id": 20, "callback_query": query})
    assert read.kind is Kind.BUTTON and read.key == f"cb:{GROUP}:77:1:*:/join:5001"


def test_a_deep_link_start_reads_as_help() -> None:
    assert deep_link("/start table-7", "referee_bot") == "/help"
    assert deep_link("/start", "referee_bot") == "/start"
    assert deep_link("碰 李四", "referee_bot") == "碰 李四"
