"""`/tz`: the time zone a group's days are counted in (bot/chat/zones.py): `/tz` says which it is,
`/tz Europe/Berlin` sets the group's own. Changed as the group's language is, by whoever may record at
its latest night (seated players, the opener, admins), by anyone before the group's first night."""

from __future__ import annotations

from bot.chat.handlers.common import Context, Refusal, chat_zone
from bot.chat.zones import ZONE_SETTING, zone_name
from bot.night.seating import may_record, player_list
from bot.text.replies import Reply, Response


async def tz(context: Context) -> Response:
    typed = context.command.word
    if not typed:
        return Response((Reply("tz.current", {"zone": await chat_zone(context)}),), context.language)
    night, speaker = context.night, context.incoming.speaker
    if night is not None and not context.incoming.private and not may_record(night.row, context.seats, speaker):
        raise Refusal(Reply("permission.tz", {"players": player_list(context.seats)}))
    name = zone_name(typed)
    if name is None:
        raise Refusal(Reply("tz.unknown", {"given": typed}))
    await context.services.nights.set_setting(context.incoming.chat_id, ZONE_SETTING, name)
    return Response((Reply("tz.done", {"zone": name}),), context.language)
