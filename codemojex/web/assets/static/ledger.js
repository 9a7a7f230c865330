// codemojex web, the wallet page: the ledger and the diamond→key
// conversion.
"use strict";
(function () {
  const { $, el, api, amount, when, showWallet } = cmx;
  const reasons = { starter: "Starter grant", grant: "Grant", guess: "Guess", refund: "Refund", prize: "Prize", convert: "Conversion" };

  async function load() {
    const rows = $("ledger-rows");
    if (!cmx.token) { $("ledger-signin").hidden = false; rows.textContent = ""; rows.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "Sign in to see your ledger." }))); return; }
    $("ledger-signin").hidden = true;
    const j = await api("GET", "/api/ledger?limit=100");
    rows.textContent = "";
    if (!j.ledger.length) rows.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "Nothing yet." })));
    for (const r of j.ledger) {
      const what = reasons[r.reason] || r.reason;
      const ref = r.ref && r.ref.startsWith("GAM") ? el("a", { href: "/web/games/" + encodeURIComponent(r.ref) }, what + " (game)") : what;
      rows.append(el("tr", { class: "ledger-row", "data-reason": r.reason },
        el("td", { "data-label": "When", text: when(r.at_ms) }), el("td", { "data-label": "What" }, ref),
        el("td", { "data-label": "Change", class: r.delta < 0 ? "minus" : "plus", text: (r.delta > 0 ? "+" : "") + amount(r.delta, r.currency) }),
        el("td", { "data-label": "Balance after", text: amount(r.balance, r.currency) })));
    }
  }
  const conv = $("convert-form");
  conv.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const n = Number($("convert-diamonds").value);
    try {
      const j = await api("POST", "/api/convert", { diamonds: n });
      showWallet(j.balance);
      $("convert-result").textContent = "Converted " + amount(n, "diamonds") + " into " + amount(n / 10, "keys") + ".";
      await load();
    } catch (e) {
      $("convert-result").textContent = e.unreachable ? "Not converted: the game is out of reach for a moment. Try again in a few seconds." : "Not converted: " + e.message;
      if (e.unreachable) cmx.lost();
    }
  });
  cmx.load = load;
})();
