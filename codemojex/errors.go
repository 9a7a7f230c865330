package codemojex

import (
	"errors"
	"fmt"

	"github.com/echomq/echomq"
)

// Sentinels callers branch on with errors.Is; the API maps each to one HTTP
// status. Bad arguments (a negative amount, a name out of its grammar) are
// [*echomq.ArgumentError] (matching [echomq.ErrInvalidArgument]); a guess
// that breaks the rules is the rules' *[rules.CodesError] (matching
// [rules.ErrBadGuess]).
var (
	// ErrNotFound: no room, game, player or guess has the id. See
	// [NotFoundError].
	ErrNotFound = errors.New("codemojex: not found")
	// ErrInsufficient: the balance does not cover the charge. See
	// [InsufficientError].
	ErrInsufficient = errors.New("codemojex: insufficient balance")
	// ErrClosed: the game no longer takes guesses (it is closing or
	// settled).
	ErrClosed = errors.New("codemojex: game closed")
	// ErrExpired: the game's timer ran out; the sweep settles it.
	ErrExpired = errors.New("codemojex: game expired")
	// ErrNotMember: the player has not joined the game.
	ErrNotMember = errors.New("codemojex: not a member of the game")
	// ErrAlreadyClosed: a close found the game closed by someone else (a
	// crack, the sweep or another operator); it changed nothing.
	ErrAlreadyClosed = errors.New("codemojex: game already closed")
	// ErrUnauthorized: no session, an unknown or expired session, or a
	// sign-in that is not allowed.
	ErrUnauthorized = errors.New("codemojex: unauthorized")
	// ErrUnavailable: the guess was charged but could not be queued (the
	// charge was refunded), or it was accepted but its charge came too late
	// (the sweep had refused it, nothing charged); it may be sent again.
	ErrUnavailable = errors.New("codemojex: guess queue unavailable")
)

// NotFoundError names what was not found; it matches [ErrNotFound].
type NotFoundError struct {
	// Kind is "room", "game", "player", "guess" or "emoji set".
	Kind string
	// ID is the id asked for.
	ID string
}

// Error names the kind and the id.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("codemojex: no %s %q", e.Kind, e.ID)
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// InsufficientError is a charge larger than the balance; it matches
// [ErrInsufficient]. Nothing was charged.
type InsufficientError struct {
	Currency Currency
	Need     int64
	Have     int64
}

// Error says what was needed and what was held.
func (e *InsufficientError) Error() string {
	return fmt.Sprintf("codemojex: insufficient balance: %d %s needed, %d held", e.Need, e.Currency, e.Have)
}

// Is makes errors.Is(err, ErrInsufficient) true.
func (e *InsufficientError) Is(target error) bool { return target == ErrInsufficient }

func notFound(kind, id string) error { return &NotFoundError{Kind: kind, ID: id} }

func badArg(name, reason string) error { return &echomq.ArgumentError{Name: name, Reason: reason} }
