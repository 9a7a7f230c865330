package retention

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
)

// Result is the outcome of one policy applied once.
type Result struct {
	Policy Policy
	// Spec is the trim the rule resolved to.
	Spec echomq.TrimSpec
	// Trimmed is how many entries the trim removed.
	Trimmed int64
	// Err is why the policy was not applied (nil when it was).
	Err error
}

// Apply applies p once, reading "now" for an [Ago] rule from now, and
// returns how many entries it removed. Errors, all before any trim: the
// policy's [*echomq.NameError] or [*echomq.ArgumentError] (before any I/O);
// an [*ArchivedError] when the stream is under archive control; the
// engine's errors ([echomq.ErrWrongType], [echomq.ErrClosed], context
// errors, [*echomq.ServerError], [*echomq.TransportError]).
func Apply(ctx context.Context, client *echomq.Client, p Policy, now time.Time) (Result, error) {
	res := Result{Policy: p}
	if client == nil {
		res.Err = &echomq.ArgumentError{Name: "client", Reason: "must not be nil"}
		return res, res.Err
	}
	spec, err := p.Rule.Spec(now)
	if err == nil {
		err = p.Validate()
	}
	if err != nil {
		res.Err = fmt.Errorf("retention: %s: %w", p, err)
		return res, res.Err
	}
	res.Spec = spec
	if err := underArchive(ctx, client, p.Queue, p.Stream); err != nil {
		res.Err = err
		return res, err
	}
	trimmed, err := client.Stream(p.Queue, p.Stream).Trim(ctx, spec)
	res.Trimmed, res.Err = trimmed.Removed, err
	return res, res.Err
}

// underArchive returns an [*ArchivedError] when the stream has an archive
// watermark or an archiver's lease (one EXISTS per key: they share a slot
// but are reported apart).
func underArchive(ctx context.Context, client *echomq.Client, q, name string) error {
	conn := clientconn.Of(client)
	for _, k := range []struct{ key, reason string }{
		{keyspace.ArchivedKey(q, name), "it has an archive watermark"},
		{keyspace.ArchiverKey(q, name), "an archiver holds its lease"},
	} {
		n, err := conn.Exists(ctx, k.key)
		if err != nil {
			return fmt.Errorf("retention: %s/%s: check archive control: %w", q, name, err)
		}
		if n > 0 {
			return &ArchivedError{Queue: q, Stream: name, Reason: k.reason}
		}
	}
	return nil
}
