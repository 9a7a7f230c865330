// codemojex web: small vanilla script over the JSON API (/api/...).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const store = window.localStorage;
  let token = store.getItem("cmx.token") || "";

  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") n.textContent = v; else n.setAttribute(k, v);
    }
    for (const k of kids) n.append(k);
    return n;
  }
  function say(msg) { $("status").textContent = msg; }
  // An amount of a currency: "1 key", "3 keys".
  function amount(n, cur) { return n + " " + (n === 1 ? String(cur).replace(/s$/, "") : cur); }

  // The engine's clock as the page was rendered (data-now): countdowns run
  // from ends_ms, which is on that clock, so a device whose clock is off
  // still counts down right.
  const skew = (Number(body.dataset.now) || Date.now()) - Date.now();
  const serverNow = () => Date.now() + skew;
  function clock(ms) {
    if (ms <= 0) return "ended";
    const s = Math.floor(ms / 1000), pad = (n) => String(n).padStart(2, "0");
    const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
    const hms = (d || h) ? h + ":" + pad(m) + ":" + pad(s % 60) : m + ":" + pad(s % 60);
    return d ? d + "d " + hms : hms;
  }

  async function api(method, path, data) {
    const opts = { method, headers: {} };
    if (token) opts.headers["Authorization"] = "Bearer " + token;
    if (data !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(data); }
    const r = await fetch(path, opts);
    const j = await r.json().catch(() => ({}));
    if (!r.ok) {
      if (r.status === 401 && path.startsWith("/api/") && token) { signOut(); }
      throw new Error((j.error && j.error.message) || r.statusText);
    }
    return j;
  }

  function signOut() { token = ""; store.removeItem("cmx.token"); store.removeItem("cmx.name"); showWho(); }
  function setSession(j) {
    token = j.token; store.setItem("cmx.token", token); store.setItem("cmx.name", j.player.name);
    showWho(); render();
    // The sign-in form just hid under the focus: move it to the content.
    if (document.activeElement === document.body || $("signin").contains(document.activeElement)) $("main").focus();
  }
  function showWho() {
    const who = $("who"); who.textContent = "";
    $("signin").hidden = !!token;
    if (!token) return;
    const out = el("button", { type: "button", id: "signout", "aria-label": "Sign out" }, "Sign out");
    out.onclick = () => { api("POST", "/api/auth/signout").catch(() => {}); signOut(); };
    who.append(el("span", { id: "me", text: store.getItem("cmx.name") || "" }), " ", out);
  }

  async function signInTelegram() {
    // Telegram hands a Mini App its initData in the URL fragment
    // (tgWebAppData), and through telegram-web-app.js when a page loads it.
    const tg = window.Telegram && window.Telegram.WebApp;
    const initData = (tg && tg.initData) || new URLSearchParams(location.hash.slice(1)).get("tgWebAppData") || "";
    if (!initData || token || body.dataset.telegram !== "true") return;
    try { setSession(await api("POST", "/web/auth/telegram", { init_data: initData })); }
    catch (e) { say("Telegram sign-in failed: " + e.message); }
  }

  const form = $("dev-form");
  if (form) form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { setSession(await api("POST", "/api/auth/dev", { name: $("dev-name").value.trim() })); say("Signed in."); }
    catch (e) { say("Sign-in failed: " + e.message); }
  });

  // Lobby: one card per room, updated in place (a keyboard user's focus
  // stays on its Join button), each running game counting down live.
  const cards = new Map();
  async function joinRoom(room) {
    if (!token) { say("Sign in first."); $("signin").hidden = false; const n = $("dev-name"); if (n) n.focus(); return; }
    try { const r = await api("POST", "/api/rooms/" + encodeURIComponent(room) + "/join"); location.href = "/web/games/" + encodeURIComponent(r.game); }
    catch (e) { say("Could not join: " + e.message); }
  }
  function card(c) {
    let k = cards.get(c.room);
    if (!k) {
      k = { name: el("h2"), what: el("p"), money: el("p", { class: "money" }), time: el("span", { class: "timeleft", role: "timer" }),
        waiting: el("p", { class: "waiting", text: "No game running: the first to join starts one." }), players: el("p", { class: "players" }),
        join: el("button", { type: "button", class: "primary" }, "Join") };
      k.running = el("p", { class: "running" }, "Time left: ", k.time);
      k.join.onclick = () => joinRoom(c.room);
      k.li = el("li", { class: "card", "data-room": c.room }, k.name, k.what, k.money, k.running, k.waiting, k.players, k.join);
      cards.set(c.room, k);
    }
    k.name.textContent = c.name;
    k.what.textContent = c.set + " · " + c.mode + (c.free ? " · free" : "");
    k.money.textContent = "Prize " + amount(c.prize, "diamonds") + " · fee " + amount(c.fee, c.currency) + " a guess";
    k.players.textContent = c.players + (c.players === 1 ? " player" : " players");
    k.join.setAttribute("aria-label", "Join " + c.name);
    const ends = c.status === "active" ? c.ends_ms : 0;
    if (ends !== k.ends) { k.ends = ends; k.ended = false; }
    k.running.hidden = !k.ends; k.waiting.hidden = !!k.ends;
    return k;
  }
  let lobbyTimers = [];
  function lobbyLater(...delays) {
    lobbyTimers.forEach(clearTimeout);
    // The lobby view may fold an event a moment after the feed sees it:
    // read it again a little later too.
    lobbyTimers = delays.map((ms) => setTimeout(() => lobby().catch(() => {}), ms));
  }
  function tickLobby() {
    for (const k of cards.values()) {
      if (!k.ends) continue;
      const left = k.ends - serverNow();
      k.time.textContent = clock(left);
      // An ended game settles on the next sweep: fetch the room's new state.
      if (left <= 0 && !k.ended) { k.ended = true; lobbyLater(2000, 6000); }
    }
  }
  async function lobby() {
    const list = $("rooms");
    const j = await api("GET", "/api/rooms");
    const seen = new Set();
    for (const c of j.rooms) {
      const k = card(c); seen.add(c.room);
      if (k.li.parentNode !== list) list.append(k.li);
    }
    for (const [id, k] of cards) if (!seen.has(id)) { k.li.remove(); cards.delete(id); }
    for (const n of list.querySelectorAll("li.muted")) n.remove();
    if (!cards.size) list.append(el("li", { class: "muted", text: "No rooms yet." }));
    tickLobby();
  }
  function liveLobby() {
    const es = new EventSource("/web/events");
    for (const k of ["game-started", "player-joined", "game-settled"]) es.addEventListener(k, () => lobbyLater(300, 1500));
    es.onopen = () => body.setAttribute("data-live", "open");
    setInterval(tickLobby, 1000);
  }

  // Results.
  async function results() {
    const list = $("results");
    const j = await api("GET", "/api/results");
    list.textContent = "";
    if (!j.results.length) list.append(el("li", { class: "muted", text: "No game settled today yet." }));
    for (const r of j.results) {
      const who = (r.winners || []).map((w) => w.player + " +" + w.amount).join(", ") || "no winner";
      list.append(el("li", { text: r.room + " · " + r.reason + " · prize " + r.prize + " · " + r.players + " players · " + who }));
    }
  }

  // Game board.
  const game = body.dataset.game;
  let slots = [], cells = [], endsAt = 0, timer = 0, sending = false;
  function glyph(code) { const c = cells.find((c) => c.code === code); return c ? c.glyph : "?"; }
  // An emoji's accessible name: the set's name for it, else its place.
  function label(c) { return c.name || "emoji " + (cells.indexOf(c) + 1); }
  function drawSlots() {
    const box = $("slots");
    // Redrawing replaces the buttons: keep a keyboard user's focus on the
    // same slot.
    const focused = box.contains(document.activeElement) ? Number(document.activeElement.dataset.slot) : -1;
    box.textContent = "";
    for (let i = 0; i < 6; i++) {
      const code = slots[i];
      const c = cells.find((x) => x.code === code);
      const b = el("button", { type: "button", class: "slot", "data-slot": String(i),
        "aria-label": c ? "Slot " + (i + 1) + ": " + label(c) + ", press to remove" : "Slot " + (i + 1) + ": empty" }, c ? c.glyph : "·");
      if (!c) b.setAttribute("aria-disabled", "true");
      b.onclick = () => { if (code !== undefined) { slots.splice(i, 1); drawSlots(); } };
      box.append(b);
    }
    if (focused >= 0) box.children[focused].focus();
    // aria-disabled, not disabled: the button stays in the tab order, so a
    // keyboard user finds it and hears why it does nothing yet.
    $("submit").setAttribute("aria-disabled", String(slots.length !== 6 || sending));
  }
  async function board() {
    if (!token) { say("Sign in to play."); }
    const j = await api("GET", "/api/games/" + encodeURIComponent(game));
    const g = j.game;
    cells = g.cells;
    $("game-title").textContent = g.set + " · " + g.mode + " game";
    $("prize").textContent = amount(g.prize, "diamonds");
    $("fee").textContent = amount(g.fee, g.currency) + " a guess";
    $("players").textContent = g.totals.players;
    endsAt = Date.now() + g.time_left_ms;
    tick(); clearInterval(timer); timer = setInterval(tick, 1000);
    const kb = $("keyboard"); kb.textContent = "";
    for (const c of cells) {
      const b = el("button", { type: "button", class: "key", "data-code": c.code, "aria-label": label(c) }, c.glyph);
      b.onclick = () => {
        if (slots.length >= 6) { say("Six picked: submit, or remove one first."); return; }
        slots.push(c.code); drawSlots();
        // The guess is whole: Submit is next, not the next of 48 keys.
        if (slots.length === 6) $("submit").focus();
      };
      kb.append(b);
    }
    drawSlots();
    await Promise.all([history(), leaderboard()]);
  }
  function tick() {
    const ms = Math.max(0, endsAt - Date.now());
    $("timeleft").textContent = clock(ms);
  }
  async function history() {
    if (!token) return;
    const j = await api("GET", "/api/games/" + encodeURIComponent(game) + "/history");
    const list = $("history"); list.textContent = "";
    for (const g of j.history) {
      list.append(el("li", { class: "hist" }, el("span", { class: "glyphs", role: "img", "aria-label": g.codes.map((c) => { const x = cells.find((y) => y.code === c); return x ? label(x) : c; }).join(", ") }, g.codes.map(glyph).join("")),
        " ", el("span", { text: g.status === "scored" ? (g.sealed ? "sealed" : g.points + " pts (" + g.pct + "%)") : g.status })));
    }
  }
  async function leaderboard() {
    const j = await api("GET", "/api/games/" + encodeURIComponent(game) + "/leaderboard");
    const list = $("leaderboard"); list.textContent = "";
    if (j.sealed) list.append(el("li", { class: "muted", text: "Sealed until the reveal." }));
    for (const r of j.leaderboard) list.append(el("li", { class: "lb", text: "#" + r.rank + " " + r.name + " — " + r.best + " (" + r.pct + "%)" }));
  }
  async function submit() {
    if (sending) return;
    if (slots.length !== 6) { say("Pick six emoji first."); return; }
    const codes = slots.slice();
    sending = true; drawSlots();
    try {
      const rc = await api("POST", "/api/games/" + encodeURIComponent(game) + "/guess", { codes });
      slots = []; drawSlots();
      $("score").textContent = "Scoring…";
      let g;
      for (let i = 0; i < 10; i++) {
        g = (await api("GET", "/api/guesses/" + encodeURIComponent(rc.receipt.guess) + "?wait=5s")).guess;
        if (g.status !== "queued") break;
      }
      $("score").textContent = g.status === "scored" ? (g.sealed ? "Scored (sealed until the reveal)" : "You scored " + g.points + " points (" + g.pct + "%)") : "Guess " + g.status;
      await Promise.all([history(), leaderboard()]);
    } catch (e) { say("Guess failed: " + e.message); }
    finally { sending = false; drawSlots(); }
  }
  function live() {
    const es = new EventSource("/web/events?game=" + encodeURIComponent(game));
    const onEvent = (ev) => {
      const d = JSON.parse(ev.data);
      let text = d.kind;
      if (d.kind === "guess-scored") text = "A guess scored " + (d.sealed ? "(sealed)" : d.points + " pts") + " (try " + d.attempt + ")";
      if (d.kind === "player-joined") {
        text = (d.name || "A player") + " joined";
        $("players").textContent = (parseInt($("players").textContent, 10) || 0) + 1;
      }
      if (d.kind === "game-settled") text = "Game settled: " + d.reason + ", prize " + d.prize;
      if (d.kind === "game-started") text = "Game started";
      const feed = $("feed");
      feed.prepend(el("li", { class: "feed-item", text }));
      while (feed.children.length > 30) feed.lastChild.remove();
      leaderboard().catch(() => {});
    };
    for (const k of ["guess-scored", "player-joined", "game-settled", "game-started"]) es.addEventListener(k, onEvent);
    es.onopen = () => body.setAttribute("data-live", "open");
  }

  // Keyboard typing on the board: Backspace removes the last emoji (Enter
  // and Space press the focused button, as on any button).
  document.addEventListener("keydown", (ev) => {
    if (body.dataset.page !== "game" || ev.target.tagName === "INPUT") return;
    if (ev.key === "Backspace" && slots.length) { slots.pop(); drawSlots(); ev.preventDefault(); }
  });

  function render() {
    const page = body.dataset.page;
    const run = page === "lobby" ? lobby : page === "results" ? results : board;
    run().catch((e) => say("Could not load: " + e.message));
  }

  if (body.dataset.page === "lobby") liveLobby();
  if (body.dataset.page === "game") {
    $("submit").onclick = submit;
    $("clear").onclick = () => { slots = []; drawSlots(); };
    live();
  }
  showWho();
  signInTelegram();
  render();
})();
