package rules

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinels callers branch on with errors.Is. The typed errors below carry
// the details and match one umbrella sentinel (what was bad) and one reason
// sentinel (why).
var (
	// ErrBadGuess: a guess is not 6 distinct codes of the game's keyboard
	// (an API answers 422). Returned as a *[CodesError].
	ErrBadGuess = errors.New("rules: bad guess")
	// ErrBadSecret: a secret is not 6 distinct well-formed codes (of the
	// keyboard, when one is given). Returned as a *[CodesError].
	ErrBadSecret = errors.New("rules: bad secret")
	// ErrBadKeyboard: a keyboard is not at least 6 distinct well-formed
	// codes. Returned as a *[CodesError].
	ErrBadKeyboard = errors.New("rules: bad keyboard")
	// ErrBadLock: a position lock names a position outside 0..5 or a code
	// off the keyboard. Returned as a *[CodesError].
	ErrBadLock = errors.New("rules: bad lock")
	// ErrBadSet: an emoji set (a file or a cell list) breaks the set rules.
	// Returned as a *[SetError].
	ErrBadSet = errors.New("rules: bad emoji set")

	// ErrWrongCount: the wrong number of codes (a guess or a secret needs
	// exactly 6, a keyboard or a set at least 6).
	ErrWrongCount = errors.New("wrong number of codes")
	// ErrMalformedCode: a string that is not four ASCII digits "XXYY".
	ErrMalformedCode = errors.New("malformed code")
	// ErrUnknownCode: a well-formed code that is not on the keyboard.
	ErrUnknownCode = errors.New("code not on the keyboard")
	// ErrDuplicateCode: a code given twice where codes must be distinct.
	ErrDuplicateCode = errors.New("duplicate code")
	// ErrBadPosition: a position outside 0..5.
	ErrBadPosition = errors.New("position out of range")
	// ErrDuplicateGlyph: two cells of a set share a glyph.
	ErrDuplicateGlyph = errors.New("duplicate glyph")
	// ErrBadGlyph: a glyph that is empty, too long, not UTF-8 or holds
	// control characters.
	ErrBadGlyph = errors.New("bad glyph")
	// ErrSetSyntax: a set file line that is neither a directive nor a cell,
	// or a missing or malformed set name.
	ErrSetSyntax = errors.New("set syntax")

	// ErrUnknownSet: no built-in set has that name.
	ErrUnknownSet = errors.New("rules: unknown emoji set")
	// ErrUnknownMode: a game mode other than "classic" or "blind".
	ErrUnknownMode = errors.New("rules: unknown game mode")
	// ErrBadCommitment: a commitment that is not 64 lowercase hex digits,
	// or a salt that is not 32.
	ErrBadCommitment = errors.New("rules: malformed commitment")
	// ErrCommitmentMismatch: a reveal that does not hash to the commitment.
	ErrCommitmentMismatch = errors.New("rules: reveal does not match commitment")
)

// CodeError is a string that is not a code, or a grid position no code can
// name; it matches [ErrMalformedCode].
type CodeError struct {
	Input string
}

func (e *CodeError) Error() string {
	return fmt.Sprintf("rules: malformed code %q: want 4 digits XXYY (column, row)", e.Input)
}

// Is makes errors.Is(err, ErrMalformedCode) true.
func (e *CodeError) Is(target error) bool { return target == ErrMalformedCode }

// CodesError says what is wrong with a list of codes: a guess, a secret, a
// keyboard or a lock. It matches the umbrella sentinel of Of
// ([ErrBadGuess], [ErrBadSecret], [ErrBadKeyboard], [ErrBadLock]) and its
// Reason ([ErrWrongCount], [ErrMalformedCode], [ErrUnknownCode],
// [ErrDuplicateCode], [ErrBadPosition]); its message is fit to show a
// player.
type CodesError struct {
	// Of is what was checked: "guess", "secret", "keyboard" or "lock".
	Of string
	// Reason is the reason sentinel.
	Reason error
	// Count is how many codes were given.
	Count int
	// Position is the offending position (0-based), or -1 when the error is
	// about the whole list (ErrWrongCount).
	Position int
	// Code is the offending code as given ("" for ErrWrongCount).
	Code string
	// First is, for ErrDuplicateCode, the earlier position holding the same
	// code; -1 otherwise.
	First int
}

func (e *CodesError) Error() string {
	head := "rules: bad " + e.Of + ": "
	switch {
	case errors.Is(e.Reason, ErrWrongCount):
		want := "exactly " + strconv.Itoa(CodeLength)
		if e.Of == "keyboard" {
			want = "at least " + strconv.Itoa(CodeLength)
		}
		return head + strconv.Itoa(e.Count) + " codes, want " + want
	case errors.Is(e.Reason, ErrMalformedCode):
		return head + fmt.Sprintf("position %d: %q is not a code (want 4 digits XXYY)", e.Position, e.Code)
	case errors.Is(e.Reason, ErrUnknownCode):
		return head + fmt.Sprintf("position %d: code %q is not on the keyboard", e.Position, e.Code)
	case errors.Is(e.Reason, ErrDuplicateCode):
		return head + fmt.Sprintf("position %d: code %q repeats position %d", e.Position, e.Code, e.First)
	case errors.Is(e.Reason, ErrBadPosition):
		return head + fmt.Sprintf("position %d is outside 0..%d", e.Position, CodeLength-1)
	}
	return head + fmt.Sprint(e.Reason)
}

// Unwrap exposes the umbrella and the reason sentinels to errors.Is.
func (e *CodesError) Unwrap() []error { return []error{umbrella(e.Of), e.Reason} }

func umbrella(of string) error {
	switch of {
	case "guess":
		return ErrBadGuess
	case "secret":
		return ErrBadSecret
	case "lock":
		return ErrBadLock
	}
	return ErrBadKeyboard
}

// SetError says which rule an emoji set breaks and where; it matches
// [ErrBadSet] and its Reason ([ErrSetSyntax], [ErrMalformedCode],
// [ErrDuplicateCode], [ErrDuplicateGlyph], [ErrBadGlyph], [ErrWrongCount]).
type SetError struct {
	// Line is the 1-based line of the set file, or 0 when the set was not
	// read from a file (or the error is about the whole file).
	Line int
	// Reason is the reason sentinel.
	Reason error
	// Detail says what was found, for people.
	Detail string
}

func (e *SetError) Error() string {
	s := "rules: bad emoji set: "
	if e.Line > 0 {
		s += "line " + strconv.Itoa(e.Line) + ": "
	}
	return s + e.Reason.Error() + ": " + e.Detail
}

// Unwrap exposes [ErrBadSet] and the reason sentinel to errors.Is.
func (e *SetError) Unwrap() []error { return []error{ErrBadSet, e.Reason} }
