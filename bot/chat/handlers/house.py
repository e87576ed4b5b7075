"""A group's own rules (docs/rules.md 20): `/rules` shows the rules in force with every value a group
may change and its key; `/rules set KEY=VALUE …` changes tonight's from the next hand (a ledger
event, undone with /undo); a rules file sent with the caption `/rules` is kept as the group's house
rules (and, during a night, played from the next hand); `/rules save NAME`, `/rules default NAME` and
`/rules drop NAME` keep, choose and forget house rules by name, and `/new … rules=NAME` opens a night
with them (or with a file of the operator's RULES_DIR).

Who may change them: the night's opener and the chat's admins. Every change is checked whole before
anything is written: one answer names every bad key and value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from bot.chat.handlers.common import Context, Refusal, Upload, recorded_reply
from bot.chat.rule_words import read_changes
from bot.night.night import Night
from bot.night.records import HouseRules
from bot.night.seating import Speaker
from bot.text.replies import BUTTON_COMMAND_BYTES, LIST, Choice, Joined, Reply, Response
from bot.views.house_rules import changeable, differences, kept_lines, label_key, short_names
from bot.views.lines import format_money
from bot.views.lines import rules as rules_lines
from engine.bounds import MIN_STAKE_CENTS, room
from engine.errors import EngineError
from engine.events import SetRules
from engine.preset import PRESET_NAMES, Preset, load_preset, preset_from_dict, resolved_builtin
from engine.rule_keys import chat_keys, keys_changed, night_only_changes, read_file, rules_after

MAX_RULES_BYTES = 64 * 1024  # a rules file is a few KB; Telegram documents go to 20 MB
NAME = re.compile(r"^[\w-]{1,32}$")  # a house rule's name: one word, letters, digits, - and _
SAMPLE_STAKE = 100  # a preset shown outside a night: per 1 a flower
MAX_KEPT = 20  # house rules a group keeps: a handful in practice (bot/store/house_rules.py stores each once)


# ---- finding rules by name --------------------------------------------------------------------


def operator_files(rules_dir: Path | None) -> list[str]:
    """The operator's rules files (RULES_DIR, or the console's folder) that read as rules, by their
    names without `.toml` (a folder may hold other TOML files: a project's pyproject.toml is no rules)."""
    if rules_dir is None or not rules_dir.is_dir():
        return []
    return sorted(path.stem for path in rules_dir.glob("*.toml") if path.is_file() and _reads_as_rules(path))


def _reads_as_rules(path: Path) -> bool:
    try:
        return read_file(path.read_text(encoding="utf-8"))[0] is not None
    except (OSError, UnicodeDecodeError):
        return False


def operator_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise Refusal(Reply("house.file_unread", {"name": path.name})) from None


def operator_file(rules_dir: Path | None, name: str) -> Path | None:
    """`NAME` or `NAME.toml` in the operator's folder, never a path out of it."""
    if rules_dir is None:
        return None
    folder = rules_dir.resolve()
    for candidate in (name, f"{name}.toml"):
        path = (folder / candidate).resolve()
        if path.is_relative_to(folder) and path.is_file():
            return path
    return None


def checked_text(text: str) -> dict[str, Any]:
    """A rules file's plain data; refused naming every bad key and value it holds."""
    raw, errors = read_file(text)
    if raw is None:
        named = [Reply(e.key, {k: clipped(v) for k, v in e.params.items()}) for e in errors[:SHORT_MOST]]
        more = [Reply("house.more_errors", {"count": len(errors) - SHORT_MOST})] if len(errors) > SHORT_MOST else []
        raise Refusal(Reply("house.file_refused"), *named, *more, Reply("error.nothing_recorded"))
    return raw


def clipped(value: object) -> object:
    """A file's key or value as an error names it: its start (a file may hold keys of 500 letters)."""
    return f"{value[:40]}…" if isinstance(value, str) and len(value) > 40 else value


async def house_of(context: Context) -> HouseRules:
    return await context.services.nights.house_rules(context.incoming.chat_id)


NAME_MOST = 64  # a rules name as typed (a house rule's is 32; an operator's file name may be longer)


def checked_name(name: str) -> str:
    """A rules name as typed, checked before it is looked up or made a path: a name at most
    `NAME_MOST` characters, printable (a folder in it finds nothing: `operator_file`)."""
    if len(name) > NAME_MOST or not name.isprintable():
        shown = "".join(char if char.isprintable() else f"U+{ord(char):04X}" for char in name[:20])
        raise Refusal(Reply("house.bad_rules_name", {"name": shown + "…" * (len(name) > 20), "most": NAME_MOST}))
    return name


async def rules_named(context: Context, name: str) -> tuple[str, dict[str, Any]]:
    """Rules by name: a built-in preset, the group's own, or the operator's file. Refused with the
    names there are."""
    name = checked_name(name)
    lowered = name.lower()
    if lowered in PRESET_NAMES:
        return lowered, resolved_builtin(lowered)
    house = await house_of(context)
    kept = house.find(name)
    if kept is not None:
        return kept, dict(house.rules[kept])
    path = operator_file(context.services.rules_dir, name)
    if path is not None:
        raw = checked_text(operator_text(path))
        return str(raw.get("name") or path.stem), raw
    known = [*PRESET_NAMES, *house.rules, *operator_files(context.services.rules_dir)]
    raise Refusal(Reply("preset.unknown", {"name": name, "known": ", ".join(dict.fromkeys(known))}))


async def opening_rules(context: Context, name: str | None) -> tuple[str, dict[str, Any]]:
    """What a night opens with: the rules named (`preset=` or `rules=`), else the group's default."""
    if name is not None:
        return await rules_named(context, name)
    default = (await house_of(context)).default
    if default is not None:
        return await rules_named(context, default)
    return "nanjing", resolved_builtin("nanjing")


# ---- the ledger's room ----------------------------------------------------------------------


def check_room(stake_cents: int, *presets: Preset) -> None:
    """Rules and a stake are refused together when the largest payment one event could produce
    under the rules, at the stake, would not fit the ledger with room for years of nights
    (engine/bounds.py, docs/rules.md 20): said with the largest stake that would fit."""
    for preset in presets:
        needs = room(preset)
        if needs.fits(stake_cents):
            continue
        params = {"flowers": needs.largest, "stake": format_money(stake_cents)}
        if needs.stake_most < MIN_STAKE_CENTS:
            raise Refusal(Reply("room.no_stake", params), Reply("error.nothing_recorded"))
        raise Refusal(
            Reply("room.stake_too_big", {**params, "most": format_money(needs.stake_most)}),
            Reply("error.nothing_recorded"),
        )


# ---- who may ----------------------------------------------------------------------------------


def may_change(context: Context) -> bool:
    """The night's opener (the chat's latest night) and the chat's admins."""
    return allowed(context.incoming.speaker, context.night)


def allowed(speaker: Speaker, night: Night | None) -> bool:
    """Whether `speaker` may change the rules of a chat whose latest night is `night`: asked too before
    a rules document is downloaded (a stranger's is never fetched)."""
    return speaker.is_admin or (night is not None and bool(speaker.id) and speaker.id == night.row.opened_by)


def check_may_change(context: Context) -> None:
    if context.incoming.private:
        raise Refusal(Reply("house.group_only"))
    if not may_change(context):
        raise Refusal(Reply("house.not_allowed"))


# ---- the handler ------------------------------------------------------------------------------


async def rules(context: Context) -> Response:
    upload = context.incoming.upload
    if upload is not None:
        return await sent_file(context, upload)
    action = context.command.kind
    if action == "set":
        return await set_values(context)
    if action == "save":
        return await save(context)
    if action == "default":
        return await choose_default(context)
    if action == "drop":
        return await drop(context)
    return await show(context)


async def show(context: Context) -> Response:
    """`/rules` (or `/rules NAME`: any rules a night may open with): short, one message on a phone —
    the rules' key numbers and what differs from the built-in preset nearest them (tonight: what
    changed since the night opened), the group's house rules by name, and a button to the rest.
    `/rules all [NAME]`: every value a group may change with its key (docs/players.md)."""
    night, command = context.night, context.command
    full = command.kind == "all"
    word = (command.names[0] if command.names else None) if full else command.word
    if full and len(command.names) > 1:
        raise Refusal(Reply("house.all_usage"))
    house = await house_of(context)
    if night is not None and not context.closed and not word:
        replies = tonight(night) if full else tonight_short(night)
    else:
        _, raw = await (rules_named(context, word) if word else opening_rules(context, None))
        preset = preset_from_dict(raw)
        lines = described(preset, SAMPLE_STAKE, None)
        replies = [*lines, *changeable(preset)] if full else [*lines[:SHORT_LINES], *from_nearest(preset)]
    replies += kept_lines(sorted(house.rules), house.default, operator_files(context.services.rules_dir))
    replies.append(Reply("house.how_to_change"))
    return Response(tuple(replies), context.language, choices=() if full else all_button(word))


SHORT_LINES = 3  # of the rules' lines, the short /rules keeps the header, the formula and the instant payments
SHORT_MOST = 12  # differences the short /rules lists; the rest are one tap away


def all_button(word: str | None) -> tuple[Choice, ...]:
    command = f"/rules all {word}" if word else "/rules all"
    button = Choice(Reply("button.all_rules"), command, anytime=True)  # a question: good all night
    return (button,) if len(command.encode()) <= BUTTON_COMMAND_BYTES else ()


def capped(lines: list[Reply]) -> list[Reply]:
    """At most `SHORT_MOST` lines, and how many more the button shows."""
    if len(lines) <= SHORT_MOST:
        return lines
    return [*lines[:SHORT_MOST], Reply("house.more", {"count": len(lines) - SHORT_MOST})]


def nearest_builtin(preset: Preset) -> Preset:
    """The built-in preset with the fewest values apart from `preset` (its own name's first)."""
    presets = list(builtin_presets())
    presets.sort(key=lambda p: (p.name != preset.name, len(differences(p, preset))))
    return presets[0]


@cache
def builtin_presets() -> tuple[Preset, ...]:
    return tuple(load_preset(name) for name in PRESET_NAMES)


def from_nearest(preset: Preset) -> list[Reply]:
    """What differs from the built-in preset nearest these rules: nothing for a built-in preset itself."""
    base = nearest_builtin(preset)
    found = differences(base, preset)
    if not found:
        return [] if base.name == preset.name else [Reply("house.same_as", {"name": base.name})]
    return [Reply("house.differs_from", {"name": base.name, "count": len(found)}), *capped(found)]


def tonight_short(night: Night) -> list[Reply]:
    """Tonight's rules, short: the key numbers, what changed since the night opened and what the next
    hand changes (each capped)."""
    preset, following = night.preset, night.next_preset
    replies = described(preset, night.stake_at(night.state.hand_no), night.opening_preset)[:SHORT_LINES]
    if preset != night.opening_preset:
        replies.append(Reply("house.changed_tonight", {"name": night.opening_preset.name}))
        replies.extend(capped(differences(night.opening_preset, preset)))
    elif night.opening_preset.name not in PRESET_NAMES:
        replies.extend(from_nearest(preset))
    if following != preset:
        replies.append(Reply("house.from_next_hand", {"hand": night.state.hand_no + 1}))
        replies.extend(capped(differences(preset, following)))
    return replies


def described(preset: Preset, stake_cents: int, opened_with: Preset | None) -> list[Reply]:
    """The rules as /rules always said them; the header says when they were changed tonight."""
    lines = rules_lines(preset, stake_cents)
    if opened_with is not None and preset != opened_with:
        lines[0] = Reply("house.header_changed", {"name": preset.name, "stake": format_money(stake_cents)})
    return lines


def tonight(night: Night) -> list[Reply]:
    """Tonight's rules: as in force for the hand being played, what changed since the night opened,
    what the next hand changes, and the values a group may change."""
    preset, following = night.preset, night.next_preset
    replies = described(preset, night.stake_at(night.state.hand_no), night.opening_preset)
    if preset != night.opening_preset:
        replies.append(Reply("house.changed_tonight", {"name": night.opening_preset.name}))
        replies.extend(differences(night.opening_preset, preset))
    if following != preset:
        replies.append(Reply("house.from_next_hand", {"hand": night.state.hand_no + 1}))
        replies.extend(differences(preset, following))
    return [*replies, *changeable(preset)]


# ---- changing tonight's rules -----------------------------------------------------------------


def changing_night(context: Context) -> Night:
    check_may_change(context)
    night = context.night
    if night is None or context.closed:
        raise Refusal(Reply("house.set_needs_night"))
    return night


async def set_values(context: Context) -> Response:
    """`/rules set 跑=10 比下胡+=荒庄`: checked whole (every bad key and value named, nothing written),
    then one 改规则 event, from the next hand (this one if nothing was played in it yet)."""
    night = changing_night(context)
    read = read_changes(context.command.names)
    before = night.next_preset  # a change made earlier this hand waits for the next one too: on top of it
    errors = list(read.errors)
    for change in read.changes:  # each well-typed one on the rules, on its own: every bad value is named
        try:
            rules_after(before, SetRules((change,)))
        except EngineError as error:
            errors.append(
                Reply(
                    "house.value_refused", {"key": short_names()[change.key], "reason": Reply(error.key, error.params)}
                )
            )
    if errors:
        raise Refusal(Reply("house.refused"), *errors, Reply("error.nothing_recorded"))
    event = SetRules(read.changes)
    try:
        after = rules_after(before, event)
    except EngineError as error:
        raise Refusal(
            Reply("house.refused"), Reply(error.key, error.params), Reply("error.nothing_recorded")
        ) from error
    if after == before:
        raise Refusal(Reply("house.no_change"))
    check_room(stake_ahead(night), after)
    return await record_change(context, night, event, before, after)


def stake_ahead(night: Night) -> int:
    """The stake a change of the rules would be played at: this hand's or the next one's (a 改底 may
    wait for it), the larger."""
    hand = night.state.hand_no
    return max(night.stake_at(hand), night.stake_at(hand + 1))


async def record_change(context: Context, night: Night, event: SetRules, before: Preset, after: Preset) -> Response:
    # the hand it counts from is the table's word: kept through every re-derivation (docs/rules.md 20)
    recorded = await night.record(context.line, replace(event, next_hand=night.state.begun))
    hand = next(int(n.params["hand"]) for n in recorded.played.notices if n.key == "table.rules_from")
    params = {"id": night.shown(recorded.event_id), "hand": hand}
    said = Reply("house.set_done_now" if hand == night.state.hand_no else "house.set_done", params)
    replies = [said, *differences(before, after), Reply("house.save_hint")]
    return recorded_reply(context, night, replies, moved_money=False, event_id=recorded.event_id)  # replied to: #N


# ---- a rules file -----------------------------------------------------------------------------


def file_text(upload: Upload) -> str:
    if upload.size > MAX_RULES_BYTES:
        raise Refusal(
            Reply(
                "house.file_too_big",
                {"name": upload.name, "size": upload.size // 1024, "most": MAX_RULES_BYTES // 1024},
            )
        )
    if not upload.fetched:
        raise Refusal(Reply("house.file_not_fetched", {"name": upload.name}))
    if upload.text is None:
        raise Refusal(Reply("house.file_unread", {"name": upload.name}))
    return upload.text


def name_for(typed: str | None, raw: Mapping[str, Any], file_name: str) -> str:
    """What a sent file is kept as: the name typed with it, else its own `name`, else its file's name
    (a copy of a built-in preset still says `name = "nanjing"`)."""
    stem = Path(file_name).stem
    for candidate in (typed, str(raw.get("name") or ""), stem):
        if candidate and NAME.match(candidate) and candidate.lower() not in PRESET_NAMES:
            return candidate
    raise Refusal(Reply("house.name_the_file", {"name": typed or str(raw.get("name") or stem)}))


async def sent_file(context: Context, upload: Upload) -> Response:
    """A rules file with the caption `/rules` (or `/rules NAME`): checked whole, kept as the group's
    house rules under its name; during a night also played from the next hand, a ledger event like
    `/rules set`, unless it changes what only a new night can (start points, chips)."""
    check_may_change(context)
    if context.command.kind is not None:
        raise Refusal(Reply("house.file_caption"))
    raw = checked_text(file_text(upload))
    name = name_for(context.command.word, raw, upload.name)
    raw = {**raw, "name": name}
    night = context.night
    playing = night is not None and not context.closed
    after = preset_from_dict(raw)
    check_room(stake_ahead(night) if night is not None and playing else MIN_STAKE_CENTS, after)
    await keep(context, name, raw)
    said = Reply("house.file_kept", {"name": name})
    if night is None or not playing:
        return Response((said, Reply("house.open_with", {"name": name})), context.language)
    before = night.next_preset
    if night_only_changes(before, after):
        keys = Joined(tuple(night_only_changes(before, after)), LIST)
        return Response((said, Reply("house.file_next_night", {"name": name, "keys": keys})), context.language)
    if after == before:
        return Response((said, Reply("house.file_same")), context.language)
    lines = (said, *undoes_tonight(night, before, after))
    response = await record_change(context, night, SetRules(whole=json.dumps(raw, ensure_ascii=False)), before, after)
    return replace(response, replies=(*lines, *response.replies))


def undoes_tonight(night: Night, before: Preset, after: Preset) -> list[Reply]:
    """One line when a file sent tonight would set again values changed tonight (`/rules set`, or an
    earlier file): they are named, so a table sees what it is about to undo."""
    changed = set(keys_changed(night.opening_preset, before, chat_keys()))
    undone = [key for key in keys_changed(before, after, chat_keys()) if key in changed]
    if not undone:
        return []
    return [Reply("house.file_undoes", {"keys": Joined(tuple(Reply(label_key(k)) for k in undone), LIST)})]


# ---- house rules by name ----------------------------------------------------------------------


def one_name(context: Context, usage: str) -> str:
    names = context.command.names
    if len(names) != 1:
        raise Refusal(Reply(usage))
    return names[0]


def new_name(name: str) -> str:
    if not NAME.match(name) or name.lower() in PRESET_NAMES:
        raise Refusal(Reply("house.bad_name", {"name": name, "builtin": ", ".join(PRESET_NAMES)}))
    return name


async def keep(context: Context, name: str, raw: Mapping[str, Any]) -> None:
    house = await house_of(context)
    if house.find(name) is None and len(house.rules) >= MAX_KEPT:
        raise Refusal(Reply("house.too_many", {"most": MAX_KEPT}))
    await context.services.nights.keep_house_rules(context.incoming.chat_id, house.kept(name, raw))


async def save(context: Context) -> Response:
    """`/rules save NAME`: the rules the next hand is played by (tonight's, changes included; with no
    night open, what a bare /new opens with) kept as NAME."""
    check_may_change(context)
    name = new_name(one_name(context, "house.save_usage"))
    night = context.night  # open, or closed: the rules the latest night was played with, its changes in
    raw = json.loads(night.next_preset.source) if night is not None else (await opening_rules(context, None))[1]
    if raw.get("name") != name:  # the words of the rules it came from may no longer be true of it
        raw = {**raw, "name": name, "description": ""}
    check_room(MIN_STAKE_CENTS, preset_from_dict(raw))
    await keep(context, name, raw)
    return Response((Reply("house.saved", {"name": name}), Reply("house.open_with", {"name": name})), context.language)


async def choose_default(context: Context) -> Response:
    """`/rules default NAME`: what a bare /new opens with (a built-in preset's name goes back to it)."""
    check_may_change(context)
    name = one_name(context, "house.default_usage")
    house = await house_of(context)
    if name.lower() in PRESET_NAMES:
        chosen = None if name.lower() == "nanjing" else name.lower()
        await context.services.nights.keep_house_rules(context.incoming.chat_id, house.with_default(chosen))
        return Response((Reply("house.default_set", {"name": name.lower()}),), context.language)
    kept = house.find(name)
    if kept is None:
        raise Refusal(
            Reply("house.no_such", {"name": name, "names": Joined(tuple(sorted(house.rules)) or ("—",), LIST)})
        )
    await context.services.nights.keep_house_rules(context.incoming.chat_id, house.with_default(kept))
    return Response((Reply("house.default_set", {"name": kept}),), context.language)


async def drop(context: Context) -> Response:
    check_may_change(context)
    name = one_name(context, "house.drop_usage")
    house = await house_of(context)
    kept = house.find(name)
    if kept is None:
        raise Refusal(
            Reply("house.no_such", {"name": name, "names": Joined(tuple(sorted(house.rules)) or ("—",), LIST)})
        )
    await context.services.nights.keep_house_rules(context.incoming.chat_id, house.dropped(kept))
    return Response((Reply("house.dropped", {"name": kept}),), context.language)


def check_undo(context: Context, kind: str) -> None:
    """Undoing a 改规则 is changing the rules: the night's opener and the chat's admins only."""
    if kind == "rules" and not may_change(context):
        raise Refusal(Reply("house.not_allowed"))
