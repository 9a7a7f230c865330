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

  // Lobby.
  async function lobby() {
    const list = $("rooms");
    const j = await api("GET", "/api/rooms");
    list.textContent = "";
    if (!j.rooms.length) list.append(el("li", { class: "muted", text: "No rooms yet." }));
    for (const c of j.rooms) {
      const join = el("button", { type: "button", class: "primary", "aria-label": "Join " + c.name }, "Join");
      join.onclick = async () => {
        if (!token) { say("Sign in first."); $("signin").hidden = false; const n = $("dev-name"); if (n) n.focus(); return; }
        try { const r = await api("POST", "/api/rooms/" + encodeURIComponent(c.room) + "/join"); location.href = "/web/games/" + encodeURIComponent(r.game); }
        catch (e) { say("Could not join: " + e.message); }
      };
      list.append(el("li", { class: "card" },
        el("h2", { text: c.name }),
        el("p", { text: c.set + " · " + c.mode + (c.free ? " · free" : " · fee " + c.fee + " " + c.currency) }),
        el("p", { text: "Prize " + c.prize + " · " + c.players + " playing · " + c.status }),
        join));
    }
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
  let slots = [], cells = [], endsAt = 0, timer = 0;
  function glyph(code) { const c = cells.find((c) => c.code === code); return c ? c.glyph : "?"; }
  function label(c) { return c.name || c.glyph; }
  function drawSlots() {
    const box = $("slots"); box.textContent = "";
    for (let i = 0; i < 6; i++) {
      const code = slots[i];
      const c = cells.find((x) => x.code === code);
      const b = el("button", { type: "button", class: "slot", "data-slot": String(i),
        "aria-label": c ? "Slot " + (i + 1) + ": " + label(c) + ", press to remove" : "Slot " + (i + 1) + ": empty" }, c ? c.glyph : "·");
      b.onclick = () => { if (code !== undefined) { slots.splice(i, 1); drawSlots(); } };
      box.append(b);
    }
    $("submit").disabled = slots.length !== 6;
  }
  async function board() {
    if (!token) { say("Sign in to play."); }
    const j = await api("GET", "/api/games/" + encodeURIComponent(game));
    const g = j.game;
    cells = g.cells;
    $("game-title").textContent = g.set + " · " + g.mode + " game";
    $("prize").textContent = g.prize + " " + (g.currency || "");
    $("players").textContent = g.totals.players;
    endsAt = Date.now() + g.time_left_ms;
    tick(); clearInterval(timer); timer = setInterval(tick, 1000);
    const kb = $("keyboard"); kb.textContent = "";
    for (const c of cells) {
      const b = el("button", { type: "button", class: "key", "data-code": c.code, "aria-label": label(c) }, c.glyph);
      b.onclick = () => { if (slots.length < 6) { slots.push(c.code); drawSlots(); } };
      kb.append(b);
    }
    drawSlots();
    await Promise.all([history(), leaderboard()]);
  }
  function tick() {
    const ms = Math.max(0, endsAt - Date.now());
    const s = Math.floor(ms / 1000);
    $("timeleft").textContent = ms ? Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0") : "ended";
  }
  async function history() {
    if (!token) return;
    const j = await api("GET", "/api/games/" + encodeURIComponent(game) + "/history");
    const list = $("history"); list.textContent = "";
    for (const g of j.history) {
      list.append(el("li", { class: "hist" }, el("span", { class: "glyphs", "aria-label": g.codes.map((c) => { const x = cells.find((y) => y.code === c); return x ? label(x) : c; }).join(", ") }, g.codes.map(glyph).join("")),
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
    const codes = slots.slice();
    $("submit").disabled = true;
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
    } catch (e) { say("Guess failed: " + e.message); drawSlots(); }
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

  // Keyboard typing on the board: Backspace removes the last emoji,
  // Enter submits a full guess.
  document.addEventListener("keydown", (ev) => {
    if (body.dataset.page !== "game" || ev.target.tagName === "INPUT") return;
    if (ev.key === "Backspace" && slots.length) { slots.pop(); drawSlots(); ev.preventDefault(); }
  });

  function render() {
    const page = body.dataset.page;
    const run = page === "lobby" ? lobby : page === "results" ? results : board;
    run().catch((e) => say("Could not load: " + e.message));
  }

  if (body.dataset.page === "game") {
    $("submit").onclick = submit;
    $("clear").onclick = () => { slots = []; drawSlots(); };
    live();
  }
  showWho();
  signInTelegram();
  render();
})();
