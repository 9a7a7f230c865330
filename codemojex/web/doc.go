// Package web is the browser front of codemojex: server-rendered pages
// (html/template, assets embedded, no build step) whose small scripts call
// the JSON API under /api, a live activity feed over Server-Sent Events
// (/web/events) fed by the views hub, and the Telegram Mini App sign-in
// (POST /web/auth/telegram).
//
// Every control is a button, link or input, named by its text, a label or
// aria-label (an emoji key by the set's name for it, else "emoji N"), and
// reachable by Tab; disabled controls use aria-disabled so they stay in
// the tab order. The score is a status region and the live feed a log
// region, both polite. Every page shows the signed-in player's wallet and
// a how-to-play panel; a game's page turns into its end screen once it is
// settled. The lobby's cards update in place (focus stays put)
// and count a running game down from its ends_ms, on the engine's clock
// the page carries in data-now.
//
// An engine out of reach is said in the player's words, never the
// engine's: the event streams send "engine" events ({"up": false}, then
// {"up": true}) from a shared probe, and a page tries its reads again by
// itself until they go through. An unknown game or route answers 404 with
// a page in the app's layout.
//
// Routes:
//
//	GET  /                     the lobby: room cards and the sign-in
//	GET  /web/games/{id}       a game board
//	GET  /web/results          today's results, and the recent activity
//	GET  /web/ledger           the player's wallet: the ledger and the diamond→key conversion
//	GET  /web/static/…         scripts (common.js and one per page) and styles (base.css, shared with the dashboard, then app.css)
//	GET  /favicon.ico          the icon
//	GET  /web/events           the live feed (text/event-stream); ?game= filters one game; each event's id is its notice's
//	POST /web/auth/telegram    {"init_data": "…"} → {"token", "player"}
package web
