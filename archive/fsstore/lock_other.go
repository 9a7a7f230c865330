//go:build !unix

package fsstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/echomq/echomq/archive"
)

// Lock takes an exclusive lock on "<root>/.locks/<name>" by creating the
// file exclusively; without flock, a holder that dies leaves it behind and
// it must be removed by hand. A held lock returns [archive.ErrLocked].
func (s *Store) Lock(ctx context.Context, name string) (func() error, error) {
	if err := archive.CheckName(name); err != nil {
		return nil, err
	}
	dir := filepath.Join(s.root, ".locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, strings.ReplaceAll(name, "/", "%"))
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, archive.ErrLocked
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() { err = os.Remove(p) })
		return err
	}, nil
}
