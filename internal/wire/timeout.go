package wire

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/valkey-io/valkey-go"
)

// ErrUnavailable matches every failure that may pass by itself: the engine
// cannot be reached or answers too late ([*TransportError],
// [*TimeoutError]), or it is loading, busy or failing over (a
// [*ServerError] whose prefix is LOADING, BUSY, TRYAGAIN, CLUSTERDOWN,
// MASTERDOWN, READONLY or UNBLOCKED). A caller's own cancellation or deadline is not
// it: those come back as the context's error.
var ErrUnavailable = errors.New("echomq: engine unavailable")

// TimeoutError is a call that did not complete within the connection's
// default call timeout (its context had no earlier deadline). Err is the
// last failure seen meanwhile (a refused dial, a broken connection), nil
// when the engine simply did not answer. It matches [ErrUnavailable].
type TimeoutError struct {
	After time.Duration
	Err   error
}

func (e *TimeoutError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("echomq: engine did not answer within %v", e.After)
	}
	return fmt.Sprintf("echomq: engine did not answer within %v: %v", e.After, e.Err)
}

// Unwrap returns the last failure seen.
func (e *TimeoutError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *TimeoutError) Is(target error) bool { return target == ErrUnavailable }

// Is makes errors.Is(err, ErrUnavailable) true for every transport failure.
func (e *TransportError) Is(target error) bool { return target == ErrUnavailable }

// blockKey carries a blocking command's block time to [timed.Do], so its
// bound is the block plus the call timeout.
type blockKey struct{}

// withBlock marks ctx for a command that blocks up to block in the engine.
func withBlock(ctx context.Context, block time.Duration) context.Context {
	return context.WithValue(ctx, blockKey{}, block)
}

// timed bounds every call of a valkey.Client by a default timeout, so that
// no call waits forever: valkey-go retries read-only commands on network
// errors for as long as their context lasts, and a write to a hung engine
// waits for its reply as long. The bound applies only when it is earlier
// than the caller's deadline; a blocking command gets its block time on top
// (one that blocks without a bound is not bounded). When the bound ends a
// call, its result becomes a [*TimeoutError].
type timed struct {
	valkey.Client
	d time.Duration // <= 0: no default bound
}

func (t timed) limit(ctx context.Context, block bool) time.Duration {
	if t.d <= 0 {
		return 0
	}
	if !block {
		return t.d
	}
	b, ok := ctx.Value(blockKey{}).(time.Duration)
	if !ok || b <= 0 {
		return 0
	}
	return b + t.d
}

// bound returns the deadline the default bound sets for a call starting
// now, and false when there is none or the caller's own deadline comes
// first (then the caller's context governs and its error is the caller's).
func (t timed) bound(ctx context.Context, block bool) (time.Time, time.Duration, bool) {
	d := t.limit(ctx, block)
	if d <= 0 {
		return time.Time{}, 0, false
	}
	dl := time.Now().Add(d)
	if pdl, ok := ctx.Deadline(); ok && !pdl.After(dl) {
		return time.Time{}, 0, false
	}
	return dl, d, true
}

// perCall reports whether cmd needs the bound as a context of its own: a
// command valkey-go retries on network errors (it would retry for as long
// as its context lasts) or one that blocks in the engine (which the
// connection's own timeout does not cover). Any other command is bounded by
// the connection's timeout (ConnWriteTimeout, set to the same bound), which
// costs nothing per call: appends stay as cheap as a bare XADD.
func perCall(cmd valkey.Completed) bool { return cmd.IsRetryable() || cmd.IsBlock() }

func (t timed) Do(ctx context.Context, cmd valkey.Completed) valkey.ValkeyResult {
	if !perCall(cmd) {
		return connTimedOut(ctx, t.d, t.Client.Do(ctx, cmd))
	}
	dl, d, ok := t.bound(ctx, cmd.IsBlock())
	if !ok {
		return t.Client.Do(ctx, cmd)
	}
	cctx, cancel := boundCtx(ctx, dl, d, cmd.IsBlock())
	defer cancel()
	r := t.Client.Do(cctx, cmd)
	return timedOut(ctx, dl, d, r)
}

// boundCtx bounds ctx at dl. A blocking command is bounded by a timer that
// cancels it, not by a deadline: given a deadline, valkey-go waits out the
// block on the socket, deaf to a cancellation, so a stopping follower or
// consumer would hang for its whole block; without one it aborts the call
// as soon as ctx ends. Other commands take the deadline, which keeps
// valkey-go's direct path for a lone caller.
func boundCtx(ctx context.Context, dl time.Time, d time.Duration, block bool) (context.Context, context.CancelFunc) {
	if !block {
		return context.WithDeadline(ctx, dl)
	}
	cctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(d, cancel)
	return cctx, func() { timer.Stop(); cancel() }
}

func (t timed) DoMulti(ctx context.Context, cmds ...valkey.Completed) []valkey.ValkeyResult {
	block, bound := false, false
	for _, c := range cmds {
		block = block || c.IsBlock()
		bound = bound || perCall(c)
	}
	if !bound {
		rs := t.Client.DoMulti(ctx, cmds...)
		for i := range rs {
			rs[i] = connTimedOut(ctx, t.d, rs[i])
		}
		return rs
	}
	dl, d, ok := t.bound(ctx, block)
	if !ok {
		return t.Client.DoMulti(ctx, cmds...)
	}
	cctx, cancel := boundCtx(ctx, dl, d, block)
	defer cancel()
	rs := t.Client.DoMulti(cctx, cmds...)
	for i := range rs {
		rs[i] = timedOut(ctx, dl, d, rs[i])
	}
	return rs
}

// timedOut turns a failure at or after the default bound's deadline dl
// (while the caller's context still lives) into a [*TimeoutError]. The
// clock decides, not the bounded context's Err: valkey-go may see the
// deadline on its socket a moment before the context's timer fires.
func timedOut(parent context.Context, dl time.Time, d time.Duration, r valkey.ValkeyResult) valkey.ValkeyResult {
	err := r.NonValkeyError()
	if err == nil || parent.Err() != nil || time.Now().Before(dl) {
		return r
	}
	var cause error // nil: the bound itself, not a failure worth naming
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !isTimeout(err) {
		cause = convert(err)
	}
	return valkey.NewErrorResult(&TimeoutError{After: d, Err: cause})
}

// connTimedOut turns the connection's own timeout (ConnWriteTimeout: the
// engine stopped answering) into a [*TimeoutError]: valkey-go reports it as
// a deadline, which the caller's context did not set.
func connTimedOut(ctx context.Context, d time.Duration, r valkey.ValkeyResult) valkey.ValkeyResult {
	err := r.NonValkeyError()
	if err == nil || d <= 0 || ctx.Err() != nil {
		return r
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		// The caller's context still lives: the deadline was the
		// connection's, not the caller's.
		return valkey.NewErrorResult(&TimeoutError{After: d})
	}
	return r
}

// isTimeout reports a socket deadline (set by valkey-go from the context).
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}
