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
      const e = new Error((j.error && j.error.message) || r.statusText);
      e.code = j.error && j.error.code; e.problem = j.problem; e.status = r.status;
      throw e;
    }
    return j;
  }

  // The wallet in the header, on every page: read after each act.
  function showWallet(w) {
    if (!w) return;
    $("w-keys").textContent = w.keys; $("w-clips").textContent = w.clips; $("w-diamonds").textContent = w.diamonds;
    $("wallet").hidden = false;
    body.dataset.wallet = w.keys + "/" + w.clips + "/" + w.diamonds;
  }
  async function wallet() {
    if (!token) { $("wallet").hidden = true; return; }
    try { showWallet((await api("GET", "/api/balance")).balance); } catch (e) { /* signed out, or later */ }
  }
  const myID = () => store.getItem("cmx.player") || "";
  // Words for a settlement's reason.
  function reasonWords(reason, paid) {
    const r = { crack: "cracked", timer: "the timer ran out", operator: "closed by the operator" }[reason] || reason;
    return paid === 0 ? r + ", nobody scored: no prize paid (void)" : r;
  }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }
  function winnersText(ws) {
    return (ws || []).map((w) => (w.name || "a player") + " +" + amount(w.amount, "diamonds")).join(", ");
  }
  function when(ms) { return ms ? new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : ""; }

  function signOut() { token = ""; store.removeItem("cmx.token"); store.removeItem("cmx.name"); store.removeItem("cmx.player"); showWho(); }
  function setSession(j) {
    token = j.token; store.setItem("cmx.token", token); store.setItem("cmx.name", j.player.name); store.setItem("cmx.player", j.player.id);
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
    wallet();
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
      k.li = el("li", { class: "card", id: "room-" + c.room, "data-room": c.room }, k.name, k.what, k.money, k.running, k.waiting, k.players, k.join);
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

  // Results: one card per settled game, newest first, with names.
  async function results() {
    const list = $("results");
    const j = await api("GET", "/api/results");
    list.textContent = "";
    if (!j.results.length) list.append(el("li", { class: "muted", text: "No game settled today yet." }));
    for (const r of j.results) {
      const title = el("h2", {}, el("a", { href: "/web/games/" + encodeURIComponent(r.game), class: "result-link" }, (r.room_name || "A room") + " · " + r.mode + " game"));
      const won = r.winners.length ? "Won by " + winnersText(r.winners) : "No winner: nobody scored";
      list.append(el("li", { class: "result", "data-game": r.game }, title,
        el("p", { class: "result-how", text: "Ended " + when(r.settled_ms) + ": " + reasonWords(r.reason, r.paid) + "." }),
        el("p", { class: "result-won", text: won + "." }),
        el("p", { class: "muted", text: plural(r.players, "player", "players") + " · " + plural(r.guesses, "guess", "guesses") + " · best " + r.best + " of 600 · prize " + amount(r.prize, "diamonds") })));
    }
    await loadFeed("");
  }

  // The activity feed: filled from the recent window on load, then live.
  const feedSeen = new Set();
  function feedKey(d) { return [d.kind, d.game, d.player || "", d.attempt || ""].join("|"); }
  function feedText(d) {
    const who = d.name || "A player";
    switch (d.kind) {
      case "scored": return d.sealed ? who + " made guess " + d.attempt + " (sealed until the reveal)" : who + " scored " + d.points + " pts on guess " + d.attempt;
      case "settled": return (d.room_name ? d.room_name + ": " : "") + "game over, " + reasonWords(d.reason, Number(d.paid)) + (d.winners && d.winners.length ? "; won by " + winnersText(d.winners) : "");
      case "joined": return who + " joined";
      case "started": return who + " started a game" + (d.room_name ? " in " + d.room_name : "");
    }
    return d.kind;
  }
  // Live notices name their stream; the feed's items their kind.
  const kinds = { "guess-scored": "scored", "game-settled": "settled", "player-joined": "joined", "game-started": "started" };
  function feedItem(d, newest) {
    const feed = $("feed");
    if (!feed) return;
    const k = feedKey(d);
    if (feedSeen.has(k)) return;
    feedSeen.add(k);
    const text = feedText(d);
    const li = el("li", { class: "feed-item", "data-kind": d.kind });
    if (body.dataset.page !== "game" && d.game) li.append(el("a", { href: "/web/games/" + encodeURIComponent(d.game) }, text));
    else li.append(text);
    if (d.at_ms) li.append(el("span", { class: "muted", text: " · " + when(d.at_ms) }));
    if (newest) feed.prepend(li); else feed.append(li);
    while (feed.children.length > 30) feed.lastChild.remove();
  }
  async function loadFeed(game) {
    const j = await api("GET", "/api/feed?window=24h&limit=30" + (game ? "&game=" + encodeURIComponent(game) : ""));
    for (const d of j.feed) feedItem(d, false); // newest first already
  }
  function liveFeed(d) {
    d.kind = kinds[d.kind] || d.kind;
    for (const k of ["attempt", "points", "pct", "paid", "prize", "at_ms"]) if (d[k] !== undefined) d[k] = Number(d[k]);
    d.sealed = d.sealed === "1" || d.sealed === true;
    feedItem(d, true);
  }

  // Game board.
  const game = body.dataset.game;
  let slots = [], cells = [], endsAt = 0, timer = 0, sending = false, view = null, settling = 0;
  function cellOf(code) { return cells.find((c) => c.code === code); }
  function glyph(code) { const c = cellOf(code); return c ? c.glyph : "?"; }
  // An emoji's accessible name: the set's name for it, else its place.
  function label(c) { return c.name || "emoji " + (cells.indexOf(c) + 1); }
  function glyphsLabel(codes) { return codes.map((c) => { const x = cellOf(c); return x ? label(x) : c; }).join(", "); }
  function showError(msg) { $("guess-error").textContent = msg; }
  function drawSlots() {
    const box = $("slots");
    // Redrawing replaces the buttons: keep a keyboard user's focus on the
    // same slot.
    const focused = box.contains(document.activeElement) ? Number(document.activeElement.dataset.slot) : -1;
    box.textContent = "";
    for (let i = 0; i < 6; i++) {
      const code = slots[i];
      const c = cellOf(code);
      const b = el("button", { type: "button", class: "slot", "data-slot": String(i),
        "aria-label": c ? "Slot " + (i + 1) + ": " + label(c) + ", press to remove" : "Slot " + (i + 1) + ": empty" }, c ? c.glyph : "·");
      if (!c) b.setAttribute("aria-disabled", "true");
      b.onclick = () => { if (code !== undefined) { slots.splice(i, 1); drawSlots(); } };
      box.append(b);
    }
    if (focused >= 0) box.children[Math.min(focused, 5)].focus();
    // aria-disabled, not disabled: the button stays in the tab order, so a
    // keyboard user finds it and hears why it does nothing yet.
    $("submit").setAttribute("aria-disabled", String(slots.length !== 6 || sending));
    // Keys already in the guess are marked, and picking one again is
    // refused on the spot: a guess never holds an emoji twice.
    for (const b of $("keyboard").children) {
      const at = slots.indexOf(b.dataset.code);
      const c = cellOf(b.dataset.code);
      b.classList.toggle("used", at >= 0);
      b.setAttribute("aria-pressed", String(at >= 0));
      b.setAttribute("aria-label", at >= 0 ? label(c) + ", in place " + (at + 1) : label(c));
    }
  }
  function pick(c) {
    const at = slots.indexOf(c.code);
    if (at >= 0) { showError(c.glyph + " is already in place " + (at + 1) + ": each emoji may be used once. Press its slot to remove it."); return; }
    if (slots.length >= 6) { showError("Six picked: submit, or press a slot to remove one."); return; }
    showError("");
    slots.push(c.code); drawSlots();
    // The guess is whole: Submit is next, not the next of 48 keys.
    if (slots.length === 6) $("submit").focus();
  }
  async function board() {
    if (!token) { say("Sign in to play."); }
    const j = await api("GET", "/api/games/" + encodeURIComponent(game));
    const g = view = j.game;
    cells = g.cells;
    $("game-title").textContent = (g.room_name ? g.room_name + " · " : "") + g.set + " · " + g.mode + " game";
    const rl = $("room-link"); rl.textContent = "← " + (g.room_name || "Lobby"); rl.href = "/#room-" + g.room;
    $("prize").textContent = amount(g.prize, "diamonds");
    $("fee").textContent = amount(g.fee, g.currency) + " a guess";
    $("players").textContent = g.totals.players;
    if (g.commitment) { $("commitment-line").hidden = false; $("commitment").textContent = g.commitment; }
    endsAt = Date.now() + g.time_left_ms;
    if (g.status !== "open") endsAt = 0;
    tick(); clearInterval(timer); timer = setInterval(tick, 1000);
    if (!$("keyboard").children.length) {
      for (const c of cells) {
        const b = el("button", { type: "button", class: "key", "data-code": c.code, "aria-label": label(c), "aria-pressed": "false" }, c.glyph);
        b.onclick = () => pick(c);
        $("keyboard").append(b);
      }
    }
    drawSlots();
    await Promise.all([history(), leaderboard()]);
    if (g.status === "settled") showEnd(g);
    else if (g.status !== "open" || g.time_left_ms <= 0) awaitSettle();
  }
  // A game that stopped taking guesses settles a moment later (the sweep,
  // or the crack's worker): read it again until it has.
  function awaitSettle() {
    $("play").hidden = true;
    $("end").hidden = false;
    $("end-title").textContent = "Game over";
    $("end-result").textContent = "Time is up: paying the prize…";
    if (settling) return;
    settling = setInterval(() => {
      api("GET", "/api/games/" + encodeURIComponent(game)).then((j) => {
        if (j.game.status === "settled") { clearInterval(settling); settling = 0; board().catch(() => {}); }
      }).catch(() => {});
    }, 1000);
  }
  async function showEnd(g) {
    clearInterval(timer); clearInterval(settling); settling = 0;
    $("timeleft").textContent = "ended";
    $("play").hidden = true;
    const end = $("end"); const first = end.hidden || end.dataset.done !== "1";
    end.hidden = false; end.dataset.done = "1";
    const paid = (g.payouts || []).reduce((s, p) => s + p.amount, 0);
    $("end-title").textContent = g.reason === "crack" ? "Cracked!" : "Game over";
    $("end-result").textContent = "Result: " + reasonWords(g.reason, paid) + ".";
    const sec = $("end-secret"); sec.textContent = (g.secret || []).map(glyph).join("");
    sec.setAttribute("aria-label", glyphsLabel(g.secret || []));
    const names = new Map((g.board || []).map((b) => [b.player, b.name]));
    const wl = $("end-winners"); wl.textContent = "";
    for (const p of g.payouts || []) wl.append(el("li", { class: "winner", text: (names.get(p.player) || "a player") + " won " + amount(p.amount, "diamonds") }));
    if (!(g.payouts || []).length) wl.append(el("li", { class: "muted", text: "No winner: nobody scored above 0, so no prize was paid." }));
    const me = myID();
    const rank = (g.board || []).findIndex((b) => b.player === me);
    const mine = (g.payouts || []).find((p) => p.player === me);
    let you = "";
    if (!token) you = "Sign in to play the next game.";
    else if (rank < 0) you = g.you && g.you.attempts ? "You did not score above 0 this game." : "You did not play this game.";
    else you = "You placed #" + (rank + 1) + " of " + g.board.length + " with " + g.board[rank].best + " points" + (mine ? " and won " + amount(mine.amount, "diamonds") + "." : ".");
    $("end-you").textContent = you;
    $("end-blind").hidden = !g.check;
    if (g.check) {
      $("end-commitment").textContent = g.commitment;
      $("end-salt").textContent = g.salt;
      $("end-formula").textContent = g.check.formula;
      $("end-recomputed").textContent = g.check.recomputed;
      $("end-command").textContent = g.check.command;
      let verdict = g.check.matches ? "matches the commitment ✓" : "does NOT match the commitment ✗";
      // The browser recomputes it too, where it can (secure pages only).
      if (window.crypto && crypto.subtle) {
        try {
          const bytes = new TextEncoder().encode(g.secret.join("\x1e") + "\x1e" + g.salt);
          const h = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))).map((x) => x.toString(16).padStart(2, "0")).join("");
          verdict += h === g.commitment ? "; your browser recomputed it and agrees" : "; your browser recomputed " + h + " and disagrees";
        } catch (e) { /* no digest here: the server's check stands */ }
      }
      $("end-verdict").textContent = verdict;
    }
    if (first) { wallet(); if (!end.contains(document.activeElement)) end.focus(); }
  }
  async function nextGame() {
    if (!view) return;
    if (!token) { say("Sign in first."); $("signin").hidden = false; const n = $("dev-name"); if (n) n.focus(); return; }
    try { const r = await api("POST", "/api/rooms/" + encodeURIComponent(view.room) + "/join"); location.href = "/web/games/" + encodeURIComponent(r.game); }
    catch (e) { say("Could not join: " + e.message); }
  }
  function tick() {
    if (!endsAt) return;
    const ms = Math.max(0, endsAt - Date.now());
    $("timeleft").textContent = clock(ms);
    if (ms <= 0 && view && view.status === "open") { view.status = "closing"; awaitSettle(); }
  }
  async function history() {
    if (!token) return;
    const j = await api("GET", "/api/games/" + encodeURIComponent(game) + "/history");
    const list = $("history"); list.textContent = "";
    if (!j.history.length) list.append(el("li", { class: "muted", text: "No guess yet." }));
    // Newest first, numbered from the oldest (the list is reversed).
    for (const g of j.history) {
      list.append(el("li", { class: "hist" }, el("span", { class: "glyphs", role: "img", "aria-label": glyphsLabel(g.codes) }, g.codes.map(glyph).join("")),
        " ", el("span", { text: g.status === "scored" ? (g.sealed ? "sealed until the reveal" : g.points + " pts (" + g.pct + "%)") : g.status })));
    }
  }
  async function leaderboard() {
    const j = await api("GET", "/api/games/" + encodeURIComponent(game) + "/leaderboard");
    const list = $("leaderboard"); list.textContent = "";
    if (j.sealed) list.append(el("li", { class: "muted", text: "Sealed until the reveal." }));
    else if (!j.leaderboard.length) list.append(el("li", { class: "muted", text: "Nobody has scored yet." }));
    const me = myID();
    for (const r of j.leaderboard) list.append(el("li", { class: "lb" + (r.player === me ? " me" : "") }, r.name + (r.player === me ? " (you)" : "") + " — " + r.best + " pts (" + r.pct + "%)"));
  }
  async function submit() {
    if (sending) return;
    if (slots.length !== 6) { showError("Pick six different emoji first (" + slots.length + " of 6)."); return; }
    const codes = slots.slice();
    sending = true; drawSlots();
    $("submit").textContent = "Sending…";
    try {
      const rc = await api("POST", "/api/games/" + encodeURIComponent(game) + "/guess?wait=5s", { codes });
      showError("");
      showWallet(rc.receipt.balance);
      slots = []; drawSlots();
      $("score").textContent = "Scoring…";
      let g = rc.guess;
      for (let i = 0; i < 10 && (!g || g.status === "queued"); i++) {
        g = (await api("GET", "/api/guesses/" + encodeURIComponent(rc.receipt.guess) + "?wait=5s")).guess;
        if (g.status !== "queued") break;
      }
      $("score").textContent = g.status === "scored" ? (g.sealed ? "Scored (sealed until the reveal)" : "You scored " + g.points + " points (" + g.pct + "%)") : "Guess " + g.status;
      await Promise.all([history(), leaderboard(), wallet()]);
    } catch (e) {
      showError("Not sent: " + e.message);
      if (e.code === "closed" || e.code === "expired") board().catch(() => {});
    } finally { sending = false; $("submit").textContent = "Submit"; drawSlots(); }
  }
  function live() {
    const es = new EventSource("/web/events?game=" + encodeURIComponent(game));
    const onEvent = (ev) => {
      const d = JSON.parse(ev.data);
      if (d.kind === "player-joined") $("players").textContent = (parseInt($("players").textContent, 10) || 0) + 1;
      liveFeed(d);
      if (d.kind === "settled") board().catch(() => {});
      else leaderboard().catch(() => {});
    };
    for (const k of ["guess-scored", "player-joined", "game-settled", "game-started"]) es.addEventListener(k, onEvent);
    es.onopen = () => body.setAttribute("data-live", "open");
  }
  function liveResults() {
    const es = new EventSource("/web/events");
    es.addEventListener("guess-scored", (ev) => liveFeed(JSON.parse(ev.data)));
    es.addEventListener("game-settled", (ev) => { liveFeed(JSON.parse(ev.data)); results().catch(() => {}); });
    es.onopen = () => body.setAttribute("data-live", "open");
  }

  // The wallet page: the ledger and the diamond→key conversion.
  const reasons = { starter: "Starter grant", grant: "Grant", guess: "Guess", refund: "Refund", prize: "Prize", convert: "Conversion" };
  async function ledger() {
    const rows = $("ledger-rows");
    if (!token) { $("ledger-signin").hidden = false; rows.textContent = ""; rows.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "Sign in to see your ledger." }))); return; }
    $("ledger-signin").hidden = true;
    const j = await api("GET", "/api/ledger?limit=100");
    rows.textContent = "";
    if (!j.ledger.length) rows.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "Nothing yet." })));
    for (const r of j.ledger) {
      const what = reasons[r.reason] || r.reason;
      const ref = r.ref && r.ref.startsWith("GAM") ? el("a", { href: "/web/games/" + encodeURIComponent(r.ref) }, what + " (game)") : what;
      rows.append(el("tr", { class: "ledger-row", "data-reason": r.reason },
        el("td", { text: new Date(r.at_ms).toLocaleString() }), el("td", {}, ref),
        el("td", { class: r.delta < 0 ? "minus" : "plus", text: (r.delta > 0 ? "+" : "") + r.delta + " " + r.currency }),
        el("td", { text: amount(r.balance, r.currency) })));
    }
  }
  const conv = $("convert-form");
  if (conv) conv.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const n = Number($("convert-diamonds").value);
    try {
      const j = await api("POST", "/api/convert", { diamonds: n });
      showWallet(j.balance);
      $("convert-result").textContent = "Converted " + amount(n, "diamonds") + " into " + amount(n / 10, "keys") + ".";
      await ledger();
    } catch (e) { $("convert-result").textContent = "Not converted: " + e.message; }
  });

  // Keyboard typing on the board: Backspace removes the last emoji (Enter
  // and Space press the focused button, as on any button).
  document.addEventListener("keydown", (ev) => {
    if (body.dataset.page !== "game" || ev.target.tagName === "INPUT") return;
    if (ev.key === "Backspace" && slots.length) { slots.pop(); drawSlots(); ev.preventDefault(); }
  });

  function render() {
    const page = body.dataset.page;
    const run = { lobby, results, ledger, game: board }[page];
    run().catch((e) => say("Could not load: " + e.message));
    if (page === "game") loadFeed(game).catch(() => {});
  }

  if (body.dataset.page === "lobby") liveLobby();
  if (body.dataset.page === "results") liveResults();
  if (body.dataset.page === "game") {
    $("submit").onclick = submit;
    $("clear").onclick = () => { slots = []; drawSlots(); showError(""); };
    $("next-game").onclick = nextGame;
    live();
  }
  showWho();
  signInTelegram();
  render();
})();
