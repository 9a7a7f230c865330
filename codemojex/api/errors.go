package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
)

// ErrorBody is the JSON body of every error response:
//
//	{"error": {"code": "insufficient", "message": "…"}}
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong: a stable code to branch on and a
// message fit to show.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes and their statuses.
const (
	CodeBadRequest   = "bad_request"  // 400
	CodeUnauthorized = "unauthorized" // 401
	CodeInsufficient = "insufficient" // 402
	CodeNotMember    = "not_member"   // 403
	CodeNotFound     = "not_found"    // 404
	// CodeMethodNotAllowed answers a route asked with a method it does not
	// take; the Allow header lists those it does.
	CodeMethodNotAllowed = "method_not_allowed" // 405
	CodeClosed           = "closed"             // 409
	CodeExpired          = "expired"            // 409
	// CodeOtherShard refused a join of a room of another shard than the
	// player's wallet. Deprecated: a player joins the rooms of every shard
	// (docs/codemojex.md, "Wallets across shards"); nothing answers it.
	CodeOtherShard  = "other_shard" // 409
	CodeBadGuess    = "bad_guess"   // 422
	CodeUnavailable = "unavailable" // 503
	CodeInternal    = "internal"    // 500
)

// statusOf maps an engine error to its status and code.
func statusOf(err error) (int, string) {
	switch {
	case errors.Is(err, codemojex.ErrNotFound):
		return http.StatusNotFound, CodeNotFound
	case errors.Is(err, codemojex.ErrInsufficient):
		return http.StatusPaymentRequired, CodeInsufficient
	case errors.Is(err, codemojex.ErrExpired):
		return http.StatusConflict, CodeExpired
	case errors.Is(err, codemojex.ErrClosed), errors.Is(err, codemojex.ErrAlreadyClosed):
		return http.StatusConflict, CodeClosed
	case errors.Is(err, rules.ErrBadGuess):
		return http.StatusUnprocessableEntity, CodeBadGuess
	case errors.Is(err, codemojex.ErrNotMember):
		return http.StatusForbidden, CodeNotMember
	case errors.Is(err, codemojex.ErrUnauthorized):
		return http.StatusUnauthorized, CodeUnauthorized
	case errors.Is(err, echomq.ErrInvalidArgument):
		return http.StatusBadRequest, CodeBadRequest
	case errors.Is(err, codemojex.ErrUnavailable), errors.Is(err, echomq.ErrUnavailable), errors.Is(err, echomq.ErrConflict),
		errors.Is(err, echomq.ErrEngineFull):
		// The engine out of reach (restarting, paused, partitioned) or
		// full (until the archive or retention frees memory) is a 503 the
		// client may retry later, not an internal error.
		return http.StatusServiceUnavailable, CodeUnavailable
	}
	return http.StatusInternalServerError, CodeInternal
}

// UnavailableMessage is the message of every 503 answer: the engine's own
// error names its transport and address, which are the server's business,
// not the player's.
const UnavailableMessage = "the game is out of reach for a moment: try again in a few seconds"

// messageOf is the text shown for err: the engine's message without its
// package prefix; never the text of an internal error, nor of an engine
// out of reach.
func messageOf(err error, code string) string {
	switch code {
	case CodeInternal:
		return "internal error"
	case CodeUnavailable:
		return UnavailableMessage
	}
	msg := err.Error()
	for _, p := range []string{"codemojex: ", "echomq: ", "rules: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, code := statusOf(err)
	switch status {
	case http.StatusInternalServerError:
		s.log.Error("codemojex api", "method", r.Method, "path", r.URL.Path, "err", err)
	case http.StatusServiceUnavailable:
		// The engine's outage is logged by the parts that ride it out; a
		// retry a few seconds later is the client's answer.
		w.Header().Set("Retry-After", "2")
	}
	writeJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: messageOf(err, code)}})
}

func (s *Server) failWith(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: msg}})
}
