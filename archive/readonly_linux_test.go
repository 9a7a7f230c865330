//go:build linux

package archive_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h (chattr +i).
const fsImmutableFL = 0x10

// makeReadOnly makes every directory under dir refuse new files, even to
// root (chmod, then the immutable attribute when chmod is not enough): a
// full or read-only disk. The returned undo (also run at cleanup) restores
// it.
func makeReadOnly(t *testing.T, dir string) func() {
	t.Helper()
	var dirs []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	}))
	var undos []func()
	undo := func() {
		for _, u := range slices.Backward(undos) {
			u()
		}
		undos = nil
	}
	t.Cleanup(undo)
	for _, d := range dirs {
		require.NoError(t, os.Chmod(d, 0o555))
		undos = append(undos, func() { _ = os.Chmod(d, 0o755) })
	}
	if probeWrite(dir) != nil {
		return undo
	}
	for _, d := range dirs {
		f, err := os.Open(d)
		require.NoError(t, err)
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err == nil {
			err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutableFL))
		}
		f.Close()
		if err != nil {
			undo()
			if os.Getenv("CI") == "true" {
				t.Fatalf("cannot make %s read-only (chmod and chattr +i failed): %v", d, err)
			}
			t.Skipf("cannot make %s read-only here: %v", d, err)
		}
		undos = append(undos, func() {
			if f, err := os.Open(d); err == nil {
				_ = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
				f.Close()
			}
		})
	}
	require.Error(t, probeWrite(dir), "the directory is still writable")
	return undo
}

func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
