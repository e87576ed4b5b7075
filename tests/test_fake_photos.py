"""The fake Bot API takes a photo as Telegram does (Bot API, sendPhoto): a picture it can read, at most
10 MB, width and height at most 10000 together, a ratio of at most 20; else 400 and nothing is sent."""

from __future__ import annotations

import io

import aiohttp
from PIL import Image

from tests.kit.fake_telegram import FakeTelegram


def picture(width: int, height: int, image_format: str = "JPEG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (255, 255, 255)).save(out, format=image_format)
    return out.getvalue()


async def send_photo(fake: FakeTelegram, data: bytes) -> tuple[int, dict[str, object]]:
    form = aiohttp.FormData()
    form.add_field("chat_id", "-100123")
    form.add_field("photo", data, filename="chart.jpg")
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{fake.base_url}/botTOKEN/sendPhoto", data=form) as answer,
    ):
        return answer.status, await answer.json()


async def test_a_photo_is_taken_with_its_size_and_anything_else_is_refused() -> None:
    fake = FakeTelegram()
    await fake.start()
    try:
        status, body = await send_photo(fake, picture(800, 450))
        assert status == 200 and body["result"]["photo"][0]["width"] == 800  # type: ignore[index]
        assert (await send_photo(fake, b"not a picture"))[1]["description"] == "Bad Request: IMAGE_PROCESS_FAILED"
        assert (await send_photo(fake, picture(2100, 100)))[0] == 400  # a ratio of 21
        assert [c.method for c in fake.sent("sendPhoto")] == ["sendPhoto"]
    finally:
        await fake.stop()
