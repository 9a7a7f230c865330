// codemojex web, the lobby: one card per room, updated in place (a
// keyboard user's focus stays on its Join button), each running game
// counting down live.
"use strict";
(function () {
  const { $, el, api, amount, plural, span, clock, serverNow, askSignIn, follow } = cmx;
  const cards = new Map();

  async function joinRoom(c, k) {
    k.msg.textContent = "";
    if (!cmx.token) { askSignIn("Sign in first to join " + c.name + "."); return; }
    try { const r = await api("POST", "/api/rooms/" + encodeURIComponent(c.room) + "/join"); location.href = "/web/games/" + encodeURIComponent(r.game); }
    catch (e) { k.msg.textContent = e.unreachable ? "Not joined: the game is out of reach for a moment. Try again in a few seconds." : "Not joined: " + e.message; }
  }
  function card(c) {
    let k = cards.get(c.room);
    if (!k) {
      k = { name: el("h2"), what: el("p"), length: el("p", { class: "length" }), money: el("p", { class: "money" }), time: el("span", { class: "timeleft", role: "timer" }),
        waiting: el("p", { class: "waiting", text: "No game running: the first to join starts one." }), players: el("p", { class: "players" }),
        join: el("button", { type: "button", class: "primary" }, "Join"), msg: el("p", { class: "error", role: "alert" }) };
      k.running = el("p", { class: "running" }, "Time left: ", k.time);
      k.join.onclick = () => joinRoom(c, k);
      k.li = el("li", { class: "card", id: "room-" + c.room, "data-room": c.room }, k.name, k.what, k.length, k.money, k.running, k.waiting, k.players, k.join, k.msg);
      cards.set(c.room, k);
    }
    k.name.textContent = c.name;
    k.what.textContent = c.set + " · " + c.mode + (c.free ? " · free" : "");
    // A short game says so: it is the way to see a game end right away.
    const quick = c.duration_ms > 0 && c.duration_ms <= 10 * 60000;
    k.length.textContent = c.duration_ms ? span(c.duration_ms) + " games" + (quick ? ": play one to its end right away" : "") : "";
    k.li.classList.toggle("quick", quick);
    k.money.textContent = "Prize " + amount(c.prize, "diamonds") + " · fee " + amount(c.fee, c.currency) + " a guess";
    k.players.textContent = plural(c.players, "player", "players");
    k.join.setAttribute("aria-label", "Join " + c.name);
    const ends = c.status === "active" ? c.ends_ms : 0;
    if (ends !== k.ends) { k.ends = ends; k.ended = false; }
    k.running.hidden = !k.ends; k.waiting.hidden = !!k.ends;
    return k;
  }
  let timers = [];
  function later(...delays) {
    timers.forEach(clearTimeout);
    // The lobby view may fold an event a moment after the feed sees it:
    // read it again a little later too.
    timers = delays.map((ms) => setTimeout(() => load().catch((e) => cmx.failed(e)), ms));
  }
  function tick() {
    for (const k of cards.values()) {
      if (!k.ends) continue;
      const left = k.ends - serverNow();
      k.time.textContent = clock(left);
      // An ended game settles on the next sweep: fetch the room's new state.
      if (left <= 0 && !k.ended) { k.ended = true; later(2000, 6000); }
    }
  }
  async function load() {
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
    tick();
  }
  cmx.load = load;
  cmx.live = () => {
    const again = () => later(300, 1500);
    follow("", { "game-started": again, "player-joined": again, "game-settled": again });
    setInterval(tick, 1000);
  };
})();
