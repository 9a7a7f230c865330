// Package operator is the operator's web pages of codemojex: server-rendered
// forms (html/template, assets embedded, no script, no build step) to create
// rooms, close running games and grant balances, over the engine's own
// calls ([codemojex.Engine.CreateRoom], [codemojex.Engine.Close],
// [codemojex.Engine.Grant]).
//
// Mount the [Handler] at /op/ next to the JSON API:
//
//	ops, err := operator.New(eng, operator.Config{OperatorToken: token})
//	if err != nil {
//		return err
//	}
//	mux.Handle("/op/", ops)
//
// Routes:
//
//	GET  /op/                   → /op/rooms
//	GET  /op/signin             the sign-in form (the operator token)
//	POST /op/signin             token → session cookie, then the page asked for
//	POST /op/signout            ends the session
//	GET  /op/rooms              rooms, their running games, the create-room form
//	POST /op/rooms              create a room
//	POST /op/games/{id}/close   close a running game now (and settle it)
//	GET  /op/players?player=    find a player: name, wallet, newest ledger rows
//	POST /op/grant              grant keys, clips or diamonds to a player
//	GET  /op/static/…           the style sheets (base.css, shared with the dashboard, then op.css)
//
// # Sessions
//
// Signing in compares the operator token in constant time and sets an
// HttpOnly, SameSite=Strict cookie scoped to /op/ that holds an expiry, a
// random nonce and their HMAC under a key derived from the token: never the
// token itself. Every server holding the same token accepts the cookie until
// it expires ([Config.SessionTTL]); changing the token ends every session,
// and signing out revokes the session in the process that served it. A
// sign-in or form the browser marks cross-site is refused (403). The
// design is the one the dashboard shares (module webkit).
//
// # Forms
//
// Every POST but the sign-in carries a per-session CSRF token in a hidden
// field (an HMAC of the session's nonce), checked in constant time: a
// missing or wrong one is a 403 and changes nothing. A POST the engine
// accepts redirects (303) to a page that shows the outcome once; one it
// refuses (a bad room spec, an unknown player or game, a bad amount, a game
// closed already) renders the page again with the engine's message, the
// form as it was sent and a 4xx status, and nothing was written.
package operator
