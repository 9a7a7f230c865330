package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// consumeOpts are the flags of consume.
type consumeOpts struct {
	name, start   string
	batch         int
	beat, minIdle time.Duration
	maxDeliveries int
	failEvery     int
	fail          bool
	max           int64
}

// deliveryDoc is one JSON line of consume: the event and its delivery.
type deliveryDoc struct {
	eventDoc
	Attempts int64  `json:"attempts"`
	Group    string `json:"group"`
	Consumer string `json:"consumer"`
	Result   string `json:"result"` // ok, failed, or dead (failed on its last delivery)
}

// deliveryRowFormat extends the event row with the delivery count and the
// handler's result, in fixed-width columns (the rows stream out).
const deliveryRowFormat = "%-14s  %-21s  %-24s  %-7s  %-6s  %s\n"

const consumeLong = `Run a consumer of consumer group GROUP of STREAM and print each delivery as it
is handled: the event, its delivery count (ATTEMPT: 1 the first time, more after
failures or reclaims) and the handler's result. For debugging: the handler does
nothing but print, then acknowledges the entry, or fails it on purpose with
--fail (every delivery) or --fail-every N (every Nth), to watch redelivery
(after --min-idle) and dead-lettering (after --max-deliveries; RESULT "dead").

Without --start the group must exist (exit 3); with it a missing group is
created there ("new": what is appended from now on, "head": the whole stream).
The consumer first handles the entries its --name still owns (after a crash, or
a "group claim"), then reclaims entries idle for --min-idle and reads new ones.

It runs until interrupted (Ctrl-C: a graceful stop, exit 0) or, with --max N,
until N deliveries were handled. Fetched entries not handled by then stay
pending, released at once to the group's next reclaim. With --json each
delivery is one JSON line.`

func (a *app) consumeCommand() *cobra.Command {
	var o consumeOpts
	cmd := &cobra.Command{
		Use:   "consume STREAM GROUP",
		Short: "Run a consumer that prints the events it handles (for debugging)",
		Long:  consumeLong,
		Example: `  emq consume orders billing --start new
  emq consume orders billing --name worker-1 --max 10
  emq consume orders billing --fail-every 3 --min-idle 2s --beat 200ms
  emq consume orders billing --fail --max-deliveries 3 --min-idle 1s   # fill the dead letters`,
		Args: argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			cfg, err := a.consumerConfig(cmd, args[0], args[1], &o)
			if err != nil {
				return err
			}
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				return a.consume(cmd.Context(), s, cfg, &o)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "consumer name (default <hostname>-<pid>); a restart under the same name recovers its pending entries")
	f.StringVar(&o.start, "start", "", "create a missing group at new or head (default: the group must exist)")
	f.IntVar(&o.batch, "batch", echomq.DefaultCount, "entries per read or reclaim")
	f.DurationVar(&o.beat, "beat", echomq.DefaultBeat, "blocking-read timeout and reclaim period")
	f.DurationVar(&o.minIdle, "min-idle", echomq.DefaultMinIdle, "idle time before an entry is reclaimed (the retry delay)")
	f.IntVar(&o.maxDeliveries, "max-deliveries", echomq.DefaultMaxDeliveries, "deliveries before an entry is dead-lettered; -1: never")
	f.IntVar(&o.failEvery, "fail-every", 0, "fail every Nth delivery (the entry stays pending)")
	f.BoolVar(&o.fail, "fail", false, "fail every delivery")
	f.Int64Var(&o.max, "max", 0, "stop after this many deliveries (0: run until interrupted)")
	return cmd
}

