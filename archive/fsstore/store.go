package fsstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
)

// Store is an [archive.Store] on a local directory; it is also an
// [archive.Deleter] and an [archive.Locker]. It is safe for concurrent use
// by goroutines and processes.
type Store struct {
	root string
}

var (
	_ archive.Store   = (*Store)(nil)
	_ archive.Deleter = (*Store)(nil)
	_ archive.Locker  = (*Store)(nil)
)

// New returns the store rooted at dir, creating the directory when it is
// missing. It returns an [*echomq.ArgumentError] for an empty dir and the
// file system's error when the directory cannot be created.
func New(dir string) (*Store, error) {
	if dir == "" {
		return nil, &echomq.ArgumentError{Name: "archive directory", Reason: "must not be empty"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	return &Store{root: abs}, nil
}

// Root returns the absolute root directory.
func (s *Store) Root() string { return s.root }

func (s *Store) path(name string) string { return filepath.Join(s.root, filepath.FromSlash(name)) }

// Put writes data under name durably and atomically (see the package doc).
// With opts.IfAbsent it fails with an error matching [archive.ErrExists]
// when name exists. Errors: [*echomq.ArgumentError] for a bad name; the
// file system's errors (a full disk, a read-only directory).
func (s *Store) Put(ctx context.Context, name string, data []byte, opts *archive.PutOpts) error {
	if err := archive.CheckName(name); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst := s.path(name)
	dir := filepath.Dir(dst)
	if err := s.mkdirAll(dir); err != nil {
		return err
	}
	tmp, err := writeTemp(dir, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed; removes the link source otherwise
	if opts != nil && opts.IfAbsent {
		if err := os.Link(tmp, dst); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return archive.ErrExists
			}
			return err
		}
	} else if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return syncDir(dir)
}

// writeTemp writes data to a fresh ".tmp-*" file in dir and fsyncs it.
func writeTemp(dir string, data []byte) (string, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// mkdirAll creates dir and fsyncs the parents of each directory it made,
// so a new directory entry survives a crash too.
func (s *Store) mkdirAll(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if dir == s.root {
		return os.MkdirAll(dir, 0o755)
	}
	if err := s.mkdirAll(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Get returns the object's bytes, or an error matching
// [archive.ErrNotFound]. Errors: [*echomq.ArgumentError] for a bad name;
// the file system's errors.
func (s *Store) Get(ctx context.Context, name string) ([]byte, error) {
	if err := archive.CheckName(name); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, archive.ErrNotFound
	}
	return b, err
}

// GetLimit is Get reading at most limit+1 bytes ([archive.LimitGetter]): a
// file larger than limit is never read whole.
func (s *Store) GetLimit(ctx context.Context, name string, limit int64) ([]byte, error) {
	if err := archive.CheckName(name); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, archive.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return archive.LimitReadAll(f, limit)
}

// List returns the objects whose names start with prefix, sorted by name;
// temporary files and the lock directory are not objects. Errors:
// [*echomq.ArgumentError] for a bad prefix; the file system's errors.
func (s *Store) List(ctx context.Context, prefix string) ([]archive.Object, error) {
	if err := archive.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	// Walk the deepest directory the prefix names in full.
	base := s.root
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		base = s.path(prefix[:i])
	}
	var out []archive.Object
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != base {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted while listing
		}
		if err != nil {
			return err
		}
		out = append(out, archive.Object{Name: name, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete removes the object; a missing object is not an error. Errors:
// [*echomq.ArgumentError] for a bad name; the file system's errors.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := archive.CheckName(name); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := s.path(name)
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return syncDir(filepath.Dir(p))
}
