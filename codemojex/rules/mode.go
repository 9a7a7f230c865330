package rules

import "fmt"

// Mode is a game's type, fixed when its room is created.
type Mode string

const (
	// Classic games show each guess's score to its player as it is scored;
	// a perfect 600 ends the game at once, otherwise the timer does.
	Classic Mode = "classic"
	// Blind games give no feedback until the close: the secret is committed
	// to (see [Commit]) when the game opens, guesses are scored but their
	// points and the board stay hidden, only the timer ends the game (a 600
	// does not), and the close reveals the secret and the salt.
	Blind Mode = "blind"
)

// ParseMode returns the mode named s ("classic" or "blind"). Anything else
// returns an error matching [ErrUnknownMode].
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Classic, Blind:
		return m, nil
	}
	return "", fmt.Errorf("%w %q: want %q or %q", ErrUnknownMode, s, Classic, Blind)
}

// Feedback reports whether players see points, bests and the board while
// the game is open.
func (m Mode) Feedback() bool { return m == Classic }

// Committed reports whether the game publishes a commitment to its secret
// when it opens and the reveal when it closes.
func (m Mode) Committed() bool { return m == Blind }

// EndsOn reports whether the scored guess r ends the game at once: a
// perfect 600 in a classic game.
func (m Mode) EndsOn(r Result) bool { return m == Classic && r.Cracked() }

// String returns the mode's name.
func (m Mode) String() string { return string(m) }
