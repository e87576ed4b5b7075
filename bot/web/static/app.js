// The Mini App's page (docs/miniapp.md): the tile pad, which previews the score on every tap and records
// the win once, and the live night. An ES module, no build step; Telegram.WebApp when present.

const tg = window.Telegram?.WebApp ?? null;
const root = document.documentElement;
const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const SUITED = ["m", "p", "s"].flatMap((suit) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((rank) => `${rank}${suit}`));
const CODES = [...SUITED, "E", "S", "W", "N"];

const S = {
  state: null,
  version: 0,
  strings: {},
  view: "pad",
  winner: null, // a seat number
  discarder: undefined, // undefined: not tapped yet; null: 自摸
  tiles: [], // the tiles in tap order: a tile-less meld's first (`split`), the winning tile last
  flowers: 0,
  flags: new Set(),
  preview: null,
  previewSeq: 0,
  nonce: null, // one per win, kept across a retry, dropped when the hand changes
  busy: false,
  locked: false,
  chartUrl: null,
};

// -- talking to the server ---------------------------------------------------------------------

function initData() {
  if (tg?.initData) return tg.initData;
  return new URLSearchParams(location.hash.slice(1)).get("tgWebAppData") ?? "";
}

class ApiError extends Error {
  constructor(status, key, text) {
    super(text || key || String(status));
    this.status = status;
    this.key = key;
  }
}

async function api(path, body) {
  const init = { headers: { Authorization: `tma ${initData()}` }, cache: "no-store" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`api/${path}`, init);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data?.error, data?.text);
  return data;
}

function newNonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// -- words, theme, Telegram ------------------------------------------------------------------------

function t(key, params = {}) {
  const text = S.strings[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

function translateStatic() {
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  for (const el of document.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", t(el.dataset.tLabel));
}

const THEME = {
  bg_color: "--tg-bg",
  secondary_bg_color: "--tg-bg2",
  section_bg_color: "--tg-section",
  text_color: "--tg-text",
  hint_color: "--tg-hint",
  link_color: "--tg-link",
  accent_text_color: "--tg-accent",
  button_color: "--tg-button",
  button_text_color: "--tg-button-text",
  destructive_text_color: "--tg-danger",
};

function applyTheme() {
  const params = { ...(tg?.themeParams ?? {}) };
  params.section_bg_color ??= params.bg_color;
  for (const [name, property] of Object.entries(THEME)) {
    if (params[name]) root.style.setProperty(property, params[name]);
    else root.style.removeProperty(property);
  }
  const dark = tg?.colorScheme ? tg.colorScheme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  root.dataset.scheme = dark ? "dark" : "light";
}

const haptic = {
  tap: () => tg?.HapticFeedback?.impactOccurred?.("light"),
  pick: () => tg?.HapticFeedback?.selectionChanged?.(),
  done: (kind) => tg?.HapticFeedback?.notificationOccurred?.(kind),
};

function mainButton() {
  const button = tg?.MainButton;
  if (!button) return;
  const ready = S.view === "pad" && S.preview?.ok && !S.busy && !S.locked && !pending();
  button.setText(t("app.pad.record"));
  if (S.view !== "pad" || S.locked) {
    button.hide();
    return;
  }
  button.show();
  if (ready) button.enable();
  else button.disable();
  if (S.busy) button.showProgress?.(false);
  else button.hideProgress?.();
}

function backButton() {
  const button = tg?.BackButton;
  if (!button) return;
  if (S.view === "live" || !$("sheet").hidden) button.show();
  else button.hide();
}

function closingGuard() {
  if (!tg) return;
  if (S.tiles.length) tg.enableClosingConfirmation?.();
  else tg.disableClosingConfirmation?.();
}

// -- drawing helpers ---------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child != null && child !== false));
  return node;
}

function tile(code, cls = "tile") {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("viewBox", "0 0 36 48");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(SVGNS, "use");
  use.setAttribute("href", `#t-${code}`);
  svg.append(use);
  return svg;
}

function tileLabel(code) {
  return S.state?.tiles?.find((entry) => entry.code === code)?.label ?? code;
}

function toast(text, ms = 2600) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), ms);
}

