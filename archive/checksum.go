package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// checksumPlaceholder is the manifest's checksum value while its digest is
// computed: the same length as the real one, so sealing changes no offset.
var checksumPlaceholder = "sha256:" + string(bytes.Repeat([]byte{'0'}, 64))

// sealManifest replaces the placeholder in an encoded manifest with the
// SHA-256 of the encoding (placeholder included), so every byte of the file,
// whitespace too, is covered.
func sealManifest(b []byte) []byte {
	quoted := []byte(`"` + checksumPlaceholder + `"`)
	i := bytes.LastIndex(b, quoted)
	if i < 0 {
		return b // cannot happen: encode always writes the placeholder
	}
	sum := sha256.Sum256(b)
	copy(b[i+1+len("sha256:"):], hex.EncodeToString(sum[:]))
	return b
}

// checkManifestSeal verifies the checksum value sum (as decoded) of the
// manifest bytes b.
func checkManifestSeal(b []byte, sum string) error {
	digest, ok := bytes.CutPrefix([]byte(sum), []byte("sha256:"))
	if !ok || !isSHA256Hex(string(digest)) {
		return errors.New("missing or malformed checksum")
	}
	quoted := []byte(`"` + sum + `"`)
	i := bytes.LastIndex(b, quoted)
	if i < 0 {
		return errors.New("checksum not found in its canonical form") // escaped in the JSON text
	}
	c := bytes.Clone(b)
	copy(c[i+1:], checksumPlaceholder)
	got := sha256.Sum256(c)
	if hex.EncodeToString(got[:]) != string(digest) {
		return fmt.Errorf("checksum mismatch: the file hashes to sha256:%x", got)
	}
	return nil
}

// segmentSum returns the lowercase hex SHA-256 of a segment's bytes.
func segmentSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// isSHA256Hex reports whether s is 64 lowercase hex digits.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
