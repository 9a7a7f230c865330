// codemojex web, on every page: the JSON API (/api/...), the session and
// the header, messages, an engine outage and the activity feed. Each page's
// own script (lobby.js, game.js, results.js, ledger.js) sets cmx.load (read
// what the page shows) and cmx.live (follow the live feed); this one runs
// them once the page is parsed.
"use strict";
window.cmx = (function () {
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const store = window.localStorage;
  const cmx = { $, body, token: store.getItem("cmx.token") || "", load: null, live: null };

  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") n.textContent = v; else n.setAttribute(k, v);
    }
    for (const k of kids) n.append(k);
    return n;
  }
  // say is the page's own message, at the top of the content.
  function say(msg) { $("status").textContent = msg; }
  // A count of a thing: "1 key", "3 keys", "0 winners".
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }
  // An amount of a currency: "1 key", "−3 keys".
  function amount(n, cur) { return (n < 0 ? "−" + -n : n) + " " + (Math.abs(n) === 1 ? String(cur).replace(/s$/, "") : cur); }
  // A game's length as a person says it: "3-minute", "1-hour".
  function span(ms) {
    const m = Math.round(ms / 60000);
    if (m >= 60 && m % 60 === 0) return (m / 60) + "-hour";
    if (m >= 1) return m + "-minute";
    return Math.round(ms / 1000) + "-second";
  }
  // The one date format of every page: the time alone (24-hour) for
  // today, the date first for another day; the device's time zone.
  function when(ms) {
    if (!ms) return "";
    const d = new Date(ms), now = new Date(), pad = (n) => String(n).padStart(2, "0");
    const t = pad(d.getHours()) + ":" + pad(d.getMinutes());
    return d.toDateString() === now.toDateString() ? t : d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + t;
  }

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

  // api calls the JSON API. A refusal throws an Error with the API's code
  // and message; a server or engine out of reach throws one marked
  // unreachable, whose message is the player's, never the engine's.
  async function api(method, path, data) {
    const opts = { method, headers: {} };
    if (cmx.token) opts.headers["Authorization"] = "Bearer " + cmx.token;
    if (data !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(data); }
    let r;
    try { r = await fetch(path, opts); } catch (err) { throw unreachable(); }
    const j = await r.json().catch(() => ({}));
    if (!r.ok) {
      if (r.status === 503 && (!j.error || j.error.code === "unavailable") || r.status === 502 || r.status === 504) throw unreachable();
      if (r.status === 401 && path.startsWith("/api/") && cmx.token) signOut();
      const e = new Error((j.error && j.error.message) || r.statusText);
      e.code = j.error && j.error.code; e.problem = j.problem; e.status = r.status;
      throw e;
    }
    return j;
  }
  function unreachable() {
    const e = new Error("the game is out of reach for a moment");
    e.unreachable = true;
    return e;
  }

  // An outage: the page says so in the player's words, tries again by
  // itself (sooner when the live feed says the engine is back) and, once a
  // load goes through, shows what changed meanwhile, without a reload.
  const outage = { on: false, timer: 0, wait: 0 };
  function lost() {
    if (!outage.on) {
      outage.on = true; outage.wait = 2000;
      const o = $("outage");
      o.textContent = "The game is out of reach for a moment. Your wallet and your guesses are safe: this page reconnects by itself.";
      o.hidden = false;
      body.dataset.outage = "1";
    }
    clearTimeout(outage.timer);
    outage.timer = setTimeout(retry, outage.wait);
    outage.wait = Math.min(outage.wait * 2, 8000);
  }
  function back() {
    if (!outage.on) return;
    outage.on = false; clearTimeout(outage.timer);
    $("outage").hidden = true;
    body.dataset.outage = "0";
    say("Back online: this page is up to date again.");
  }
  async function retry() {
    try { await reload(); back(); }
    catch (e) { if (e.unreachable) lost(); else { back(); say("Could not load: " + e.message); } }
  }
  // failed handles an error of a background read: an outage, or a refusal
  // said at the top of the page.
  function failed(e, what) {
    if (e.unreachable) lost(); else say((what || "Could not load") + ": " + e.message);
  }
  async function reload() {
    if (cmx.load) await cmx.load();
    await wallet();
  }

  // The wallet in the header, on every page: read after each act.
  function showWallet(w) {
    if (!w) return;
    $("w-keys").textContent = amount(w.keys, "keys"); $("w-clips").textContent = amount(w.clips, "clips"); $("w-diamonds").textContent = amount(w.diamonds, "diamonds");
    $("wallet").hidden = false;
    body.dataset.wallet = w.keys + "/" + w.clips + "/" + w.diamonds;
  }
  async function wallet() {
    if (!cmx.token) { $("wallet").hidden = true; return; }
    try { showWallet((await api("GET", "/api/balance")).balance); }
    catch (e) { if (e.unreachable) throw e; /* signed out meanwhile */ }
  }
  const myID = () => store.getItem("cmx.player") || "";

  // The session and the sign-in form; the form's messages sit under it.
  function signinSay(msg) { const m = $("signin-msg"); if (m) m.textContent = msg; }
  function askSignIn(msg) {
    $("signin").hidden = false;
    signinSay(msg);
    const n = $("dev-name");
    if (n) n.focus(); else $("signin").scrollIntoView();
  }
  function signOut() { cmx.token = ""; store.removeItem("cmx.token"); store.removeItem("cmx.name"); store.removeItem("cmx.player"); showWho(); }
  function setSession(j) {
    cmx.token = j.token; store.setItem("cmx.token", cmx.token); store.setItem("cmx.name", j.player.name); store.setItem("cmx.player", j.player.id);
    signinSay("");
    showWho(); render();
    say("Signed in as " + j.player.name + ".");
    // The sign-in form just hid under the focus: move it to the content.
    if (document.activeElement === document.body || $("signin").contains(document.activeElement)) $("main").focus();
  }
  function showWho() {
    const who = $("who"); who.textContent = "";
    $("signin").hidden = !!cmx.token;
    if (!cmx.token) { $("wallet").hidden = true; return; }
    const out = el("button", { type: "button", id: "signout", "aria-label": "Sign out" }, "Sign out");
    out.onclick = () => { api("POST", "/api/auth/signout").catch(() => {}); signOut(); say("Signed out."); };
    const name = store.getItem("cmx.name") || "";
    who.append(el("span", { id: "me", title: name, text: name }), " ", out);
    wallet().catch(() => {});
  }
  // A name the dev sign-in takes: what the engine takes, said before it
  // is sent, and never cut short.
  const nameRE = /^[A-Za-z0-9._-]{1,64}$/;
  const form = $("dev-form");
  if (form) form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const input = $("dev-name"), name = input.value.trim();
    if (!nameRE.test(name)) {
      input.setAttribute("aria-invalid", "true");
      signinSay(!name ? "Type a name to sign in." : name.length > 64
        ? "That name has " + name.length + " characters: a name has at most 64. Nothing was sent."
        : "A name has only letters, digits, “.”, “_” or “-” (no spaces). Nothing was sent.");
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
    try { setSession(await api("POST", "/api/auth/dev", { name })); }
    catch (e) { signinSay(e.unreachable ? "Not signed in: the game is out of reach for a moment. Try again in a few seconds." : "Sign-in failed: " + e.message); }
  });
  async function signInTelegram() {
    // Telegram hands a Mini App its initData in the URL fragment
    // (tgWebAppData), and through telegram-web-app.js when a page loads it.
    const tg = window.Telegram && window.Telegram.WebApp;
    const initData = (tg && tg.initData) || new URLSearchParams(location.hash.slice(1)).get("tgWebAppData") || "";
    if (!initData || cmx.token || body.dataset.telegram !== "true") return;
    try { setSession(await api("POST", "/web/auth/telegram", { init_data: initData })); }
    catch (e) { askSignIn("Telegram sign-in failed: " + e.message); }
  }

  // Words for a settlement's reason.
  function reasonWords(reason, paid) {
    const r = { crack: "cracked", timer: "the timer ran out", operator: "closed by the operator" }[reason] || reason;
    return paid === 0 ? r + ", nobody scored: no prize paid (void)" : r;
  }
  function winnersText(ws) {
    return (ws || []).map((w) => (w.name || "a player") + " +" + amount(w.amount, "diamonds")).join(", ");
  }

  // The activity feed: filled from the recent window on load, then live.
  const feedSeen = new Set();
  function feedKey(d) { return [d.kind, d.game, d.player || "", d.attempt || ""].join("|"); }
  function feedText(d) {
    const who = d.name || "A player";
    switch (d.kind) {
      case "scored": return d.sealed ? who + " made guess " + d.attempt + " (sealed until the reveal)" : who + " scored " + (d.points || 0) + " pts on guess " + d.attempt;
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

  // follow opens the live feed (of one game, or all) with handlers per
  // stream; the engine's outage and return come on it too.
  function follow(game, handlers) {
    const es = new EventSource("/web/events" + (game ? "?game=" + encodeURIComponent(game) : ""));
    for (const [k, fn] of Object.entries(handlers)) es.addEventListener(k, (ev) => fn(JSON.parse(ev.data)));
    es.addEventListener("engine", (ev) => {
      if (JSON.parse(ev.data).up) { if (outage.on) { clearTimeout(outage.timer); retry(); } } else lost();
    });
    es.onopen = () => { body.setAttribute("data-live", "open"); if (outage.on) retry(); };
    // The server itself gone (restarting, or the network): the browser
    // reconnects the stream by itself, and the page says why it is quiet.
    es.onerror = () => {
      if (body.dataset.live === "open" && es.readyState === EventSource.CONNECTING) { body.setAttribute("data-live", "reconnecting"); lost(); }
    };
    return es;
  }

  function render() {
    if (!cmx.load) return;
    cmx.load().then(back).catch((e) => failed(e));
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (cmx.live) cmx.live();
    showWho();
    signInTelegram();
    render();
  });

  return Object.assign(cmx, { el, say, plural, amount, span, when, serverNow, clock, api, lost, failed, showWallet, wallet, myID,
    askSignIn, reasonWords, winnersText, loadFeed, liveFeed, follow, render });
})();