function notice(text) {
  const box = $("notice");
  box.textContent = text ?? "";
  box.hidden = !text;
}

// -- the pad ---------------------------------------------------------------------------------

function seatSub(seat) {
  const parts = [seat.wind ?? ""];
  const sub = el("span", { class: "sub" }, parts.join(""));
  if (seat.dealer) sub.append(" ", el("b", {}, t("app.pad.dealer")));
  if (seat.you) sub.append(" · ", t("app.pad.you"));
  return sub;
}

function renderSeats() {
  const seats = S.state?.seats ?? [];
  $("winners").replaceChildren(
    ...seats.map((seat) =>
      el(
        "button",
        {
          class: "seat",
          type: "button",
          "data-seat": seat.seat,
          "aria-pressed": String(S.winner === seat.seat),
          onclick: () => pickWinner(seat.seat),
        },
        el("span", { class: "name" }, seat.name),
        seatSub(seat),
      ),
    ),
  );
  const discarders = seats.map((seat) =>
    el(
      "button",
      {
        class: "seat",
        type: "button",
        "data-seat": seat.seat,
        "aria-pressed": String(S.discarder === seat.seat),
        disabled: S.winner === seat.seat,
        onclick: () => pickDiscarder(seat.seat),
      },
      el("span", { class: "name" }, seat.name),
      seatSub(seat),
    ),
  );
  discarders.push(
    el(
      "button",
      {
        class: "seat self-draw",
        type: "button",
        "data-seat": "self",
        "aria-pressed": String(S.discarder === null),
        onclick: () => pickDiscarder(null),
      },
      el("span", { class: "name" }, t("app.pad.self_draw")),
    ),
  );
  $("discarders").replaceChildren(...discarders);
}

function loggedMelds() {
  if (S.winner == null) return [];
  return S.state?.melds?.[String(S.winner)] ?? [];
}

// A meld logged without its tile (`tile: null`) takes the first taps: they are its `fills`.
function split() {
  const open = loggedMelds().filter((meld) => !meld.tile).length;
  return { open, fills: S.tiles.slice(0, open), concealed: S.tiles.slice(open) };
}

function meldSize(meld) {
  return meld.kind.includes("gang") ? 4 : 3;
}

function counts() {
  const seen = new Map();
  const add = (code, n) => seen.set(code, (seen.get(code) ?? 0) + n);
  const { fills, concealed } = split();
  for (const code of concealed) add(code, 1);
  let next = 0;
  for (const meld of loggedMelds()) {
    const code = meld.tile ?? fills[next++];
    if (code) add(code, meldSize(meld));
  }
  return seen;
}

function buildKeys() {
  const codes = S.state?.tiles?.map((entry) => entry.code) ?? CODES;
  const keys = codes.map((code) =>
    el(
      "button",
      { class: "key", type: "button", "data-code": code, "aria-label": tileLabel(code), onclick: () => tapTile(code) },
      tile(code),
    ),
  );
  const back = el(
    "button",
    {
      class: "key back",
      type: "button",
      id: "key-back",
      "aria-label": t("app.pad.backspace"),
      onclick: () => removeTile(S.tiles.length - 1),
    },
    "⌫",
  );
  $("keys").replaceChildren(...keys, back);
}

function renderKeys() {
  const seen = counts();
  for (const key of $("keys").querySelectorAll(".key[data-code]")) {
    const n = seen.get(key.dataset.code) ?? 0;
    key.querySelector(".n")?.remove();
    if (n) key.append(el("span", { class: `n${n === 4 ? " full" : n > 4 ? " over" : ""}` }, String(n)));
  }
  $("key-back").disabled = !S.tiles.length;
}

