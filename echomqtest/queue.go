package echomqtest

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

// maxQueueNameChars bounds the test-name part of a Queue name.
const maxQueueNameChars = 48

// Queue returns a queue name unique to this call, derived from the test
// name: "t" + the sanitized test name (without its Test/Benchmark/Fuzz
// prefix, at most 48 characters) + "." + 16 random hex digits, e.g.
// "tPublish_retry.9f86d081884c7d65" for TestPublish/retry. Names always
// match [A-Za-z0-9._-]{1,128} and are never "emq". Use it to isolate tests
// sharing a server.
func Queue(tb testing.TB) string {
	tb.Helper()
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return "t" + sanitizeName(tb.Name()) + "." + hex.EncodeToString(b[:])
}

// sanitizeName shortens a test name and maps every character outside
// [A-Za-z0-9_-] to '_'.
func sanitizeName(name string) string {
	for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			name = rest
			break
		}
	}
	var sb strings.Builder
	for i := 0; i < len(name) && sb.Len() < maxQueueNameChars; i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
			sb.WriteByte(c)
		default:
			sb.WriteByte('_')
		}
	}
	return sb.String()
}
