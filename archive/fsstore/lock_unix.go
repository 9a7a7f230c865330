//go:build unix

package fsstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/echomq/echomq/archive"
)

// Lock takes an exclusive flock on "<root>/.locks/<name>", without
// waiting: a lock held by anyone else (another process, or another open of
// the same lock in this one) returns [archive.ErrLocked]. The returned
// function releases it; the kernel also releases it if the process dies.
// Errors: [*echomq.ArgumentError] for a bad name; the file system's errors.
func (s *Store) Lock(ctx context.Context, name string) (func() error, error) {
	if err := archive.CheckName(name); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := filepath.Join(s.root, ".locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, strings.ReplaceAll(name, "/", "%")), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, archive.ErrLocked
		}
		return nil, err
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			err = errors.Join(syscall.Flock(int(f.Fd()), syscall.LOCK_UN), f.Close())
		})
		return err
	}, nil
}