function blankTile() {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("class", "tile blank");
  svg.setAttribute("viewBox", "0 0 36 48");
  svg.innerHTML = '<rect x="1.5" y="1.5" width="33" height="44" rx="5"/><text x="18" y="30">?</text>';
  return svg;
}

function renderTray() {
  const tray = $("tray");
  const melds = loggedMelds();
  const { open, fills, concealed } = split();
  const meldTiles = melds.reduce((sum, meld) => sum + meldSize(meld), 0);
  const needed = 14 - meldTiles + melds.filter((meld) => meldSize(meld) === 4).length;
  // every place on one row: the melds' tiles and the hand's, with the gaps around them
  const shown = meldTiles + Math.max(needed, concealed.length);
  const room = tray.clientWidth || 340;
  const width = Math.max(16, Math.min(30, Math.floor((room - 10 - melds.length * 11) / shown) - 2));
  tray.style.setProperty("--tray-w", `${width}px`);
  const button = ({ code, index }, cls) =>
    el(
      "button",
      { type: "button", class: cls, "aria-label": tileLabel(code), onclick: () => removeTile(index) },
      tile(code),
    );
  let next = 0;
  const parts = melds.map((meld) => {
    const filled = meld.tile ? null : next++;
    const code = meld.tile ?? fills[filled];
    const label = meld.tile || code ? t("app.pad.logged") : t("app.pad.which_tile");
    const tiles = Array.from({ length: meldSize(meld) }, () => (code ? tile(code) : blankTile()));
    const group = el("span", { class: `meld${code ? "" : " open"}`, "data-label": label, title: meld.text ?? "" });
    if (filled != null && code) group.append(button({ code, index: filled }, "fill"));
    else group.append(...tiles);
    if (filled != null && code) group.firstChild.append(...tiles.slice(1));
    return group;
  });
  // the hand sorted as a player holds it; the places still to fill; the winning tile (the last
  // tapped) apart once the hand is whole: how far the hand is, at a glance
  const empty = Math.max(0, needed - concealed.length);
  const last = empty ? -1 : concealed.length - 1;
  const held = concealed
    .map((code, at) => ({ code, index: open + at }))
    .filter((entry) => entry.index !== open + last)
    .sort((a, b) => CODES.indexOf(a.code) - CODES.indexOf(b.code) || a.index - b.index);
  parts.push(...held.map((entry) => button(entry, "held")));
  parts.push(...Array.from({ length: empty }, (_, at) => el("span", { class: `slot${at === empty - 1 ? " win" : ""}` })));
  if (last >= 0) parts.push(button({ code: concealed[last], index: open + last }, "win"));
  tray.classList.toggle("has-melds", melds.length > 0);
  tray.replaceChildren(...parts);
  $("hand-count").textContent = `${concealed.length} / ${Math.max(needed, concealed.length)}`;
}

function renderFlowers() {
  const most = S.state?.max_flowers ?? 20;
  const chips = [];
  for (let n = 0; n <= most; n += 1) {
    chips.push(
      el(
        "button",
        {
          class: "chip",
          type: "button",
          "data-flowers": n,
          "aria-pressed": String(S.flowers === n),
          onclick: () => pickFlowers(n),
        },
        String(n),
      ),
    );
  }
  $("flowers").replaceChildren(...chips);
}

function renderFlags() {
  const flags = S.state?.flags ?? [];
  const offered = new Set(flags.map((flag) => flag.key));
  for (const key of S.flags) if (!offered.has(key)) S.flags.delete(key); // no longer a claim at this table
  $("flags-group").hidden = !flags.length;
  $("flags").replaceChildren(
    ...flags.map((flag) =>
      el(
        "button",
        {
          class: "chip",
          type: "button",
          "data-flag": flag.key,
          "aria-pressed": String(S.flags.has(flag.key)),
          onclick: () => toggleFlag(flag.key),
        },
        flag.label,
      ),
    ),
  );
}

