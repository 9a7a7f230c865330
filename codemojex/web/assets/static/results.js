// codemojex web, today's results: one card per settled game, newest
// first, with names, and the recent activity.
"use strict";
(function () {
  const { $, el, api, plural, amount, when, reasonWords, winnersText, loadFeed, liveFeed, follow } = cmx;

  async function load() {
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
  cmx.load = load;
  cmx.live = () => follow("", {
    "guess-scored": liveFeed, "player-joined": liveFeed, "game-started": liveFeed,
    "game-settled": (d) => { liveFeed(d); load().catch((e) => cmx.failed(e)); },
  });
})();
