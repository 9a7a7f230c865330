// EchoMQ dashboard: live updates over Server-Sent Events, and a confirm
// step for forms that ask for one. The pages work without it.
(() => {
  "use strict";
  const body = document.body;
  document.addEventListener("submit", (e) => {
    const msg = e.target.dataset && e.target.dataset.confirm;
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
  // On a phone every table is one card per row: each cell names its
  // column, taken from the table's head where the template did not.
  for (const table of document.querySelectorAll("main table")) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    for (const tr of table.querySelectorAll("tbody tr")) {
      [...tr.children].forEach((cell, i) => { if (!cell.dataset.label && heads[i] && cell.colSpan === 1) cell.dataset.label = heads[i]; });
    }
  }
  // A page shown while the engine is unreachable reloads itself.
  const retry = Number(body.dataset.retry);
  if (retry > 0) window.setTimeout(() => window.location.reload(), retry * 1000);
  const notice = document.getElementById("engine-state");
  const url = body.dataset.events;
  const state = document.getElementById("live-state");
  const say = (s, text) => { body.dataset.live = s; if (state) { state.dataset.state = s; state.textContent = text; } };
  if (!url || !window.EventSource) return;
  // The same geometry as the server's chart (chart.go).
  const W = 150, H = 32;
  const points = (counts) => {
    const top = Math.max(1, ...counts);
    return counts.map((c, i) => (i * W / Math.max(counts.length - 1, 1)).toFixed(1) + "," + (H - 2 - c * (H - 4) / top).toFixed(1)).join(" ");
  };
  const set = (id, field, value) => {
    for (const el of document.querySelectorAll("[data-live]")) {
      if (el.dataset.live === id && el.dataset.field === field && el.textContent !== String(value)) el.textContent = value;
    }
  };
  const chart = (id, counts) => {
    for (const svg of document.querySelectorAll("svg[data-chart]")) {
      if (svg.dataset.chart !== id) continue;
      svg.querySelector("polyline").setAttribute("points", points(counts));
      const label = "Events per minute over the last " + counts.length + " minutes, oldest first: " + counts.join(", ");
      svg.setAttribute("aria-label", label);
      svg.querySelector("title").textContent = label;
    }
  };
  const es = new EventSource(url);
  say("connecting", "Live updates: connecting…");
  es.addEventListener("stats", (ev) => {
    const u = JSON.parse(ev.data);
    if (notice) {
      notice.hidden = !u.unreachable;
      notice.textContent = u.unreachable || "";
    }
    for (const s of u.streams || []) {
      // A row whose read failed shows no number rather than a zero.
      set(s.id, "length", s.err ? "—" : s.length);
      set(s.id, "rate", s.err ? "—" : s.per_minute);
      set(s.id, "last", s.err ? "—" : s.last);
      set(s.id, "dead", s.err ? "—" : s.dead);
      if (!s.err) chart(s.id, s.buckets);
    }
    say("open", "Live updates: on, last at " + u.at);
  });
  es.addEventListener("shutdown", () => { es.close(); say("closed", "Live updates: the server is shutting down; reload later."); });
  es.onerror = () => say("retrying", "Live updates: reconnecting…");
})();