function renderPreview() {
  const box = $("preview");
  const p = S.preview;
  box.className = "preview";
  box.dataset.state = p?.ok ? "ok" : p?.needed ? "short" : p ? "bad" : "hint";
  if (S.winner == null || S.discarder === undefined) {
    const key = S.winner == null ? "app.pad.pick_winner" : "app.pad.pick_discarder";
    box.replaceChildren(el("div", { class: "hint" }, t(key)));
  } else if (!p) {
    box.replaceChildren(el("div", { class: "hint" }, t("app.pad.hand_hint")));
  } else if (p.ok) {
    box.classList.add("ok");
    box.replaceChildren(...scoreParts(p));
    if (p.line) box.append(el("div", { class: "line" }, p.line));
  } else {
    box.classList.add("bad");
    if (p.needed) {
      // a hand still short: how many to go first, what else is missing under it
      box.classList.replace("bad", "short");
      box.replaceChildren(
        el("div", { class: "to-go" }, t("app.pad.needed", { count: p.needed })),
        el("div", { class: "needed" }, p.reason ?? ""),
      );
    } else {
      box.replaceChildren(el("div", { class: "reason" }, p.reason ?? ""));
    }
  }
  renderRecord();
}

// The score as the server gives it: itemised (`items`, `total`, `payments`), or as the chat shows it
// (`lines`: the items `= total`, then who pays whom).
function scoreParts(p) {
  if (p.items || p.total) {
    return [
      el("div", { class: "total" }, p.total ?? ""),
      el("ul", { class: "items" }, ...(p.items ?? []).map((item) => el("li", {}, textOf(item)))),
      el("ul", { class: "payments" }, ...(p.payments ?? []).map((pay) => el("li", {}, textOf(pay)))),
    ];
  }
  const [first = "", ...rest] = (p.lines ?? String(p.text ?? "").split("\n")).map((line) => line.trim());
  const sum = first.match(/^(.*)\s=\s*([^=]+)$/); // the items, then ` = ` and the total last
  const unit = S.state?.standing?.unit ?? "";
  const total = sum ? sum[2].trim() : first;
  return [
    el("div", { class: "total" }, /^[\d.]+$/.test(total) && unit ? `${total} ${unit}` : total),
    sum ? el("div", { class: "items-line" }, sum[1]) : null,
    el("ul", { class: "payments" }, ...rest.filter(Boolean).map((line) => el("li", {}, line))),
  ].filter(Boolean);
}

function textOf(item) {
  if (typeof item === "string") return item;
  if (item.label != null) return `${item.label} ${item.value ?? ""}`.trim();
  return item.text ?? `${item.from} → ${item.to} ${item.text ?? ""}`;
}

function renderRecord() {
  const button = $("record");
  button.disabled = !S.preview?.ok || S.busy || S.locked || pending(); // record only what was shown
  button.classList.toggle("busy", S.busy);
  button.textContent = S.busy ? t("app.pad.recording") : t("app.pad.record");
  mainButton();
}

function renderPad() {
  renderSeats();
  renderTray();
  renderKeys();
  for (const chip of $("flowers").children) chip.setAttribute("aria-pressed", String(S.flowers === +chip.dataset.flowers));
  for (const chip of $("flags").children) chip.setAttribute("aria-pressed", String(S.flags.has(chip.dataset.flag)));
  renderPreview();
  closingGuard();
}

function changed() {
  S.nonce = null; // another hand is another win
  renderPad();
  preview();
}

function pickWinner(seat) {
  haptic.pick();
  S.winner = seat;
  if (S.discarder === seat) S.discarder = undefined;
  changed();
}

function pickDiscarder(seat) {
  haptic.pick();
  S.discarder = seat;
  changed();
}

function tapTile(code) {
  haptic.tap();
  S.tiles.push(code);
  const key = $("keys").querySelector(`[data-code="${code}"]`);
  key?.classList.remove("pressed");
  void key?.offsetWidth;
  key?.classList.add("pressed");
  changed();
}

function removeTile(index) {
  if (index < 0 || index >= S.tiles.length) return;
  haptic.tap();
  S.tiles.splice(index, 1);
  changed();
}

