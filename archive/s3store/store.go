package s3store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
)

// Config configures a [Store].
type Config struct {
	// Endpoint is the server's host[:port], without a scheme. Required.
	Endpoint string
	// Bucket holds the archive; it must exist (see [Store.EnsureBucket]).
	// Required.
	Bucket string
	// Prefix is prepended to every object name, so several archives can
	// share a bucket; it must end in "/" when set. Defaults to "".
	Prefix string
	// AccessKey and SecretKey are the static credentials. Defaults to ""
	// (anonymous).
	AccessKey, SecretKey string
	// Region is the bucket's region. Defaults to "us-east-1".
	Region string
	// Insecure talks plain HTTP instead of TLS. Defaults to false.
	Insecure bool
	// MaxRetries bounds the client's retries of a failed request, so an
	// unreachable store fails a cycle quickly. Defaults to 3.
	MaxRetries int
	// Transport replaces the HTTP transport. Defaults to nil: minio-go's.
	Transport http.RoundTripper
}

// Store is an [archive.Store] and [archive.Deleter] on an S3 bucket. It is
// safe for concurrent use.
type Store struct {
	c      *minio.Client
	bucket string
	prefix string
	region string
}

var (
	_ archive.Store   = (*Store)(nil)
	_ archive.Deleter = (*Store)(nil)
)

// New returns the store of cfg; it does no I/O. It returns an
// [*echomq.ArgumentError] for a missing endpoint or bucket, a bad prefix or
// a negative retry count.
func New(cfg *Config) (*Store, error) {
	if cfg == nil || cfg.Endpoint == "" || cfg.Bucket == "" {
		return nil, &echomq.ArgumentError{Name: "s3 config", Reason: "endpoint and bucket are required"}
	}
	if cfg.MaxRetries < 0 {
		return nil, &echomq.ArgumentError{Name: "s3 config", Reason: "max retries must not be negative"}
	}
	if cfg.Prefix != "" && (!strings.HasSuffix(cfg.Prefix, "/") || archive.CheckName(strings.TrimSuffix(cfg.Prefix, "/")) != nil) {
		return nil, &echomq.ArgumentError{Name: "s3 config", Reason: "prefix " + cfg.Prefix + " must be a valid object name ending in /"}
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	retries := cfg.MaxRetries
	if retries == 0 {
		retries = 3
	}
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       !cfg.Insecure,
		Region:       region,
		Transport:    cfg.Transport,
		MaxRetries:   retries,
		BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		return nil, &echomq.ArgumentError{Name: "s3 config", Reason: err.Error()}
	}
	return &Store{c: c, bucket: cfg.Bucket, prefix: cfg.Prefix, region: region}, nil
}

// EnsureBucket creates the bucket when it does not exist. Errors: the
// server's.
func (s *Store) EnsureBucket(ctx context.Context) error {
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err != nil || ok {
		return err
	}
	err = s.c.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: s.region})
	if code := minio.ToErrorResponse(err).Code; code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
		return nil
	}
	return err
}

// Put stores data under name with one PUT (atomic by the S3 contract).
// With opts.IfAbsent it sends "If-None-Match: *" and returns an error
// matching [archive.ErrExists] when the name exists. Errors:
// [*echomq.ArgumentError] for a bad name; the server's errors.
func (s *Store) Put(ctx context.Context, name string, data []byte, opts *archive.PutOpts) error {
	if err := archive.CheckName(name); err != nil {
		return err
	}
	po := minio.PutObjectOptions{ContentType: contentType(name), DisableMultipart: true}
	if opts != nil && opts.IfAbsent {
		po.SetMatchETagExcept("*")
	}
	_, err := s.c.PutObject(ctx, s.bucket, s.prefix+name, bytes.NewReader(data), int64(len(data)), po)
	if err != nil {
		resp := minio.ToErrorResponse(err)
		if opts != nil && opts.IfAbsent && (resp.StatusCode == http.StatusPreconditionFailed || resp.StatusCode == http.StatusConflict ||
			resp.Code == "PreconditionFailed" || resp.Code == "ConditionalRequestConflict") {
			return archive.ErrExists
		}
		return err
	}
	return nil
}

func contentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".json"):
		return "application/json"
	case strings.HasSuffix(name, ".parquet"):
		return "application/vnd.apache.parquet"
	default:
		return "application/octet-stream"
	}
}

// Get returns the object's bytes, or an error matching
// [archive.ErrNotFound]. Errors: [*echomq.ArgumentError] for a bad name;
// the server's errors.
func (s *Store) Get(ctx context.Context, name string) ([]byte, error) {
	if err := archive.CheckName(name); err != nil {
		return nil, err
	}
	obj, err := s.c.GetObject(ctx, s.bucket, s.prefix+name, minio.GetObjectOptions{})
	if err != nil {
		return nil, notFound(err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		return nil, notFound(err)
	}
	return b, nil
}

// GetLimit is Get reading at most limit+1 bytes ([archive.LimitGetter]): an
// object larger than limit is never read whole.
func (s *Store) GetLimit(ctx context.Context, name string, limit int64) ([]byte, error) {
	if err := archive.CheckName(name); err != nil {
		return nil, err
	}
	obj, err := s.c.GetObject(ctx, s.bucket, s.prefix+name, minio.GetObjectOptions{})
	if err != nil {
		return nil, notFound(err)
	}
	defer obj.Close()
	b, err := archive.LimitReadAll(obj, limit)
	if err != nil {
		return nil, notFound(err)
	}
	return b, nil
}

func notFound(err error) error {
	if resp := minio.ToErrorResponse(err); resp.Code == "NoSuchKey" || resp.StatusCode == http.StatusNotFound && resp.Code != "NoSuchBucket" {
		return archive.ErrNotFound
	}
	return err
}

// List returns the objects whose names start with prefix, sorted by name.
// Errors: [*echomq.ArgumentError] for a bad prefix; the server's errors.
func (s *Store) List(ctx context.Context, prefix string) ([]archive.Object, error) {
	if err := archive.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	var out []archive.Object
	for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, o.Err
		}
		name := strings.TrimPrefix(o.Key, s.prefix)
		if archive.CheckName(name) != nil {
			continue // not ours: a directory marker or a foreign key
		}
		out = append(out, archive.Object{Name: name, Size: o.Size, ModTime: o.LastModified})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete removes the object; a missing object is not an error. Errors:
// [*echomq.ArgumentError] for a bad name; the server's errors.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := archive.CheckName(name); err != nil {
		return err
	}
	err := s.c.RemoveObject(ctx, s.bucket, s.prefix+name, minio.RemoveObjectOptions{})
	if errors.Is(notFound(err), archive.ErrNotFound) {
		return nil
	}
	return err
}
