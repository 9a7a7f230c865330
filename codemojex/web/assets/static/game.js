// codemojex web, a game's page: the board (compose six emoji, submit, the
// score), the history, the leaderboard, the live feed, and the end screen
// once the game is settled.
"use strict";
(function () {
  const { $, el, api, amount, plural, clock, askSignIn, myID, showWallet, wallet, loadFeed, liveFeed, follow } = cmx;
  const body = document.body;
  const game = body.dataset.game;
  let slots = [], cells = [], endsAt = 0, timer = 0, sending = false, view = null, settling = 0;
  // unsent: a guess the outage refused waits in the slots to be sent again.
  let unsent = false;

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
    if (!cmx.token) cmx.say("Sign in to play.");
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
    if (g.status === "settled") await showEnd(g);
    else if (g.status !== "open" || g.time_left_ms <= 0) awaitSettle();
  }
  // A game that stopped taking guesses settles a moment later (the sweep,
  // or the crack's worker): read it again until it has.
  function awaitSettle() {
    $("play").hidden = true;
    $("end").hidden = false;
    $("end-title").textContent = "Time is up";
    $("end-result").textContent = "The game is over: paying the prize…";
    if (settling) return;
    settling = setInterval(() => {
      api("GET", "/api/games/" + encodeURIComponent(game)).then((j) => {
        if (j.game.status === "settled") { clearInterval(settling); settling = 0; board().catch((e) => cmx.failed(e)); }
      }).catch(() => {});
    }, 1000);
  }
  // The end screen: the heading says how the game ended, the line under it
  // what that meant for the prize.
  function endWords(g, names, paid) {
    const top = (g.board || [])[0];
    const lead = top ? (names.get(top.player) || "a player") : "";
    const title = { crack: "Cracked!", timer: "Time is up", operator: "Closed by the operator" }[g.reason] || "Game over";
    let line = {
      crack: lead + " cracked the code: a 600 ends a classic game at once.",
      timer: "The timer ran out: the best total wins.",
      operator: "The operator closed the game early: the best total so far wins.",
    }[g.reason] || "The game is over.";
    if (paid === 0) line += " Nobody scored above 0, so no prize was paid.";
    return { title, line };
  }
  async function showEnd(g) {
    clearInterval(timer); clearInterval(settling); settling = 0;
    $("timeleft").textContent = "ended";
    $("play").hidden = true;
    const end = $("end"); const first = end.hidden || end.dataset.done !== "1";
    end.hidden = false; end.dataset.done = "1";
    const paid = (g.payouts || []).reduce((s, p) => s + p.amount, 0);
    const names = new Map((g.board || []).map((b) => [b.player, b.name]));
    const words = endWords(g, names, paid);
    $("end-title").textContent = words.title;
    $("end-result").textContent = words.line;
    const sec = $("end-secret"); sec.textContent = (g.secret || []).map(glyph).join("");
    sec.setAttribute("aria-label", glyphsLabel(g.secret || []));
    const wl = $("end-winners"); wl.textContent = "";
    for (const p of g.payouts || []) wl.append(el("li", { class: "winner", text: (names.get(p.player) || "a player") + " won " + amount(p.amount, "diamonds") }));
    if (!(g.payouts || []).length) wl.append(el("li", { class: "muted", text: "No winner: nobody scored above 0, so no prize was paid." }));
    const me = myID();
    const rank = (g.board || []).findIndex((b) => b.player === me);
    const mine = (g.payouts || []).find((p) => p.player === me);
    // Placed among everyone who played, not only those who scored.
    const players = Math.max((g.totals && g.totals.players) || 0, (g.board || []).length);
    let you = "";
    if (!cmx.token) you = "Sign in to play the next game.";
    else if (rank < 0) you = g.you && g.you.attempts ? "You did not score above 0 this game." : "You did not play this game.";
    else you = "You placed #" + (rank + 1) + " of " + plural(players, "player", "players") + " with " + g.board[rank].best + " points" + (mine ? " and won " + amount(mine.amount, "diamonds") + "." : ".");
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
    if (first) { wallet().catch(() => {}); if (!end.contains(document.activeElement)) end.focus(); }
  }
  async function nextGame() {
    if (!view) return;
    $("next-msg").textContent = "";
    if (!cmx.token) { askSignIn("Sign in first to play the next game."); return; }
    try { const r = await api("POST", "/api/rooms/" + encodeURIComponent(view.room) + "/join"); location.href = "/web/games/" + encodeURIComponent(r.game); }
    catch (e) {
      $("next-msg").textContent = e.unreachable ? "Not joined: the game is out of reach for a moment. Try again in a few seconds." : "Not joined: " + e.message;
      if (e.unreachable) cmx.lost();
    }
  }
  function tick() {
    if (!endsAt) return;
    const ms = Math.max(0, endsAt - Date.now());
    $("timeleft").textContent = clock(ms);
    if (ms <= 0 && view && view.status === "open") { view.status = "closing"; awaitSettle(); }
  }
  async function history() {
    if (!cmx.token) return;
    const j = await api("GET", "/api/games/" + encodeURIComponent(game) + "/history");
    const list = $("history"); list.textContent = "";
    if (!j.history.length) list.append(el("li", { class: "muted", text: "No guess yet." }));
    // Newest first, numbered from the oldest (the list is reversed).
    for (const g of j.history) {
      list.append(el("li", { class: "hist" }, el("span", { class: "glyphs", role: "img", "aria-label": glyphsLabel(g.codes) }, g.codes.map(glyph).join("")),
        " ", el("span", { text: g.status === "scored" ? (g.sealed ? "sealed until the reveal" : (g.points || 0) + " pts (" + (g.pct || 0) + "%)") : g.status })));
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
      showError(""); unsent = false;
      showWallet(rc.receipt.balance);
      slots = []; drawSlots();
      $("score").textContent = "Scoring…";
      let g = rc.guess;
      for (let i = 0; i < 10 && (!g || g.status === "queued"); i++) {
        g = (await api("GET", "/api/guesses/" + encodeURIComponent(rc.receipt.guess) + "?wait=5s")).guess;
        if (g.status !== "queued") break;
      }
      $("score").textContent = g.status === "scored" ? (g.sealed ? "Scored (sealed until the reveal)" : "You scored " + (g.points || 0) + " points (" + (g.pct || 0) + "%)") : "Guess " + g.status;
      await Promise.all([history(), leaderboard(), wallet()]);
    } catch (e) {
      if (e.unreachable) {
        // The player's words; the page retries and shows the score
        // (or the refund) once the game is back.
        showError("Not sent: the game is out of reach for a moment. Your guess is kept here: submit it again once the page says it is back.");
        unsent = slots.length === 6;
        cmx.lost();
      } else {
        showError("Not sent: " + e.message);
        if (e.code === "closed" || e.code === "expired") board().catch((x) => cmx.failed(x));
      }
    } finally { sending = false; $("submit").textContent = "Submit"; drawSlots(); }
  }

  // Keyboard typing on the board: Backspace removes the last emoji (Enter
  // and Space press the focused button, as on any button).
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    if (ev.key === "Backspace" && slots.length) { slots.pop(); drawSlots(); ev.preventDefault(); }
  });
  $("submit").onclick = submit;
  $("clear").onclick = () => { slots = []; drawSlots(); showError(""); };
  $("next-game").onclick = nextGame;

  cmx.load = async () => {
    await board(); await loadFeed(game);
    showError(unsent && slots.length === 6 ? "The game is back: press Submit to send your guess again." : "");
  };
  cmx.live = () => follow(game, {
    "player-joined": (d) => { $("players").textContent = (parseInt($("players").textContent, 10) || 0) + 1; liveFeed(d); leaderboard().catch(() => {}); },
    "game-started": (d) => { liveFeed(d); leaderboard().catch(() => {}); },
    "guess-scored": (d) => { liveFeed(d); leaderboard().catch(() => {}); },
    "game-settled": (d) => { liveFeed(d); board().catch((e) => cmx.failed(e)); },
  });
})();
