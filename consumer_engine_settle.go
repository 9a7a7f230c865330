package echomq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
)

// settleTimeout bounds the engine calls that settle entries (acks, dead
// letters, releases), which must not be cut off by a stop.
const settleTimeout = 5 * time.Second

// origin is the stream a delivery came from, as settling it needs it.
type origin struct {
	name, key string // the stream's name and key
}

// logFor returns the logger of lines about an entry of the named stream.
func (e *consumerEngine) logFor(stream string) *slog.Logger {
	if e.perStream {
		return e.log.With("stream", stream)
	}
	return e.log
}

// call runs the handler and reports the delivery to the DeliverHooks.
func (e *consumerEngine) call(ctx context.Context, d Delivery) error {
	hs := e.c.hooks.deliver
	if len(hs) == 0 {
		return e.invoke(ctx, d)
	}
	start := time.Now()
	err := e.invoke(ctx, d)
	info := DeliverInfo{Delivery: d, Start: start, Duration: time.Since(start), Err: err}
	for _, h := range hs {
		h.OnDeliver(ctx, info)
	}
	return err
}

// invoke runs the handler, turning a panic into a [*PanicError].
func (e *consumerEngine) invoke(ctx context.Context, d Delivery) (err error) {
	e.stats.delivered.Add(1)
	defer func() {
		if v := recover(); v != nil {
			e.stats.panics.Add(1)
			pe := &PanicError{Value: v, Stack: debug.Stack()}
			e.logFor(d.Stream).Error("handler panic", "entry", d.Entry, "id", d.ID, "attempts", d.Attempts, "panic", v, "stack", string(pe.Stack))
			err = pe
		}
	}()
	return e.Handle(ctx, d)
}

// overLimit moves an entry that arrives with more deliveries than
// MaxDeliveries (repeated crashes mid-handler) to the dead letters without
// handling it, and reports whether it did.
func (e *consumerEngine) overLimit(io context.Context, o origin, d Delivery) bool {
	if e.limit() <= 0 || d.Attempts <= e.limit() {
		return false
	}
	e.deadLetter(io, o, d, fmt.Sprintf("delivered %d times, over the limit of %d, without an outcome", d.Attempts, e.limit()))
	return true
}

// failed settles a handler's failure: a [*DecodeError] goes to the dead
// letters at once (it can never succeed); a [*RetryError] below the
// delivery limit is marked idle so that the first reclaim after its delay
// takes it; a failure of the last delivery goes to the dead letters; any
// other leaves the entry pending for a reclaim after MinIdle. id is the
// entry id as the engine spells it.
func (e *consumerEngine) failed(io context.Context, o origin, id string, d Delivery, err error) {
	e.stats.failed.Add(1)
	last := e.limit() > 0 && d.Attempts >= e.limit()
	if (e.limit() > 0 && errors.Is(err, ErrDecode)) || last {
		e.deadLetter(io, o, d, err.Error())
		return
	}
	var re *RetryError
	if idle := e.MinIdle - max(retryDelay(err, &re), 0); re != nil && idle > 0 {
		ctx, cancel := context.WithTimeout(io, settleTimeout)
		defer cancel()
		if _, rerr := e.c.conn.Release(ctx, o.key, e.Group, e.Name, idle, []string{id}); rerr != nil {
			e.logFor(o.name).Warn("retry-after mark failed; entry is retried after MinIdle", "entry", id, "err", rerr)
			return
		}
		e.log.Debug("handler asked for a retry", "entry", id, "attempts", d.Attempts, "after", re.Delay)
		return
	}
	e.logFor(o.name).Warn("handler failed; entry stays pending", "entry", id, "id", d.ID, "attempts", d.Attempts, "err", err)
}

// retryDelay returns the delay of a [*RetryError] in err's chain, setting
// *re to it; 0 when there is none.
func retryDelay(err error, re **RetryError) time.Duration {
	if !errors.As(err, re) {
		return 0
	}
	return (*re).Delay
}

// deadLetter moves an entry to its stream's dead letters and acknowledges
// it, in one atomic step that first checks this consumer still owns it (so
// a peer that reclaimed it meanwhile keeps it, and an entry is
// dead-lettered once). The dead letter's id comes from the client's
// minter; when another writer got above it, the minter moves past the dead
// stream's top and mints again. A failure leaves the entry pending: its
// next delivery is over the limit and moves it then.
func (e *consumerEngine) deadLetter(io context.Context, o origin, d Delivery, cause string) {
	log := e.logFor(o.name)
	key := d.Key()
	id, moved, err := moveToDead(io, e.c, o.key, keyspace.DeadKey(e.Queue, o.name), e.Group, e.Name, d, cause)
	if err != nil || moved {
		e.deadLettered(io, d, id, cause, err)
	}
	switch {
	case err != nil:
		log.Error("dead-lettering failed; entry stays pending", "entry", d.Entry, "id", key, "err", err)
	case moved:
		e.stats.dead.Add(1)
		log.Warn("entry moved to the dead letters", "entry", d.Entry, "id", key, "attempts", d.Attempts, "error", cause, "dead", id)
	default:
		log.Info("entry left this consumer before it could be dead-lettered", "entry", d.Entry, "id", key)
	}
}

// deadLettered reports a move to the dead letters (or its failure) to the
// DeadLetterHooks.
func (e *consumerEngine) deadLettered(io context.Context, d Delivery, dead ID, cause string, err error) {
	hs := e.c.hooks.dead
	if len(hs) == 0 {
		return
	}
	info := DeadLetterInfo{Delivery: d, Dead: dead, Cause: cause, Err: err}
	for _, h := range hs {
		h.OnDeadLetter(io, info)
	}
}
