package rules

import (
	crand "crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
)

// SaltBytes is the number of random bytes in a blind game's salt, which is
// written as twice as many lowercase hex digits.
const SaltBytes = 16

// commitSep separates the fields hashed into a commitment: the ASCII
// record separator, which no code or hex salt contains, so no two reveals
// hash the same bytes.
const commitSep = 0x1E

// Reveal is what a blind game publishes when it closes: the secret and the
// salt that were hashed into the commitment shown since it opened.
type Reveal struct {
	Secret Secret
	// Salt is SaltBytes random bytes as lowercase hex (32 digits).
	Salt string
}

// Commit draws a salt from rnd (nil means crypto/rand, as production
// uses) and returns the commitment to publish when a blind game opens and
// the reveal to keep secret until it closes. The commitment is
//
//	lowercase hex of SHA-256(code₀ 0x1E code₁ 0x1E … code₅ 0x1E salt)
//
// where the codes are the secret's 4 ASCII digits each, position 0 first,
// 0x1E is one byte (ASCII record separator) and salt is the 32 ASCII
// lowercase hex digits of the salt. Anyone can recompute it from the
// reveal, for example with
//
//	printf '0000\0360101\0360202\0360303\0360404\0360505\036%s' "$salt" | sha256sum
//
// A secret that is not 6 distinct well-formed codes returns a
// *[CodesError] matching [ErrBadSecret]; a failing rnd returns its error
// wrapped.
func Commit(secret Secret, rnd io.Reader) (string, Reveal, error) {
	if err := checkSecret(secret); err != nil {
		return "", Reveal{}, err
	}
	if rnd == nil {
		rnd = crand.Reader
	}
	var salt [SaltBytes]byte
	if _, err := io.ReadFull(rnd, salt[:]); err != nil {
		return "", Reveal{}, fmt.Errorf("rules: commit: read salt: %w", err)
	}
	r := Reveal{Secret: secret, Salt: hex.EncodeToString(salt[:])}
	return commitment(r), r, nil
}

// CommitmentOf recomputes the commitment of a reveal (see [Commit]). A
// malformed salt returns an error matching [ErrBadCommitment]; a bad
// secret a *[CodesError] matching [ErrBadSecret].
func CommitmentOf(r Reveal) (string, error) {
	if err := checkSecret(r.Secret); err != nil {
		return "", err
	}
	if !lowerHex(r.Salt, 2*SaltBytes) {
		return "", fmt.Errorf("%w: salt %q: want %d lowercase hex digits", ErrBadCommitment, r.Salt, 2*SaltBytes)
	}
	return commitment(r), nil
}

// Verify checks, at close, that a reveal is the one committed to at open.
// It returns nil on a match, an error matching [ErrCommitmentMismatch] when
// the reveal hashes to another commitment, [ErrBadCommitment] when the
// commitment is not 64 lowercase hex digits or the salt not 32, and a
// *[CodesError] matching [ErrBadSecret] when the secret is not 6 distinct
// well-formed codes.
func Verify(commitment string, r Reveal) error {
	if !lowerHex(commitment, 2*sha256.Size) {
		return fmt.Errorf("%w: %q: want %d lowercase hex digits", ErrBadCommitment, commitment, 2*sha256.Size)
	}
	got, err := CommitmentOf(r)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(commitment)) != 1 {
		return fmt.Errorf("%w: the reveal hashes to %s", ErrCommitmentMismatch, got)
	}
	return nil
}

func commitment(r Reveal) string {
	h := sha256.New()
	for _, c := range r.Secret {
		h.Write([]byte(c))
		h.Write([]byte{commitSep})
	}
	h.Write([]byte(r.Salt))
	return hex.EncodeToString(h.Sum(nil))
}

func checkSecret(s Secret) error {
	codes := make([]string, CodeLength)
	for i, c := range s {
		codes[i] = string(c)
	}
	_, err := sixCodes("secret", codes, nil)
	return err
}

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
