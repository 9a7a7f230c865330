package dashboard

import (
	"errors"
	"fmt"
)

// ErrBadInput is what every [*InputError] matches: a request parameter the
// dashboard refused before doing anything (answered with 400).
var ErrBadInput = errors.New("dashboard: bad input")

// InputError is a request parameter out of its domain: which one, what it
// held and why it was refused.
type InputError struct {
	Field  string
	Value  string
	Reason string
}

// Error says which parameter is wrong and why.
func (e *InputError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("dashboard: %s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("dashboard: %s %q: %s", e.Field, e.Value, e.Reason)
}

// Is makes errors.Is(err, ErrBadInput) true.
func (e *InputError) Is(target error) bool { return target == ErrBadInput }

func badInput(field, value, reason string) error {
	if len(value) > 80 {
		value = value[:80] + "…"
	}
	return &InputError{Field: field, Value: value, Reason: reason}
}
