package rules

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
)

// Secret is the hidden code of a game: 6 distinct codes of its keyboard,
// position 0 first. Build one with [DrawSecret], or restore a stored one
// with [NewSecret] or [ParseSecret].
type Secret [CodeLength]Code

// DrawSecret draws a secret of 6 distinct codes of kb, every ordered choice
// equally likely. rng is the random source; nil means [CryptoRand], which
// production uses (a seeded *rand.Rand makes tests reproducible). A
// keyboard of fewer than 6 codes (the zero Keyboard) returns a
// *[CodesError] matching [ErrBadKeyboard] and [ErrWrongCount].
func DrawSecret(kb Keyboard, rng *rand.Rand) (Secret, error) {
	if kb.Len() < CodeLength {
		return Secret{}, &CodesError{Of: "keyboard", Reason: ErrWrongCount, Count: kb.Len(), Position: -1, First: -1}
	}
	var s Secret
	for i, j := range sample(kb.Len(), CodeLength, orCrypto(rng)) {
		s[i] = kb.codes[j]
	}
	return s, nil
}

// NewSecret checks codes (exactly 6, well-formed, on kb, distinct) and
// returns them as a secret. A bad list returns a *[CodesError] matching
// [ErrBadSecret] and the reason, as for a guess.
func NewSecret(kb Keyboard, codes []string) (Secret, error) {
	c, err := sixCodes("secret", codes, &kb)
	return Secret(c), err
}

// ParseSecret is [NewSecret] on codes separated by commas and/or
// whitespace, as [Secret.String] writes them.
func ParseSecret(kb Keyboard, s string) (Secret, error) { return NewSecret(kb, splitCodes(s)) }

// String returns the codes joined by commas, the form a game stores.
func (s Secret) String() string { return joinCodes(s[:]) }

// Index returns the position of code in the secret, or -1.
func (s Secret) Index(code Code) int {
	for j, c := range s {
		if c == code {
			return j
		}
	}
	return -1
}

// sixCodes checks that codes are exactly CodeLength distinct codes of kb
// (nil: any well-formed codes).
func sixCodes(of string, codes []string, kb *Keyboard) ([CodeLength]Code, error) {
	var out [CodeLength]Code
	if len(codes) != CodeLength {
		return out, &CodesError{Of: of, Reason: ErrWrongCount, Count: len(codes), Position: -1, First: -1}
	}
	c, err := checkCodes(of, codes, kb)
	if err != nil {
		return out, err
	}
	copy(out[:], c)
	return out, nil
}

// CryptoRand returns a *rand.Rand that reads crypto/rand, for secrets no
// one can predict from earlier ones. It is safe for concurrent use.
func CryptoRand() *rand.Rand { return rand.New(cryptoSource{}) }

type cryptoSource struct{}

// Uint64 reads 8 bytes of crypto/rand, which never fails (it crashes the
// program if the system source breaks, by design of crypto/rand).
func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

func orCrypto(rng *rand.Rand) *rand.Rand {
	if rng == nil {
		return CryptoRand()
	}
	return rng
}
