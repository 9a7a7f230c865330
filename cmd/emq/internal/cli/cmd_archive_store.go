package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/archive/s3store"
)

// defaultStoreDir is the archive directory when neither --store nor --s3
// is given.
const defaultStoreDir = "./emq-archive"

// storeOpts are --store and --s3, the archive a command reads or writes.
type storeOpts struct {
	dir, s3 string
	s3cfg   *s3store.Config // set by check when --s3 is given
}

func (o *storeOpts) register(f *pflag.FlagSet) {
	f.StringVar(&o.dir, "store", defaultStoreDir, "archive directory (a local store)")
	f.StringVar(&o.s3, "s3", "", "S3-compatible store http[s]://host[:port]/bucket[/prefix] (keys in $EMQ_S3_ACCESS_KEY, $EMQ_S3_SECRET_KEY)")
}

// check validates the store flags before any I/O.
func (o *storeOpts) check(cmd *cobra.Command, getenv func(string) string) error {
	if cmd.Flags().Changed("store") && cmd.Flags().Changed("s3") {
		return usagef("--store and --s3 exclude each other")
	}
	if o.s3 == "" {
		if cmd.Flags().Changed("s3") {
			return usagef("invalid --s3: must not be empty")
		}
		if o.dir == "" {
			return usagef("invalid --store: must not be empty")
		}
		return nil
	}
	cfg, err := parseS3(o.s3)
	if err != nil {
		return usagef("invalid --s3: %v", err) // not echoed: it may hold a key
	}
	cfg.AccessKey, cfg.SecretKey = getenv("EMQ_S3_ACCESS_KEY"), getenv("EMQ_S3_SECRET_KEY")
	if _, err := s3store.New(cfg); err != nil { // no I/O: the library's own checks
		return usagef("invalid --s3: %s", strings.TrimPrefix(oneLine(err), "invalid s3 config: "))
	}
	o.s3cfg = cfg
	return nil
}

// parseS3 reads http[s]://host[:port]/bucket[/prefix][?region=R].
func parseS3(raw string) (*s3store.Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("want http[s]://host[:port]/bucket[/prefix]")
	}
	if u.User != nil {
		return nil, errors.New("keys go in $EMQ_S3_ACCESS_KEY and $EMQ_S3_SECRET_KEY, not in the URL")
	}
	if u.Host == "" {
		return nil, errors.New("missing host")
	}
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	if bucket == "" {
		return nil, errors.New("missing bucket: want http[s]://host[:port]/bucket[/prefix]")
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	for k := range u.Query() {
		if k != "region" {
			return nil, fmt.Errorf("unknown parameter %q: want region", k)
		}
	}
	return &s3store.Config{
		Endpoint: u.Host, Bucket: bucket, Prefix: prefix, Region: u.Query().Get("region"),
		Insecure: u.Scheme == "http",
	}, nil
}

// open returns the store and a release func. A reader (create false) does
// not create a missing directory or bucket: a missing directory is not
// found (exit 3); a writer creates either.
func (o *storeOpts) open(ctx context.Context, create bool) (archive.Store, func(), error) {
	if o.s3cfg == nil {
		if !create {
			if _, err := os.Stat(o.dir); errors.Is(err, fs.ErrNotExist) {
				return nil, nil, &notFoundError{what: fmt.Sprintf("archive directory %q", o.dir)}
			}
		}
		st, err := fsstore.New(o.dir)
		if err != nil {
			return nil, nil, fmt.Errorf("archive directory %q: %w", o.dir, err)
		}
		return st, func() {}, nil
	}
	// A transport of our own, so its idle connections close with the command.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cfg := *o.s3cfg
	cfg.Transport = tr
	st, err := s3store.New(&cfg)
	if err != nil {
		return nil, nil, err
	}
	if create {
		if err := st.EnsureBucket(ctx); err != nil {
			tr.CloseIdleConnections()
			return nil, nil, fmt.Errorf("s3 bucket %q: %w", cfg.Bucket, err)
		}
	}
	return st, tr.CloseIdleConnections, nil
}
