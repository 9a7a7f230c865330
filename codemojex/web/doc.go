// Package web is the browser front of codemojex: server-rendered pages
// (html/template, assets embedded, no build step) whose small scripts call
// the JSON API under /api, a live activity feed over Server-Sent Events
// (/web/events) fed by the views hub, and the Telegram Mini App sign-in
// (POST /web/auth/telegram).
//
// Routes:
//
//	GET  /                     the lobby: room cards and the sign-in
//	GET  /web/games/{id}       a game board
//	GET  /web/results          today's results
//	GET  /web/static/…         scripts and styles
//	GET  /web/events           the live feed (text/event-stream); ?game= filters one game
//	POST /web/auth/telegram    {"init_data": "…"} → {"token", "player"}
package web
