package echomq

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/startstop"
)

// consumerEngine is the one consumer engine behind [Consumer] and
// [SetConsumer], which are thin fronts over it: the service lifecycle, the
// run (consumer_run.go: one fetch loop over one or more streams, reclaims,
// the retry of a failed engine call; consumer_settle.go: the handler
// workers, acknowledgements in batches, the stop), the handler call (panic
// recovery, DeliverHooks), the settling of its outcome (acknowledgement, a
// retry after RetryAfter, the dead letters after MaxDeliveries;
// consumer_engine_settle.go, consumer_engine_ack.go), the outage watch, the
// stats and the lines that say why a run ended.
//
// What differs is only how a run reads, its [fetchSource]: one stream by a
// blocking read (consumer_source.go), or the streams of a set merged in
// entry-id order (stream_set_consumer.go).
type consumerEngine struct {
	consumerSpec
	c      *Client
	log    *slog.Logger
	source func() fetchSource // a new one for each run

	svc   startstop.Service // Run, Start, Stop and Stopped
	watch *outage.Watch     // logs each outage of the engine once
	stats consumerCounters
}

// consumerSpec is what a front tells the engine about itself.
type consumerSpec struct {
	// ConsumerConfig is the front's configuration with the defaults filled
	// in (a set consumer's Stream is empty: its streams are the set's).
	ConsumerConfig
	name       string // "echomq: consumer" or "echomq: set consumer": the prefix of its lines
	op         string // the operation its errors name: "consume" or "set consume"
	target     string // what its errors name: the stream's key or the set
	perStream  bool   // its deliveries come from many streams: lines name the stream
	fromStart  bool   // a handler's deadline counts from its start: nothing expires queued (a set's order)
	recreateAt string // where a group that vanished is created again
}

// limit is MaxDeliveries; at or below 0: no dead letters.
func (s *consumerSpec) limit() int64 { return int64(s.MaxDeliveries) }

// margin is how long before the engine could see an entry as idle for
// MinIdle its handler's context ends.
func (s *consumerSpec) margin() time.Duration { return s.MinIdle/10 + s.AckInterval }

func newConsumerEngine(c *Client, log *slog.Logger, source func() fetchSource, s consumerSpec) *consumerEngine {
	return &consumerEngine{consumerSpec: s, c: c, log: log, source: source, watch: outage.New(log, s.name)}
}

// Run, Start, Stop and Stopped are the service methods of both fronts.
func (e *consumerEngine) Run(ctx context.Context) error {
	err := e.svc.Run(ctx, e.run)
	if errors.Is(err, ErrRunning) {
		return opError(e.op, e.target, err)
	}
	return err
}

func (e *consumerEngine) Start(ctx context.Context) error {
	if err := e.svc.Start(ctx, e.run); err != nil {
		return opError(e.op, e.target, err)
	}
	return nil
}

func (e *consumerEngine) Stop(ctx context.Context) error { return e.svc.Stop(ctx) }

func (e *consumerEngine) Stopped() <-chan struct{} { return e.svc.Stopped() }

// run is one run, logged when it ends.
func (e *consumerEngine) run(ctx context.Context) error {
	return e.ended(opError(e.op, e.target, e.consume(ctx)))
}

// ended logs why a run ended, its context or a permanent error, and
// returns err.
func (e *consumerEngine) ended(err error) error {
	if err != nil {
		e.log.Error(e.name+": stopped on a permanent error", "err", err)
	} else {
		e.log.Info(e.name+": stopped", "reason", "context ended")
	}
	return err
}

// consumerCounters are the engine's stats; each front shows its share.
type consumerCounters struct {
	delivered, acked, failed, panics, dead, trimmed, reclaimed, expired, released, late atomic.Int64
}
