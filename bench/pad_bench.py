"""`python -m bench.pad_bench [--shots DIR]`: the Mini App's page in Debian's headless Chromium against the
real bot and its Mini App server (the fake Bot API behind them), a phone's screen (390×844, device
scale 2): the taps of a typical win, the first load's weight besides Telegram's script, and how long
each tap waits for its preview in the page. `--shots DIR` also writes the screenshots of the README
(the pad mid-win and the live night, light and dark) into DIR."""

from __future__ import annotations

import argparse
import gzip
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image

from tests.kit.app_table import AppTable, app_table
from tests.kit.browser import TELEGRAM_SCRIPT, chromium, open_page
from tests.kit.telegram import ALICE, BOB, CAROL, DAVE

# Carol's win on Alice's discard (docs/rules.md: 跑 20, 硬花 ×4 8, 风碰 2, 压档 2, 门清 20 = 52 flowers)
WIN = ["1p", "1p", "5s", "6s", "7s", "7s", "9s", "E", "E", "E", "2m", "3m", "4m", "8s"]
# A night to look at: pongs, a gang, wins off a discard and self-drawn, a penalty.
NIGHT = [
    (BOB, "碰 dave 9m"),
    (DAVE, "胡 bob 123m 456m 789p 11s 22s +2s 花5"),
    (ALICE, "碰 carol 5p"),
    (CAROL, "杠 7s"),
    (ALICE, "胡 自摸 234m 678m 55p 789s [555p] +4m 花7"),
    (BOB, "胡 carol 234p 456p 678p 99s WW +W 花2"),
    (DAVE, "罚 dave 10"),
]


def weight(table: AppTable, browser: Any) -> tuple[int, int, int]:
    """(bytes, gzip bytes, requests) of the page's first load, Telegram's script left out."""
    sizes: list[bytes] = []
    page = open_page(browser, table.url, table.init_data(CAROL))
    page.close()
    page = browser.new_context().new_page()
    page.route(TELEGRAM_SCRIPT, lambda route: route.abort())
    page.on("response", lambda r: sizes.append(r.body()) if r.url.startswith(table.url) and r.ok else None)
    page.goto(f"{table.url}#tgWebAppData=")
    page.wait_for_timeout(500)
    return sum(map(len, sizes)), sum(len(gzip.compress(body)) for body in sizes), len(sizes)


# A tap as the phone makes it, timed in the page: from the click to its preview drawn (the server's
# answer and the page's drawing, without the driver's own checks around a click).
TIMED_TAP = """async (selector) => {
  const box = document.getElementById("preview");
  const start = performance.now();
  document.querySelector(selector).click();
  await new Promise((done) => {
    if (!box.dataset.pending) return done();
    new MutationObserver((_, watch) => { if (!box.dataset.pending) { watch.disconnect(); done(); } })
      .observe(box, { attributes: true });
  });
  await new Promise((done) => requestAnimationFrame(() => done()));
  return performance.now() - start;
}"""


def tap_win(page: Any) -> tuple[int, list[float]]:
    """A typical win tapped: (taps, each tile tap's wait for its preview drawn, in ms)."""
    taps, waits = 0, []

    def tap(selector: str) -> None:
        nonlocal taps
        waits.append(page.evaluate(TIMED_TAP, selector))
        taps += 1

    tap("#winners [data-seat='2']")
    tap("#discarders [data-seat='0']")
    for code in WIN:
        tap(f"#keys [data-code='{code}']")
    tap("#flowers [data-flowers='4']")
    return taps, waits[2:16]


def shoot(page: Any, path: Path) -> None:
    """A screenshot, kept small: 256 colours are enough for a page of flat colours."""
    page.screenshot(path=path)
    with Image.open(path) as image:
        flat = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    flat.save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shots", type=Path, help="write the screenshots into this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, app_table(Path(folder)) as table, chromium() as browser:
        table.open_night()
        for who, line in NIGHT:
            table.say(who, line)
        table.idle()
        size, zipped, requests = weight(table, browser)
        print(
            f"first load besides Telegram's script: {size / 1024:.1f} KB in {requests} requests "
            f"({zipped / 1024:.1f} KB gzipped)"
        )
        for dark in (False, True):
            page = open_page(browser, table.url, table.init_data(CAROL), dark=dark, scale=2, main_button=False)
            taps, waits = tap_win(page)
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_timeout(150)
            scheme = "dark" if dark else "light"
            if args.shots:
                shoot(page, args.shots / f"miniapp-pad-{scheme}.png")
            before = len(table.group_messages())
            page.click("#record")
            page.wait_for_selector("#toast:not([hidden])")
            deadline = time.monotonic() + 5  # the result goes out through the chat's outbox
            while len(table.group_messages()) == before and time.monotonic() < deadline:
                time.sleep(0.05)
            table.idle()
            time.sleep(0.5)  # and nothing after it
            sent = len(table.group_messages()) - before
            print(
                f"{scheme}: a typical win in {taps + 1} taps (winner, discarder, 14 tiles, flowers, record); "
                f"{sent} group message; a tile tap to its preview shown p50 {statistics.median(waits):.0f} ms, "
                f"max {max(waits):.0f} ms"
            )
            page.wait_for_selector("#toast", state="hidden")
            page.click("#tab-live")
            page.click("#lines li:first-child .body")  # the win just recorded, opened on its 明细
            page.wait_for_selector("#lines li.open .detail")
            page.wait_for_timeout(300)
            if args.shots:
                shoot(page, args.shots / f"miniapp-live-{scheme}.png")
            page.context.close()
            table.say(BOB, "/undo")  # the next turn starts from the same board


if __name__ == "__main__":
    main()