function pickFlowers(n) {
  haptic.pick();
  S.flowers = n;
  changed();
}

function toggleFlag(key) {
  haptic.pick();
  if (S.flags.has(key)) S.flags.delete(key);
  else S.flags.add(key);
  changed();
}

function winBody() {
  const { fills, concealed } = split();
  return {
    winner: S.winner,
    discarder: S.discarder ?? null,
    tiles: concealed,
    fills,
    melds: [],
    flowers: S.flowers,
    flags: [...S.flags],
  };
}

async function preview() {
  const seq = ++S.previewSeq;
  if (S.winner == null || S.discarder === undefined) {
    delete $("preview").dataset.pending;
    S.preview = null;
    renderPreview();
    return;
  }
  $("preview").dataset.pending = String(seq);
  renderRecord();
  try {
    const answer = await api("preview", winBody());
    if (seq !== S.previewSeq) return; // a later tap has asked since
    S.preview = answer;
  } catch (error) {
    if (seq !== S.previewSeq) return;
    S.preview = null;
    failed(error);
  }
  delete $("preview").dataset.pending;
  renderPreview();
}

function resetPad() {
  S.winner = null;
  S.discarder = undefined;
  S.tiles = [];
  S.flowers = 0;
  S.flags.clear();
  S.preview = null;
  S.nonce = null;
  renderPad();
}

function pending() {
  return Boolean($("preview").dataset.pending);
}

async function record(answer) {
  if (S.busy || S.locked || !S.preview?.ok || pending()) return;
  S.busy = true;
  S.nonce ??= newNonce();
  renderRecord();
  const body = { ...winBody(), nonce: S.nonce };
  if (answer) body.answer = answer;
  let ask = null;
  try {
    const result = await api("record", body);
    if (result.ok) {
      haptic.done("success");
      toast(t("app.pad.recorded", { no: result.no }));
      S.busy = false;
      resetPad();
      refresh();
    } else if (result.ask) {
      haptic.done("warning");
      ask = result.ask;
    } else {
      haptic.done("error");
      S.nonce = null;
      S.preview = { ok: false, reason: result.reason };
    }
  } catch (error) {
    haptic.done("error");
    failed(error); // a lost connection keeps the nonce: pressing again cannot record twice
  } finally {
    S.busy = false;
    renderPreview();
  }
  if (ask) showSheet(ask, (key) => record(key));
}

function showSheet(ask, choose) {
  $("sheet-text").textContent = ask.text ?? "";
  const choices = (ask.choices ?? []).map((choice) =>
    el(
      "button",
      { type: "button", "data-choice": choice.key, onclick: () => closeSheet() || choose(choice.key) },
      choice.label,
    ),
  );
  choices.push(el("button", { type: "button", "data-choice": "", onclick: () => closeSheet() }, t("app.pad.cancel")));
  $("sheet-choices").replaceChildren(...choices);
  $("sheet").hidden = false;
  backButton();
}

function closeSheet() {
  $("sheet").hidden = true;
  backButton();
}

// -- the live night ----------------------------------------------------------------------------

function signed(value) {
  const text = String(value);
  return /^[+-]/.test(text) || +text === 0 ? text : +text > 0 ? `+${text}` : text;
}

function sign(value) {
  const n = parseFloat(String(value).replace(/[^0-9.+-]/g, ""));
  return n > 0 ? "plus" : n < 0 ? "minus" : "";
}

function renderHeader() {
  const st = S.state;
  $("chat-title").textContent = st.chat?.title ?? t("app.pad.title");
  const hand = st.hand;
  const info = $("hand-info");
  info.replaceChildren();
  if (!hand) return;
  const dealer = st.seats?.find((seat) => seat.seat === hand.dealer)?.name ?? "";
  info.append(t("app.pad.hand_no", { number: hand.number }));
  if (dealer) info.append(` · ${t("app.pad.dealer")} ${dealer}`);
  if (hand.streak > 0) info.append(` · ${t("app.pad.streak", { count: hand.streak })}`);
  if (hand.double) info.append(" ", el("span", { class: "badge" }, t("app.pad.double")));
}