// consumerConfig checks the flags and names before any I/O and returns the
// consumer's configuration (without its handler).
func (a *app) consumerConfig(cmd *cobra.Command, stream, group string, o *consumeOpts) (echomq.ConsumerConfig, error) {
	f := cmd.Flags()
	cfg := echomq.ConsumerConfig{
		Queue: a.queue, Stream: stream, Group: group, Name: o.name,
		Count: o.batch, Beat: o.beat, MinIdle: o.minIdle, MaxDeliveries: o.maxDeliveries,
	}
	if err := a.checkGroup(stream, group, o.name); err != nil {
		return cfg, err
	}
	switch {
	case f.Changed("name") && o.name == "":
		return cfg, usagef("invalid --name: must not be empty")
	case o.batch < 1:
		return cfg, usagef("invalid --batch %d: must be at least 1", o.batch)
	case o.beat < time.Millisecond:
		return cfg, usagef("invalid --beat %s: must be at least 1ms", o.beat)
	case o.minIdle < time.Millisecond:
		return cfg, usagef("invalid --min-idle %s: must be at least 1ms", o.minIdle)
	case o.maxDeliveries == 0:
		return cfg, usagef("invalid --max-deliveries 0: want at least 1, or -1 to never dead-letter")
	case o.failEvery < 0:
		return cfg, usagef("invalid --fail-every %d: must not be negative", o.failEvery)
	case o.fail && o.failEvery > 0:
		return cfg, usagef("consume: --fail and --fail-every exclude each other")
	case o.max < 0:
		return cfg, usagef("invalid --max %d: must not be negative", o.max)
	}
	if f.Changed("start") {
		st, err := echomq.ParseStart(o.start)
		if err != nil {
			return cfg, err
		}
		cfg.Start = st
	}
	// The library's own checks, on a client that never connects: Consumer
	// does no I/O, and a zero Client holds no connection.
	probe := cfg
	probe.Start, probe.Logger = echomq.StartNew, slog.New(slog.DiscardHandler)
	probe.Handle = func(context.Context, echomq.Delivery) error { return nil }
	if _, err := new(echomq.Client).Consumer(probe); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// consume runs the consumer until ctx ends or --max deliveries were handled.
func (a *app) consume(ctx context.Context, s *echomq.Stream, cfg echomq.ConsumerConfig, o *consumeOpts) error {
	// Settle the group before the header is printed, so that a missing
	// group or a key of another type fails with nothing on stdout.
	g := s.Group(cfg.Group)
	if cfg.Start != 0 {
		if _, err := g.Create(ctx, cfg.Start); err != nil {
			return err
		}
	} else {
		_, err := g.Info(ctx)
		if errors.Is(err, echomq.ErrGroupNotFound) {
			return &hintedError{err: a.groupNotFound(g), hint: "give --start new or head to create it"}
		}
		if err != nil {
			return err
		}
		cfg.Start = echomq.StartNew // used only if the group vanishes meanwhile
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	injected := fmt.Sprintf("failed on purpose (--fail-every %d)", o.failEvery)
	if o.fail {
		injected = "failed on purpose (--fail)"
	}
	var calls atomic.Int64
	var printErr atomic.Pointer[error]
	var show func(echomq.Delivery, string) error
	cfg.Handle = func(_ context.Context, d echomq.Delivery) error {
		n := calls.Add(1)
		failing := o.fail || o.failEvery > 0 && n%int64(o.failEvery) == 0
		result := "ok"
		switch {
		case failing && cfg.MaxDeliveries > 0 && d.Attempts >= int64(cfg.MaxDeliveries):
			result = "dead"
		case failing:
			result = "failed"
		}
		if err := show(d, result); err != nil {
			// Output is gone (a closed pipe): stop; the entry stays pending.
			printErr.CompareAndSwap(nil, &err)
			stop()
			return err
		}
		// Stopping here, inside the handler, means no further handler
		// starts: the consumer checks its context before each one.
		if o.max > 0 && n >= o.max {
			stop()
		}
		if failing {
			return errors.New(injected)
		}
		return nil
	}
	cfg.Logger = slog.New(&dropInjected{h: slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}), msg: injected})
	c, err := s.Client().Consumer(cfg)
	if err != nil {
		return err
	}
	if a.json {
		show = func(d echomq.Delivery, result string) error {
			return writeJSON(a.stdout, deliveryDoc{
				eventDoc: toEventDoc(d.Event), Attempts: d.Attempts,
				Group: d.Group, Consumer: d.Consumer, Result: result,
			})
		}
	} else {
		show = func(d echomq.Delivery, result string) error {
			id := "-"
			if !d.ID.IsZero() {
				id = d.ID.String()
			}
			_, err := fmt.Fprintf(a.stdout, deliveryRowFormat, id, d.Entry, fmtTime(d.Time()), strconv.FormatInt(d.Attempts, 10), result, eventText(d.Event))
			return err
		}
		if _, err := fmt.Fprintf(a.stdout, deliveryRowFormat, "ID", "ENTRY", "TIME", "ATTEMPT", "RESULT", "FIELDS"); err != nil {
			return err
		}
	}
	if err := c.Run(ctx); err != nil {
		return err
	}
	if p := printErr.Load(); p != nil {
		return *p
	}
	return nil
}

// hintedError is an error with a hint appended to its message.
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return e.err.Error() + ": " + e.hint }
func (e *hintedError) Unwrap() error { return e.err }
