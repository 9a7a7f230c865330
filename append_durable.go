package echomq

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

// defaultDurableTimeout is how long a durable append waits for its
// replicas when Durability.Timeout is 0.
const defaultDurableTimeout = time.Second

// maxDurableReplicas bounds Durability.Replicas.
const maxDurableReplicas = 64

// Durability makes an append wait, after its write, until replicas of the
// engine hold it, so a failover that promotes one of them keeps it. The
// zero value waits for nothing (a plain append).
//
// Replication is asynchronous: an acknowledged plain append lives on the
// master alone until its replicas catch up, and a failover in that window
// loses it (docs/faults.md measures how often). A durable append is
// acknowledged only once Replicas replicas have it: the write goes on a
// connection held for it, followed on that same connection by WAIT
// numreplicas timeout (which counts the writes of its connection), or, with
// Fsync on an engine that has it, WAITAOF 0 numreplicas timeout.
type Durability struct {
	// Replicas is how many replicas must acknowledge the write (1..64).
	// Defaults to 0: no wait.
	Replicas int
	// Timeout bounds the wait in the engine. Defaults to
	// 1s.
	Timeout time.Duration
	// Fsync waits until the replicas have written the append to their
	// append-only files (WAITAOF; the replicas must run appendonly yes, or
	// none acknowledges), not only received it (WAIT). WAITAOF exists in
	// Redis and Valkey 7.2 and later; on an older engine (Redis 7.0) the
	// append falls back to WAIT, and [DurabilityError.Cmd] says which was
	// used. Defaults to false: WAIT.
	Fsync bool
}

func (d *Durability) on() bool { return d.Replicas > 0 }

func (d *Durability) timeout() time.Duration {
	if d.Timeout == 0 {
		return defaultDurableTimeout
	}
	return d.Timeout
}

func (d *Durability) validate() error {
	switch {
	case d.Replicas < 0 || d.Replicas > maxDurableReplicas:
		return &ArgumentError{Name: "durable replicas", Reason: fmt.Sprintf("%d is outside 0..%d", d.Replicas, maxDurableReplicas)}
	case d.Timeout < 0:
		return &ArgumentError{Name: "durable timeout", Reason: d.Timeout.String() + " is negative"}
	case d.Replicas == 0 && (d.Timeout != 0 || d.Fsync):
		return &ArgumentError{Name: "durable replicas", Reason: "is 0 (no wait) while a timeout or fsync is set"}
	}
	return nil
}

// ErrNotDurable means a durable append was written but fewer replicas than
// asked acknowledged it in time ([*DurabilityError]).
var ErrNotDurable = errors.New("echomq: append not acknowledged by enough replicas")

// DurabilityError is a durable append that was written on the master but
// acknowledged by fewer replicas than Durability.Replicas within its
// timeout: a failover now could still lose it. The append is not undone;
// its receipts are here (and returned beside the error). Retrying with the
// same AppendOpts.Key is safe: the repeat writes nothing and waits again.
// It matches [ErrNotDurable] and [ErrUnavailable].
type DurabilityError struct {
	// Receipts are the ids of the events written.
	Receipts []ID
	// Want is Durability.Replicas; Acked how many replicas acknowledged.
	Want, Acked int
	// Cmd is the command that waited: "WAIT" or "WAITAOF".
	Cmd string
	// Timeout is how long the engine waited.
	Timeout time.Duration
	// Err, when not nil, is why the wait did not complete after the write
	// (for example UNBLOCKED: the master turned replica in a failover
	// while it waited); Acked is then 0 and the event may or may not be on
	// the new master.
	Err error
}

func (e *DurabilityError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("echomq: append written but its wait for %d replicas (%s) failed: %v; retrying with the same idempotency key is safe",
			e.Want, e.Cmd, e.Err)
	}
	return fmt.Sprintf("echomq: append written but acknowledged by %d of %d replicas within %v (%s): it may be lost in a failover; retrying with the same idempotency key is safe",
		e.Acked, e.Want, e.Timeout, e.Cmd)
}