function renderBoard() {
  const board = S.state.board ?? {};
  const seats = S.state.seats ?? [];
  if (S.state.standing?.rows) {
    renderStanding(S.state.standing, board.text ?? "");
    return;
  }
  if (!board.rows) {
    renderBoardText(board.text ?? "");
    return;
  }
  $("board-caption").hidden = true;
  $("board").replaceChildren(
    ...board.rows.map((row) => {
      const seat = seats.find((s) => s.name === row.name);
      const who = el("td", { class: "who" }, row.name);
      if (seat?.dealer) who.append(" ", el("span", { class: "badge" }, t("app.pad.dealer")));
      if (seat?.you) who.append(el("small", {}, t("app.pad.you")));
      const money = `${signed(row.money)}${board.unit ? ` ${board.unit}` : ""}`;
      return el(
        "tr",
        { title: row.text ?? "" },
        who,
        el("td", { class: "fl" }, t("app.pad.flower_count", { count: signed(row.flowers) })),
        el("td", { class: `money ${sign(row.money)}` }, money),
      );
    }),
  );
}

// Each seat's balance (`standing`), the board's first line (the hand, the dealer) above.
function renderStanding(standing, text) {
  const caption = text.split("\n")[0] ?? "";
  $("board-caption").hidden = !caption;
  $("board-caption").textContent = caption.replace(/^[^\p{L}\p{N}]+/u, "");
  const currency = text.match(/[（(][+-]?[\d.,]+\s*([^\s\d）)]+)[）)]/)?.[1] ?? "";
  const seats = S.state.seats ?? [];
  $("board").replaceChildren(
    ...standing.rows.map((row) => {
      const seat = seats.find((s) => s.seat === row.seat);
      const who = el("td", { class: "who" }, el("small", { class: "wind" }, seat?.wind ?? ""), row.name);
      if (seat?.dealer) who.append(" ", el("span", { class: "badge" }, t("app.pad.dealer")));
      if (seat?.you) who.append(el("small", {}, t("app.pad.you")));
      return el(
        "tr",
        { "data-seat": row.seat },
        who,
        el("td", { class: "fl" }, `${signed(row.amount)} ${standing.unit ?? ""}`),
        el("td", { class: `money ${sign(row.money)}` }, `${signed(row.money)}${currency ? ` ${currency}` : ""}`),
      );
    }),
  );
}

// The board as the chat shows it (`📋 caption`, then `  东 alice：-34 花（-34 元）` a line): each line
// cut at its colon into who and how much.
function renderBoardText(text) {
  const [caption = "", ...rows] = text.split("\n");
  $("board-caption").hidden = !caption;
  $("board-caption").textContent = caption.replace(/^[^\p{L}\p{N}]+/u, "");
  const seats = S.state.seats ?? [];
  $("board").replaceChildren(
    ...rows
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => {
        const cut = line.search(/[：:]/);
        if (cut < 0) return el("tr", {}, el("td", { colspan: "2", class: "fl" }, line));
        const left = line.slice(0, cut).trim();
        const right = line.slice(cut + 1).trim();
        const seat = seats.find((s) => left.split(/\s+/).includes(s.name));
        const who = el("td", { class: "who" }, left);
        if (seat?.dealer) who.append(" ", el("span", { class: "badge" }, t("app.pad.dealer")));
        if (seat?.you) who.append(el("small", {}, t("app.pad.you")));
        const money = right.match(/[（(]([^）)]*)[）)]\s*$/);
        const flowers = money ? right.slice(0, money.index).trim() : "";
        return el(
          "tr",
          {},
          who,
          el("td", { class: "fl" }, flowers),
          el("td", { class: `money ${sign(money ? money[1] : right)}` }, money ? money[1] : right),
        );
      }),
  );
}

