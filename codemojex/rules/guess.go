package rules

// Guess is a player's attempt: 6 distinct codes of the game's keyboard,
// position 0 first. Build one with [NewGuess] or [ParseGuess], which check
// it; [Score] rates it against the secret.
type Guess [CodeLength]Code

// NewGuess checks codes (the player's 6 picks, in position order) against
// the game's keyboard and returns them as a guess. A bad guess returns a
// *[CodesError] matching [ErrBadGuess] and one reason, checked in this
// order:
//   - [ErrWrongCount]: not exactly 6 codes (Count says how many);
//   - [ErrMalformedCode]: a string that is not "XXYY";
//   - [ErrUnknownCode]: a code off the keyboard;
//   - [ErrDuplicateCode]: a code already used at an earlier position
//     (First says which).
//
// Position and Code name the first offending position; an API maps
// [ErrBadGuess] to 422 and shows the message.
func NewGuess(kb Keyboard, codes []string) (Guess, error) {
	c, err := sixCodes("guess", codes, &kb)
	return Guess(c), err
}

// ParseGuess is [NewGuess] on codes separated by commas and/or whitespace,
// such as "0000,0102,0304,0501,0205,0403"; empty separators are skipped.
func ParseGuess(kb Keyboard, s string) (Guess, error) { return NewGuess(kb, splitCodes(s)) }

// String returns the codes joined by commas, which [ParseGuess] reads back.
func (g Guess) String() string { return joinCodes(g[:]) }
