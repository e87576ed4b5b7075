"""The Mini App's JSON API (docs/miniapp.md, "Calls"): aiohttp handlers over the command layer.

The page reads through the referee (`Referee.app`: bot/chat/app_desk.py); it writes nothing itself: a
win, an undo or a fix is a chat line typed by the person who pressed, handed to the front end's
`Door.submit`, which puts it through the chat's inbox and lane exactly as a typed line goes (once
per nonce, in the chat's order). The group sees the one answer a typed line would get when it
records; what it would ask, or why it refuses, is answered to the page alone."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from bot.chat.service import BadDraft, Referee, Speaker, WinDraft
from bot.text.replies import Choice, Response, render, render_response
from bot.web.access import Caller, Denied, Members, authenticate
from bot.web.init_data import WebAppUser
from locales import DEFAULT_LANGUAGE, Translator, load_catalog, normalize_language

NONCE = re.compile(r"[A-Za-z0-9_-]{8,64}")
LIVE_SECONDS = 25.0  # a live call waits this long for news before it answers "unchanged"
LIVE_STEP = 0.5  # how often a waiting live call looks at the night's version (≤ 3 s behind)
VERSION_BASE = 1_000_000  # version = night id × this + rows in its log
QUESTIONS_KEPT = 1000
MAX_BODY = 16 * 1024


@dataclass(frozen=True)
class AppLine:
    """A line typed on the page: by this user, in this chat (and topic), once per nonce."""

    chat_id: int
    topic: int
    chat_type: str
    user: WebAppUser
    text: str
    nonce: str


@dataclass(frozen=True)
class Submitted:
    """What the chat's lane did with an app line: the referee's answer (None when it was handled
    before, by an earlier call with the same nonce), and the row it recorded, if any."""

    response: Response | None
    event_id: int | None
    pending: bool = False  # not handled yet (its chat's lane is busy, the ledger locked): ask again, same nonce


class Door(Protocol):
    """What the front end that carries the chat gives the page (Telegram: bot/telegram/app_lines.py)."""

    @property
    def referee(self) -> Referee: ...

    async def chat_key(self, chat_id: int, topic: int) -> str: ...

    async def is_member(self, chat_id: int, user_id: int) -> bool: ...

    async def is_admin(self, chat_id: int, user_id: int) -> bool: ...

    async def earlier(self, line: AppLine) -> Submitted | None: ...

    async def submit(self, line: AppLine) -> Submitted: ...


def speaker_of(user: WebAppUser, admin: bool = False) -> Speaker:
    """The user as the command layer knows a speaker (a chat admin may record though not seated)."""
    name = user.username or "".join(user.first_name.split()) or str(user.id)
    return Speaker(str(user.id), name, user.username, admin, user.language_code)


def error(status: int, key: str, language: str = DEFAULT_LANGUAGE) -> web.Response:
    return web.json_response({"error": key, "text": Translator(language).t(key)}, status=status)


def version_of(found: tuple[int, int] | None) -> int:
    return 0 if found is None else found[0] * VERSION_BASE + found[1]


@dataclass
class Call:
    caller: Caller
    chat_key: str
    language: str
    admin: bool = False  # a chat admin (looked up only for one not seated)

    @property
    def speaker(self) -> Speaker:
        return speaker_of(self.caller.launch.user, self.admin)


Answer = Callable[["Api", web.Request], Awaitable[web.StreamResponse]]
Authorized = Callable[["Api", Call, web.Request], Awaitable[web.StreamResponse]]


def authorized(handler: Authorized) -> Answer:
    """A handler called only for a validated, authorized caller; anyone else gets 403 (or 410: the night is over)."""

    async def checked(api: Api, request: web.Request) -> web.StreamResponse:
        try:
            call = await api.call_of(request)
        except Denied as denied:  # in the caller's language once known, else in Simplified Chinese
            return error(denied.status, denied.key, denied.language or DEFAULT_LANGUAGE)
        return await handler(api, call, request)

    return checked


@dataclass
class Api:
    door: Door
    bot_token: str
    key: bytes  # the start tokens' key
    clock: Callable[[], float] = time.time
    members: Members = field(init=False)
    _asked: OrderedDict[tuple[str, str], tuple[Choice, ...]] = field(default_factory=OrderedDict)

    def __post_init__(self) -> None:
        self.members = Members(self.door.is_member)

    @property
    def referee(self) -> Referee:
        return self.door.referee  # opened with the ledger, after the routes are added

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/app/api/state", self.state),
            web.post("/app/api/preview", self.preview),
            web.post("/app/api/record", self.record),
            web.get("/app/api/live", self.live),
            web.post("/app/api/undo", self.undo),
            web.post("/app/api/fix", self.fix),
            web.get("/app/api/chart.png", self.chart),
            web.get("/app/api/line", self.detail),
        ]

    # ---- who is asking -------------------------------------------------------------------------

    async def call_of(self, request: web.Request) -> Call:
        """The validated, authorized caller, or Denied (initData is never logged: it is a credential)."""
        caller = authenticate(request.headers.get("Authorization"), self.bot_token, self.key, self.clock())
        token = caller.token
        chat_key = await self.door.chat_key(token.chat_id, token.topic)
        current = await self.referee.current_hand(chat_key)
        user = caller.launch.user
        language = normalize_language(user.language_code) or await self.referee.language(chat_key)
        seated = await self.referee.app.seated(chat_key, speaker_of(user))
        if not seated and not await self.members.member(token.chat_id, user.id):
            raise Denied(403, "app.stranger", language)
        if current is None or current[0] != token.night_id:
            raise Denied(410, "app.night_over", language)
        admin = not seated and await self.door.is_admin(token.chat_id, user.id)
        return Call(caller, chat_key, language, admin)

    # ---- reading -----------------------------------------------------------------------------------

    async def state_of(self, call: Call) -> dict[str, Any]:
        found = await self.referee.app.state(call.chat_key, call.speaker, call.language)
        version = version_of(await self.referee.app.version(call.chat_key))
        found = found or {}
        if found.get("lines"):  # a hand was played: the chart follows the version (a new URL when it moves)
            found["chart"] = f"/app/api/chart.png?v={version}"
        return {"version": version, "lang": call.language, "strings": strings(call.language), "chart": None, **found}

    @authorized
    async def state(self, call: Call, request: web.Request) -> web.Response:
        return web.json_response(await self.state_of(call))

    @authorized
    async def detail(self, call: Call, request: web.Request) -> web.Response:
        try:
            number = number_of({"no": int(request.query.get("no", ""))})
        except ValueError:
            return error(400, "app.bad_request", call.language)
        return web.json_response(
            {"no": number, "text": await self.referee.app.detail(call.chat_key, number, call.language)}
        )

    @authorized
    async def chart(self, call: Call, request: web.Request) -> web.Response:
        image = await self.referee.app.chart(call.chat_key, call.language)
        if image is None:
            return error(404, "app.no_chart", call.language)
        return web.Response(body=image, content_type="image/png")

    @authorized
    async def live(self, call: Call, request: web.Request) -> web.Response:
        try:
            since = int(request.query.get("since", "0"))
        except ValueError:
            return error(400, "app.bad_request", call.language)
        waited = 0.0
        while version_of(await self.referee.app.version(call.chat_key)) == since and waited < LIVE_SECONDS:
            await asyncio.sleep(LIVE_STEP)
            waited += LIVE_STEP
        version = version_of(await self.referee.app.version(call.chat_key))
        if version == since:
            return web.json_response({"version": version})
        return web.json_response(await self.state_of(call))

    @authorized
    async def preview(self, call: Call, request: web.Request) -> web.Response:
        try:
            draft = draft_of(await body_of(request))
            answer = await self.referee.app.preview(call.chat_key, call.speaker, call.language, draft)
        except (BadDraft, ValueError, TypeError, KeyError):
            return error(400, "app.bad_request", call.language)
        return web.json_response(answer)

    # ---- writing: a line as typed ------------------------------------------------------------------

    @authorized
    async def record(self, call: Call, request: web.Request) -> web.Response:
        try:
            body = await body_of(request)
            draft, nonce = draft_of(body), nonce_of(body)
            answer = body.get("answer")
            if answer is not None and not isinstance(answer, str):
                raise ValueError(answer)
        except (BadDraft, ValueError, TypeError, KeyError):
            return error(400, "app.bad_request", call.language)
        if answer is not None:
            return await self.answered(call, nonce, answer)
        line = self.line(call, "", nonce)
        before = await self.door.earlier(line)
        if before is not None:  # pressed twice, or retried after a lost answer: recorded once
            return await self.outcome(call, nonce, before)
        preview = await self.referee.app.preview(call.chat_key, call.speaker, call.language, draft)
        if not preview.get("ok"):
            return web.json_response({"ok": False, "reason": preview.get("reason")})
        return await self.outcome(call, nonce, await self.door.submit(self.line(call, str(preview["line"]), nonce)))

    async def answered(self, call: Call, nonce: str, answer: str) -> web.Response:
        """The page's answer to the question the chat would have asked: its button's line, as typed."""
        choices = self._asked.get((call.chat_key, nonce))
        index = int(answer[1:]) if re.fullmatch(r"a\d{1,2}", answer) else -1
        if choices is None or not 0 <= index < len(choices):
            return web.json_response({"ok": False, "reason": Translator(call.language).t("app.question_gone")})
        line = self.line(call, choices[index].command, f"{nonce}-{answer}")
        before = await self.door.earlier(line)
        return await self.outcome(call, nonce, before or await self.door.submit(line))

    @authorized
    async def undo(self, call: Call, request: web.Request) -> web.Response:
        return await self.command(call, request, lambda body: f"/undo {number_of(body)}")

    @authorized
    async def fix(self, call: Call, request: web.Request) -> web.Response:
        def typed(body: dict[str, Any]) -> str:
            text = body.get("text")
            if not isinstance(text, str) or not text.strip() or "\n" in text or len(text) > 500:
                raise ValueError(text)
            return f"/fix {number_of(body)} {text.strip()}"

        return await self.command(call, request, typed)

    async def command(self, call: Call, request: web.Request, typed: Callable[[dict[str, Any]], str]) -> web.Response:
        try:
            body = await body_of(request)
            line = self.line(call, typed(body), nonce_of(body))
            answer = body.get("answer")
        except (ValueError, TypeError, KeyError):
            return error(400, "app.bad_request", call.language)
        if isinstance(answer, str):  # the question an earlier call asked (an older line's undo)
            return await self.answered(call, line.nonce, answer)
        before = await self.door.earlier(line)
        return await self.outcome(call, line.nonce, before or await self.door.submit(line))

    def line(self, call: Call, text: str, nonce: str) -> AppLine:
        token, launch = call.caller.token, call.caller.launch
        return AppLine(token.chat_id, token.topic, launch.chat_type or "supergroup", launch.user, text, nonce)

    async def outcome(self, call: Call, nonce: str, submitted: Submitted) -> web.Response:
        translator = Translator(call.language)
        if submitted.pending:  # never "nothing was recorded" about a line that may yet be
            return web.json_response({"ok": False, "pending": True, "reason": translator.t("app.pending")})
        response = submitted.response
        text = render_response(response, translator) if response is not None else ""
        if submitted.event_id is not None:
            number = await self.referee.number_of_event(call.chat_key, submitted.event_id)
            return web.json_response({"ok": True, "no": number, "text": text})
        if response is not None and response.choices and not response.recorded:
            self._asked[(call.chat_key, nonce)] = response.choices
            while len(self._asked) > QUESTIONS_KEPT:
                self._asked.popitem(last=False)
            choices = [{"key": f"a{i}", "label": render(c.label, translator)} for i, c in enumerate(response.choices)]
            return web.json_response({"ok": False, "ask": {"text": text, "choices": choices}})
        if response is not None and response.recorded:  # recorded, with no row of its own to name
            return web.json_response({"ok": True, "no": None, "text": text})
        return web.json_response({"ok": False, "reason": text or translator.t("app.not_recorded")})


# ---- reading a request ---------------------------------------------------------------------------------


async def body_of(request: web.Request) -> dict[str, Any]:
    raw = await request.content.read(MAX_BODY + 1)
    if len(raw) > MAX_BODY:
        raise ValueError("too long")
    body = json.loads(raw or b"{}")
    if not isinstance(body, dict):
        raise ValueError("not an object")
    return body


def nonce_of(body: dict[str, Any]) -> str:
    nonce = body.get("nonce")
    if not isinstance(nonce, str) or not NONCE.fullmatch(nonce):
        raise ValueError("nonce")
    return nonce


def number_of(body: dict[str, Any]) -> int:
    number = body.get("no")
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= 100_000:
        raise ValueError("no")
    return number


def codes(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value) or len(value) > 20:
        raise ValueError("a list of tile codes")
    return tuple(value)


def draft_of(body: dict[str, Any]) -> WinDraft:
    """The win tapped on the page (docs/miniapp.md `POST /app/api/preview`); ValueError when malformed."""
    winner, discarder, flowers = body.get("winner"), body.get("discarder"), body.get("flowers", 0)
    for number in (winner, flowers, *((discarder,) if discarder is not None else ())):
        if not isinstance(number, int) or isinstance(number, bool):
            raise ValueError("a seat or a count")
    melds: list[tuple[str, bool]] = []
    for meld in body.get("melds") or []:
        if (
            not isinstance(meld, dict)
            or meld.get("kind") not in ("pong", "gang")
            or not isinstance(meld.get("tile"), str)
        ):
            raise ValueError("a meld")
        melds.append((meld["tile"], meld["kind"] == "gang"))
    assert isinstance(winner, int) and isinstance(flowers, int)
    return WinDraft(
        winner=winner,
        discarder=discarder,
        tiles=codes(body.get("tiles")),
        fills=codes(body.get("fills") or []),
        melds=tuple(melds[:4]),
        flowers=flowers,
        flags=codes(body.get("flags") or []),
    )


def strings(language: str) -> dict[str, str]:
    """Every `app.*` message in the language (the page's own words), Simplified Chinese where missing."""
    keys = [key for key in load_catalog(DEFAULT_LANGUAGE).singular if key.startswith("app.")]
    translator = Translator(language)
    return {key: translator.t(key) for key in keys}