function renderLines() {
  const lines = [...(S.state.lines ?? [])].reverse(); // the newest first
  if (!lines.length) {
    $("lines").replaceChildren(el("li", { class: "empty-note" }, t("app.pad.empty")));
    return;
  }
  $("lines").replaceChildren(...lines.map(lineItem));
}

function lineItem(line) {
  // the reply starts with its number (`#12 …`), which the list shows on its own
  const text = String(line.text ?? "").replace(new RegExp(`^\\S{0,3}\\s*#${line.no}\\b\\s*`), "");
  const body = el("div", { class: "body" }, text);
  const item = el(
    "li",
    { class: line.undone ? "undone" : "", "data-no": line.no },
    el("div", { class: "head" }, el("span", { class: "no" }, `#${line.no}`), body),
  );
  if (line.detail) item.append(el("div", { class: "detail" }, line.detail));
  body.addEventListener("click", () => openLine(item, line));
  return item;
}

// A line tapped: its 明细 (as `/history #N` shows it) and what may be done with it.
async function openLine(item, line) {
  if (item.classList.toggle("open") === false) return;
  haptic.pick();
  if (!item.querySelector(".acts") && !line.undone) item.append(lineActs(item, line));
  if (item.querySelector(".detail") || line.no == null) return;
  const detail = el("div", { class: "detail" });
  item.querySelector(".head").after(detail);
  try {
    const found = await api(`line?no=${line.no}`);
    detail.textContent = String(found.text ?? "")
      .split("\n")
      .slice(2) // its heading and the line itself, shown already
      .join("\n");
  } catch {
    detail.remove();
  }
}

function lineActs(item, line) {
  const acts = el("div", { class: "acts" });
  const undo = el("button", { type: "button", class: "undo" }, t("app.pad.undo"));
  undo.addEventListener("click", () => {
    if (!undo.classList.contains("sure")) {
      haptic.done("warning");
      undo.classList.add("sure");
      undo.textContent = t("app.pad.confirm_undo", { no: line.no });
      return;
    }
    act("undo", { no: line.no });
  });
  const fix = el("button", { type: "button", class: "fix-open" }, t("app.pad.fix"));
  fix.addEventListener("click", () => {
    acts.hidden = true;
    const input = el("input", { type: "text", placeholder: t("app.pad.fix_hint"), enterkeyhint: "send" });
    input.value = typedLine(line.text); // the line as typed, to be mended rather than typed again
    const send = () => input.value.trim() && act("fix", { no: line.no, text: input.value.trim() });
    input.addEventListener("keydown", (event) => event.key === "Enter" && send());
    item.append(
      el("div", { class: "fix" }, input, el("button", { type: "button", class: "send", onclick: send }, t("app.pad.send"))),
    );
    input.focus();
  });
  acts.append(undo, fix);
  return acts;
}

// `#3 [第1盘] 胡：胡 alice 11p … 花4（carol）` as /history shows it → the line typed, `胡 alice 11p … 花4`.
function typedLine(text) {
  return String(text ?? "").match(/[：:]\s*(.*?)\s*[（(][^（）()]*[）)]\s*$/)?.[1] ?? "";
}

async function act(kind, body, nonce = newNonce()) {
  try {
    const result = await api(kind, { ...body, nonce });
    if (result.ask) {
      haptic.done("warning");
      showSheet(result.ask, (answer) => act(kind, { ...body, answer }, nonce));
      return;
    }
    haptic.done(result.ok ? "success" : "error");
    toast(result.ok ? result.text ?? "✓" : result.reason ?? "");
    refresh();
  } catch (error) {
    failed(error);
  }
}

async function renderChart() {
  const url = S.state.chart;
  if (!url) $("chart-card").hidden = true;
  if (!url || url === S.chartUrl) return;
  S.chartUrl = url;
  try {
    const response = await fetch(url, { headers: { Authorization: `tma ${initData()}` } });
    $("chart-card").hidden = !response.ok; // no chart before a hand is scored
    if (!response.ok) return;
    const old = $("chart").src;
    $("chart").src = URL.createObjectURL(await response.blob());
    if (old.startsWith("blob:")) URL.revokeObjectURL(old);
  } catch {
    S.chartUrl = null; // fetched again with the next state
  }
}

