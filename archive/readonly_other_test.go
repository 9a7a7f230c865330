//go:build !linux

package archive_test

import (
	"os"
	"testing"
)

// makeReadOnly makes dir refuse writes by its mode; it returns an undo.
func makeReadOnly(t *testing.T, dir string) func() {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	return func() { _ = os.Chmod(dir, 0o755) }
}
