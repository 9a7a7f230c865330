package rules

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Keyboard is the list of codes a game plays with: the cells a player can
// tap, the cells a secret is drawn from and the only codes a guess may
// hold. A game snapshots it when it starts (the whole set, or a reduced
// random subset), so later edits to the set do not change a running game.
//
// The zero Keyboard is empty: it accepts no guess and draws no secret. A
// Keyboard is immutable and safe for concurrent use.
type Keyboard struct {
	codes []Code
	index map[Code]int
}

// NewKeyboard checks codes (at least [MinSetSize], each well-formed, no
// repeats) and returns them as a keyboard in that order. A bad list returns
// a *[CodesError] matching [ErrBadKeyboard] and [ErrWrongCount],
// [ErrMalformedCode] or [ErrDuplicateCode].
func NewKeyboard(codes []string) (Keyboard, error) {
	if len(codes) < MinSetSize {
		return Keyboard{}, &CodesError{Of: "keyboard", Reason: ErrWrongCount, Count: len(codes), Position: -1, First: -1}
	}
	out, err := checkCodes("keyboard", codes, nil)
	if err != nil {
		return Keyboard{}, err
	}
	return Keyboard{codes: out, index: indexOf(out)}, nil
}

// ParseKeyboard is [NewKeyboard] on codes separated by commas and/or
// whitespace, as [Keyboard.String] writes them.
func ParseKeyboard(s string) (Keyboard, error) { return NewKeyboard(splitCodes(s)) }

// Len returns the number of codes.
func (k Keyboard) Len() int { return len(k.codes) }

// Codes returns a copy of the codes in keyboard order.
func (k Keyboard) Codes() []Code { return append([]Code(nil), k.codes...) }

// Contains reports whether code is on the keyboard.
func (k Keyboard) Contains(code Code) bool {
	_, ok := k.index[code]
	return ok
}

// String returns the codes joined by commas, the form a game stores.
func (k Keyboard) String() string { return joinCodes(k.codes) }

// Reduce returns a keyboard of n codes drawn at random from k, in k's
// order: the reduced keyboard of a game that plays with fewer cells (a
// blind game on 18 or 24 cells is easier to reason about). rng nil means
// crypto/rand. n outside [MinSetSize]..k.Len() returns an error matching
// [ErrBadKeyboard] and [ErrWrongCount].
func (k Keyboard) Reduce(n int, rng *rand.Rand) (Keyboard, error) {
	if n < MinSetSize || n > len(k.codes) {
		return Keyboard{}, fmt.Errorf("%w: %w: cannot take %d of %d codes (want %d..%d)",
			ErrBadKeyboard, ErrWrongCount, n, len(k.codes), MinSetSize, len(k.codes))
	}
	picked := make([]bool, len(k.codes))
	for _, i := range sample(len(k.codes), n, orCrypto(rng)) {
		picked[i] = true
	}
	out := make([]Code, 0, n)
	for i, c := range k.codes {
		if picked[i] {
			out = append(out, c)
		}
	}
	return Keyboard{codes: out, index: indexOf(out)}, nil
}

// sample returns k distinct indices of 0..n-1 in draw order, each ordered
// k-tuple equally likely (a partial Fisher–Yates shuffle).
func sample(n, k int, rng *rand.Rand) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := range k {
		j := i + rng.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx[:k]
}

// checkCodes validates codes in order: each well-formed, on kb (nil means
// any well-formed code), and not seen before. The first offence wins, so
// the message names one position.
func checkCodes(of string, codes []string, kb *Keyboard) ([]Code, error) {
	out := make([]Code, len(codes))
	seen := make(map[Code]int, len(codes))
	for i, s := range codes {
		c := Code(s)
		switch first, dup := seen[c]; {
		case !c.Valid():
			return nil, &CodesError{Of: of, Reason: ErrMalformedCode, Count: len(codes), Position: i, Code: s, First: -1}
		case kb != nil && !kb.Contains(c):
			return nil, &CodesError{Of: of, Reason: ErrUnknownCode, Count: len(codes), Position: i, Code: s, First: -1}
		case dup:
			return nil, &CodesError{Of: of, Reason: ErrDuplicateCode, Count: len(codes), Position: i, Code: s, First: first}
		}
		seen[c] = i
		out[i] = c
	}
	return out, nil
}

func indexOf(codes []Code) map[Code]int {
	m := make(map[Code]int, len(codes))
	for i, c := range codes {
		m[c] = i
	}
	return m
}

func splitCodes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

func joinCodes(codes []Code) string {
	var sb strings.Builder
	for i, c := range codes {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(string(c))
	}
	return sb.String()
}
