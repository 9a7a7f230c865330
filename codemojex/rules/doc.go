// Package rules is the rulebook of codemojex, a Mastermind game played with
// emoji, as pure code: no I/O, no clock, no engine. The game engine, the
// API and the bots call it to draw secrets, check guesses, score them and
// share the prize; the rest of this comment is the reference for the rules.
//
// # Emoji sets and keyboards
//
// An emoji is not a Unicode character but a cell of a grid, named by a
// four-digit [Code] "XXYY": the two-digit column, then the two-digit row,
// both from 0 ("0305" is column 3, row 5). A [Set] gives each cell a glyph
// (the emoji drawn for it) and an optional name; codes and glyphs are
// unique within a set, and a set has at least 6 cells. Two sets are built
// in, "animals" and "food", 48 cells each on an 8×6 grid ([Builtin]); more
// are read from set files ([LoadSet], whose doc gives the format).
//
// A game plays on a [Keyboard]: the codes a player can tap. It is the
// whole set or a random subset of it ([Keyboard.Reduce]), snapshotted when
// the game starts.
//
// # The secret
//
// The secret is 6 distinct codes of the keyboard in positions 0..5, drawn
// uniformly at random ([DrawSecret]; production draws from crypto/rand).
// It stays on the server until the game closes.
//
// # Guesses
//
// A guess is exactly 6 distinct codes of the game's keyboard, in positions
// 0..5 ([NewGuess]). Anything else is refused as a bad guess, and the
// error says why and where: the wrong number of codes, a string that is not
// a code, a code off the keyboard, or a code repeated (repeats are refused
// because each copy would be scored on its own and give away where that
// emoji sits). There is no limit on the number of guesses: a player's
// balance and the clock are the only limits. A player may lock a code at a
// position ([Locks]); the lock overrides what the keyboard sent there on
// every later guess, until unlocked.
//
// # Scoring
//
// Each position is scored on its own ([Score]). If the guessed code is in
// the secret, its distance is how many places it sits from where the
// secret has it, 0..5, and it earns 100 − 20·distance points; if it is not
// in the secret it earns 0:
//
//	distance 0   100  EXACT
//	distance 1    80  ADJACENT
//	distance 2    60  NEAR
//	distance 3    40  NEAR
//	distance 4    20  FAR
//	distance 5     0  MAX
//	not in it      0  MISS
//
// The total is the sum, 0..600 in steps of 20, and the percentage is the
// total out of 600 rounded to a whole number ([Percent]). Examples: the
// exact secret scores 600 (100%); the secret with positions 0 and 1
// swapped scores 80+80+4·100 = 560 (93%); with positions 0 and 5 swapped,
// 0+0+4·100 = 400 (67%); with its first code replaced by one not in the
// secret, 0+5·100 = 500 (83%). Only the total 600 means the guess is the
// secret. There are no tiers and no bonus for being first.
//
// # Game modes and the end of a game
//
// In a [Classic] game each player sees their own points as guesses are
// scored, and a perfect 600 ends the game at once; otherwise the game ends
// when its timer runs out. In a [Blind] game nobody sees points, bests or
// the board while it is open and only the timer ends it. When a blind game
// opens it publishes a commitment, a SHA-256 hash of the secret and a
// random salt ([Commit]); when it closes it reveals both, and anyone can
// check that the revealed secret is the one committed to ([Verify]).
//
// # Winning and the prize
//
// A player's standing is their best total, whenever they scored it; a
// player who never scored above 0 is not on the board. The board ranks by
// best total, then by who reached it first, then by player id ([Rank]).
// The prize goes winner-take-all to the top best total ([Settle]), in both
// modes. Players tied at the top share it evenly; the few diamonds that do
// not divide evenly go one each to the tied players who reached the top
// score first, so the whole prize is always paid out and shares differ by
// at most one diamond. If nobody scored above 0, nobody is paid.
//
// # Errors
//
// Every check returns a typed error: [*CodesError] for guesses, secrets,
// keyboards and locks, [*SetError] for sets, [*CodeError] for a single
// code. Each matches an umbrella sentinel ([ErrBadGuess], [ErrBadSecret],
// [ErrBadKeyboard], [ErrBadLock], [ErrBadSet]) and a reason sentinel
// ([ErrWrongCount], [ErrMalformedCode], [ErrUnknownCode],
// [ErrDuplicateCode], …) with errors.Is, and its message is fit to show.
//
// All types are values or immutable after construction and safe for
// concurrent use; a *rand.Rand passed in is used only during the call.
package rules
