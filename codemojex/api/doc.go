// Package api is the JSON API of codemojex over net/http (Go 1.22 routing
// patterns): the lobby, game views, leaderboards, the feed and the results
// for anyone; join, guess, history, balance and conversion for a signed-in
// player (a bearer session token); room creation, grants, closes and sweeps
// for the operator (a bearer operator token).
//
// Errors are JSON bodies {"error": {"code", "message"}} with the status of
// their kind: 400 bad_request (a malformed body or parameter, a bad
// argument), 401 unauthorized, 402 insufficient, 403 not_member,
// 404 not_found, 409 closed or expired, 422 bad_guess (with the rules'
// message: what is wrong and at which position), 503 unavailable.
//
// Sign-in: POST /api/auth/dev trusts the name it is given (development and
// demos; off unless Config.DevSignIn). Other sign-in methods call
// [codemojex.Engine.SignIn] with their own verified [codemojex.Identity]
// and hand back the same session token.
package api
