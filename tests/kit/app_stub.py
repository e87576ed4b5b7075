"""A small stand-in for the Mini App's server (docs/miniapp.md), for the page's tests until the real one
serves them: the page's files, the sprite, and the calls with their answers' shapes. A win is scored
by the engine under the nanjing preset; who pays what is the stub's own arithmetic, not the ledger's.
It validates initData as Telegram documents, records a nonce once, and counts its "group messages"."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from bot.web.tiles import sprite
from engine.claims import ClaimRefused
from engine.errors import EngineError
from engine.notation import parse_hand
from engine.preset import load_preset
from engine.scoring import score_hand
from engine.units import WinFlags
from locales import Translator, load_catalog
from tests.kit.init_data import TEST_TOKEN

STATIC = Path(__file__).resolve().parents[2] / "bot" / "web" / "static"
START = "stub-night-1"
NAMES = ("张三", "李四", "王五", "赵六")
WINDS = "东南西北"
FLAGS = (
    ("after_gang", "杠开"),
    ("robbing_gang", "抢杠"),
    ("last_stacks", "海底"),
    ("heavenly", "天胡"),
    ("earthly", "地胡"),
)
CSP = (
    "default-src 'self'; script-src 'self' https://telegram.org; img-src 'self' data: blob:; "
    "style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors https://web.telegram.org"
)


@dataclass
class Stub:
    members: dict[int, int | None] = field(default_factory=lambda: {101: 0, 102: 1, 103: 2, 104: 3})
    version: int = 1
    lines: list[dict[str, Any]] = field(default_factory=list)
    group_messages: list[str] = field(default_factory=list)
    recorded: dict[str, dict[str, Any]] = field(default_factory=dict)
    money: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    melds: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    hand: int = 1
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    live_wait: float = 25.0

    # -- the chat's side -------------------------------------------------------------------------

    def type_line(self, text: str) -> int:
        """A line typed in the chat and recorded: the night moves on."""
        number = len(self.lines) + 1
        self.lines.append({"no": number, "text": f"✅ #{number} {text}", "undone": False})
        self.group_messages.append(text)
        self.bump()
        return number

    def bump(self) -> None:
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    # -- who is asking ---------------------------------------------------------------------------

    def caller(self, request: web.Request) -> tuple[int, int | None]:
        header = request.headers.get("Authorization", "")
        raw = header.removeprefix("tma ")
        pairs = parse_qsl(raw, keep_blank_values=True)
        fields = dict(pairs)
        given = fields.pop("hash", "")
        if not raw or len(fields) + 1 != len(pairs):
            raise _refused(401, "app.forged", "This page was not opened from Telegram.")
        check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
        secret = hmac.new(b"WebAppData", TEST_TOKEN.encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(hmac.new(secret, check.encode(), hashlib.sha256).hexdigest(), given):
            raise _refused(401, "app.forged", "这个页面不是从 Telegram 打开的，没有记录任何东西。")
        if int(fields.get("auth_date", "0")) < time.time() - 24 * 3600:
            raise _refused(401, "app.expired", "页面打开太久了，请从群里重新打开。")
        if fields.get("start_param") != START:
            raise _refused(403, "app.forged", "这个链接不是这个机器人发的。")
        user = json.loads(fields.get("user", "{}"))
        if user.get("id") not in self.members:
            raise _refused(403, "app.stranger", "你不在这一桌，不能看也不能记。")
        return user["id"], self.members[user["id"]]

    # -- the answers -----------------------------------------------------------------------------

    def state(self, seat: int | None) -> dict[str, Any]:
        strings = {k: v for k, v in load_catalog("zh-Hans").singular.items() if k.startswith("app.")}
        dealer = (self.hand - 1) % 4
        rows = sorted(range(4), key=lambda s: -self.money[s])
        return {
            "version": self.version,
            "lang": "zh-Hans",
            "strings": strings,
            "chat": {"title": "周二麻将局"},
            "night": {"id": 1, "closed": False},
            "me": {"name": NAMES[seat] if seat is not None else None, "seat": seat, "seated": seat is not None},
            "seats": [
                {"seat": s, "name": NAMES[s], "wind": WINDS[s], "dealer": s == dealer, "you": s == seat}
                for s in range(4)
            ],
            "hand": {"number": self.hand, "dealer": dealer, "streak": 0, "double": False},
            "melds": self.melds,
            "tiles": [{"code": c, "label": c} for c in _codes()],
            "flags": [{"key": k, "label": label} for k, label in FLAGS],
            "max_flowers": 20,
            "board": {
                "rows": [
                    {"name": NAMES[s], "flowers": self.money[s] // 2, "money": f"{self.money[s]:+d}", "text": ""}
                    for s in rows
                ],
                "unit": "元",
            },
            "lines": self.lines,
            "chart": None,
        }

    def preview(self, body: dict[str, Any]) -> dict[str, Any]:
        tiles: list[str] = list(body["tiles"])
        melds = self.melds.get(str(body["winner"]), [])
        needed = 14 - 3 * len(melds) - len(tiles)
        if needed > 0:
            return {"ok": False, "reason": "牌还不够", "needed": needed}
        shown = " ".join(_meld_text(meld) for meld in melds)
        text = f"{''.join(tiles[:-1])} {shown} +{tiles[-1]}"
        self_draw = body["discarder"] is None
        flags = WinFlags(hard_flowers=body["flowers"], self_draw=self_draw, **{k: True for k in body["flags"]})
        words = Translator("zh-Hans")
        try:
            score = score_hand(parse_hand(text), flags, load_preset("nanjing"))
        except (EngineError, ClaimRefused) as error:
            return {"ok": False, "reason": words.t(error.key, **error.params), "needed": None}
        if not score.valid:
            reason = words.t(score.reason or "win.not_a_winning_shape", total=score.total, winner="这手牌")
            return {"ok": False, "reason": reason, "needed": None}
        items = [f"{words.t('unit.' + item.key)} {item.flowers}" for item in score.items]
        payers = [s for s in range(4) if s != body["winner"]] if self_draw else [body["discarder"]]
        line = f"胡 {NAMES[body['winner']]} {text} 花{body['flowers']}"
        return {
            "ok": True,
            "items": items,
            "total": f"合计 {score.total} 花",
            "payments": [f"{NAMES[p]} → {NAMES[body['winner']]}：{score.total} 花" for p in payers],
            "line": line,
            "amount": score.total,
            "payers": payers,
        }

    def record(self, body: dict[str, Any]) -> dict[str, Any]:
        nonce = body.get("nonce", "")
        if nonce in self.recorded:
            return self.recorded[nonce]
        seen = self.preview(body)
        if not seen["ok"]:
            return {"ok": False, "reason": seen["reason"]}
        if self.lines and self.lines[-1]["text"].endswith(seen["line"]) and body.get("answer") != "again":
            choices = [{"key": "again", "label": "再记一次"}]
            return {"ok": False, "ask": {"text": "和上一手一模一样，再记一次？", "choices": choices}}
        for payer in seen["payers"]:
            self.money[payer] -= seen["amount"]
            self.money[body["winner"]] += seen["amount"]
        number = self.type_line(seen["line"])
        self.hand += 1
        self.melds = {}
        answer = {"ok": True, "no": number, "text": self.lines[-1]["text"]}
        self.recorded[nonce] = answer
        return answer


def _meld_text(meld: dict[str, str]) -> str:
    """A logged meld in the notation: `[444p]`, `[EEEE]`."""
    tile, copies = meld["tile"], 4 if "gang" in meld["kind"] else 3
    return f"[{tile * copies}]" if tile[0].isalpha() else f"[{tile[0] * copies}{tile[1]}]"


def _codes() -> list[str]:
    return [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWN")


def _refused(status: int, key: str, text: str) -> web.HTTPException:
    body = json.dumps({"error": key, "text": text}, ensure_ascii=False)
    error = web.HTTPUnauthorized if status == 401 else web.HTTPForbidden
    return error(text=body, content_type="application/json")


def build_app(stub: Stub) -> web.Application:
    app = web.Application()

    async def static(request: web.Request) -> web.StreamResponse:
        name = request.match_info.get("name") or "index.html"
        if name == "tiles.svg":
            return web.Response(text=sprite(), content_type="image/svg+xml")
        kinds = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
        path = STATIC / name
        if name not in ("index.html", "app.js", "app.css"):
            raise web.HTTPNotFound()
        response = web.Response(text=path.read_text(encoding="utf-8"), content_type=kinds[name.rsplit(".")[-1]])
        response.headers["Content-Security-Policy"] = CSP
        return response

    async def state(request: web.Request) -> web.Response:
        _, seat = stub.caller(request)
        return web.json_response(stub.state(seat))

    async def live(request: web.Request) -> web.Response:
        _, seat = stub.caller(request)
        since = int(request.query.get("since", "0"))
        if stub.version <= since:
            try:
                await asyncio.wait_for(stub.changed.wait(), stub.live_wait)
            except TimeoutError:
                return web.json_response({"version": stub.version})
        return web.json_response(stub.state(seat))

    async def preview(request: web.Request) -> web.Response:
        stub.caller(request)
        answer = stub.preview(await request.json())
        return web.json_response({k: v for k, v in answer.items() if k not in ("amount", "payers")})

    async def record(request: web.Request) -> web.Response:
        stub.caller(request)
        return web.json_response(stub.record(await request.json()))

    async def undo(request: web.Request) -> web.Response:
        stub.caller(request)
        number = (await request.json())["no"]
        stub.lines[number - 1]["undone"] = True
        stub.group_messages.append(f"/undo {number}")
        stub.bump()
        return web.json_response({"ok": True, "text": f"↩️ #{number} 已撤销"})

    app.router.add_get("/app/", static)
    app.router.add_get("/app/api/state", state)
    app.router.add_get("/app/api/live", live)
    app.router.add_post("/app/api/preview", preview)
    app.router.add_post("/app/api/record", record)
    app.router.add_post("/app/api/undo", undo)
    app.router.add_get("/app/{name}", static)
    return app