// Unwrap returns [ErrNotDurable] and [ErrUnavailable], so errors.Is
// matches both, and why the wait failed (Err) when it did not merely
// complete short.
func (e *DurabilityError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNotDurable, ErrUnavailable}
	}
	return []error{ErrNotDurable, ErrUnavailable, e.Err}
}

// durableRedirects bounds how long a durable append keeps following a
// cluster whose slot moved (MOVED/ASK: nothing was written) while the
// client refreshes its map of the cluster.
const durableRedirects = 2 * time.Second

// appendDurable appends records through the append script on a connection
// held for it and waits on that connection for opts.Durable's replicas.
// The ids it returns are the receipts (also on a *DurabilityError).
func (s *Stream) appendDurable(ctx context.Context, records []Fields, opts *AppendOpts) ([]ID, error) {
	c := s.c
	ids := make([]ID, len(records))
	for i := range ids {
		var err error
		if ids[i], err = c.mint(ctx, s.queue, BrandEvent); err != nil {
			return nil, err
		}
	}
	d := opts.Durable
	var got []ID
	var ack wire.Ack
	var werr error // the wait's failure, after the write
	var err error
	began, wait := time.Now(), 25*time.Millisecond
	for {
		got, werr = nil, nil
		err = c.conn.Pin(ctx, func(p *wire.Conn) error {
			var err error
			if got, err = s.scriptOn(ctx, p, true, c.eclock.mode(s.key), ids, records, opts); err != nil {
				return err
			}
			ack, werr = p.WaitReplicas(ctx, d.Replicas, d.timeout(), d.Fsync)
			return nil
		})
		if err == nil || !redirected(err) || time.Since(began) > durableRedirects {
			break
		}
		// The slot moved (a failover, a reshard): the held connection went
		// to its old node and nothing was written. The client refreshes its
		// map of the cluster meanwhile; try again shortly.
		wait = min(2*wait, 200*time.Millisecond)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	if err != nil {
		return nil, err
	}
	c.astats.records.Add(int64(len(records)))
	var se *ServerError
	switch {
	case werr != nil && errors.As(werr, &se):
		// The engine refused to finish the wait (UNBLOCKED: the master
		// turned replica in a failover): written, durability unknown.
		return got, &DurabilityError{Receipts: got, Want: d.Replicas, Cmd: ack.Cmd, Timeout: d.timeout(), Err: werr}
	case werr != nil:
		return got, werr // written; the wait itself failed on the way (transport, timeout)
	case ack.Replicas < d.Replicas:
		return got, &DurabilityError{Receipts: got, Want: d.Replicas, Acked: ack.Replicas, Cmd: ack.Cmd, Timeout: d.timeout()}
	}
	return got, nil
}

// durableFence makes a repeat's wait cover its first append. WAIT counts
// the writes of its own connection, and a repeat (its key found) writes
// nothing, while the first append may have gone on another connection and
// not be on the replicas yet. Setting the key's expiry to the instant it
// already has is a write the engine propagates (it changes nothing), so the
// wait after it covers every earlier write of the master, the first append
// among them: replication is in order.
func durableFence(ctx context.Context, conn *wire.Conn, idemKey string) error {
	at, err := conn.RawKeyed(ctx, "PEXPIRETIME", idemKey)
	if err != nil {
		return err
	}
	ms, ok := at.(int64)
	if !ok || ms <= 0 {
		return nil // gone meanwhile (expired): nothing to wait for beyond this connection
	}
	_, err = conn.RawKeyed(ctx, "PEXPIREAT", idemKey, strconv.FormatInt(ms, 10))
	return err
}

// redirected reports a cluster redirection: the command did not run.
func redirected(err error) bool {
	var se *ServerError
	return errors.As(err, &se) && (se.Prefix == "MOVED" || se.Prefix == "ASK" || strings.HasPrefix(se.Message, "MOVED "))
}