// The tab across nights as `/tab` shows it (`{text}`; a string or a list of rows from older servers).
function renderTab() {
  const tab = S.state.tab;
  const rowText = (row) => (typeof row === "string" ? row : row?.text ?? "");
  const text = Array.isArray(tab) ? tab.map(rowText).join("\n") : rowText(tab);
  $("tab-card").hidden = !text;
  $("tab-text").textContent = text;
}

function renderLive() {
  renderBoard();
  renderLines();
  renderTab();
  renderChart();
}

// -- the state, followed -----------------------------------------------------------------------

function applyState(state) {
  const first = !S.state;
  S.state = state;
  S.version = state.version;
  S.strings = state.strings ?? S.strings;
  if (state.lang) root.lang = state.lang;
  if (first) {
    translateStatic();
    buildKeys();
    renderFlowers();
  }
  renderFlags();
  renderHeader();
  renderPad();
  renderLive();
  if (!first && S.winner != null) preview(); // the logged melds may have changed
  if (state.night?.closed) notice(t("app.pad.closed"));
}

function failed(error) {
  if (error instanceof ApiError && [401, 403, 404, 410].includes(error.status)) {
    S.locked = true;
    notice(error.message);
    haptic.done("error");
    root.classList.add("locked");
    for (const view of document.querySelectorAll(".view")) view.hidden = true;
    $("record").disabled = true;
    mainButton();
    return;
  }
  // the server's own words for a call it could not take; a lost connection is said as one
  toast(error instanceof ApiError && error.status < 500 ? error.message : t("app.pad.offline"));
}

async function refresh() {
  try {
    applyState(await api("state"));
  } catch (error) {
    failed(error);
  }
}

async function follow() {
  let delay = 1000;
  while (!S.locked) {
    try {
      const answer = await api(`live?since=${S.version}`);
      $("live-dot").classList.remove("off");
      delay = 1000;
      if (answer.seats && answer.version !== S.version) applyState(answer);
      else if (answer.version > S.version) await refresh();
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) {
        failed(error);
        return;
      }
      $("live-dot").classList.add("off");
      await sleep(delay);
      delay = Math.min(delay * 2, 15000);
    }
  }
}

function switchView(view) {
  if (S.locked) return;
  S.view = view;
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.view === view));
  }
  $("view-pad").hidden = view !== "pad";
  $("view-live").hidden = view !== "live";
  haptic.pick();
  backButton();
  mainButton();
  window.scrollTo(0, 0);
}

async function loadSprite() {
  try {
    const response = await fetch("tiles.svg");
    $("sprite").innerHTML = await response.text();
  } catch {
    // the tiles stay blank; the keys keep their labels for screen readers
  }
}

function wireTelegram() {
  applyTheme();
  matchMedia("(prefers-color-scheme: dark)").addEventListener?.("change", applyTheme);
  if (!tg) return;
  tg.ready?.();
  tg.expand?.();
  tg.onEvent?.("themeChanged", applyTheme);
  if (tg.MainButton) {
    document.body.classList.add("tg-main");
    tg.MainButton.onClick(() => record());
  }
  tg.BackButton?.onClick(() => ($("sheet").hidden ? switchView("pad") : closeSheet()));
  backButton();
}

async function start() {
  wireTelegram();
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.addEventListener("click", () => switchView(tab.dataset.view));
  }
  $("record").addEventListener("click", () => record());
  $("sheet").addEventListener("click", (event) => event.target === $("sheet") && closeSheet());
  const sprite = loadSprite();
  await refresh();
  await sprite;
  document.body.dataset.ready = "1"; // the page shows itself (app.css), its words and tiles in place
  if (!S.locked) follow();
}

start();
