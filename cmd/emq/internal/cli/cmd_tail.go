package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

func (a *app) tailCommand() *cobra.Command {
	var (
		n      int
		follow bool
		from   string
	)
	cmd := &cobra.Command{
		Use:   "tail STREAM",
		Short: "Print the newest events, and with -f follow new ones",
		Long: `Print the newest --count events of STREAM (oldest first), or every event from
--from on; with --follow keep printing events as they are appended, without a
gap, until interrupted (Ctrl-C ends it with exit 0).

Without --follow a stream that does not exist exits 3 (not found); with it,
tail says so on stderr and waits for the stream's first event. A following
tail rides out engine outages: it says on stderr when the engine stops
answering and when it is back, and goes on from the last event it printed,
none skipped or repeated.

With --json and --follow the output is JSON Lines: one event object per line.`,
		Example: `  emq tail orders
  emq tail orders -f
  emq tail orders -f -n 0              # only events appended from now on
  emq tail orders -f --from -1h`,
		Args: argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			if err := checkCount("count", n); err != nil {
				return err
			}
			var lo echomq.Bound
			if from != "" {
				if cmd.Flags().Changed("count") {
					return usagef("tail: --from and --count exclude each other")
				}
				var err error
				if lo, err = parseBound(from, true, a.opts.Clock()); err != nil {
					return err
				}
				if lo.IsUnbounded() {
					lo = echomq.Inclusive(echomq.EntryID{}) // "-": from the first entry
				}
			}
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				return a.tail(cmd.Context(), s, lo, n, follow)
			})
		}),
	}
	cmd.Flags().IntVarP(&n, "count", "n", 10, "how many of the newest events to print first")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing events as they are appended")
	cmd.Flags().StringVar(&from, "from", "", "print every event from this bound (entry id, EVT id or time) instead of the newest --count")
	return cmd
}

func (a *app) tail(ctx context.Context, s *echomq.Stream, from echomq.Bound, n int, follow bool) error {
	var head []echomq.Event
	switch {
	case !from.IsUnbounded() && !follow:
		for ev, err := range s.Scan(ctx, echomq.Range{From: from}, nil) {
			if err != nil {
				return err
			}
			head = append(head, ev)
		}
	case from.IsUnbounded() && n > 0:
		evs, err := s.Read(ctx, echomq.All, &echomq.ReadOpts{Count: n, Reverse: true})
		if err != nil {
			return err
		}
		slices.Reverse(evs)
		head = evs
	}
	if !follow {
		if len(head) == 0 {
			if err := mustExist(ctx, s); err != nil {
				return err
			}
		}
		return a.printEvents(s, echomq.Range{From: from}, head)
	}
	// Follow from just after what is printed, so nothing appended meanwhile
	// is lost: after the last printed entry, from the very first entry of a
	// stream that had none to print, or (with -n 0) after the stream's top
	// as it is now, pinned before anything is printed.
	switch {
	case !from.IsUnbounded():
	case len(head) > 0:
		from = echomq.Exclusive(head[len(head)-1].Entry)
	case n > 0:
		from = echomq.Inclusive(echomq.EntryID{})
	default:
		info, err := s.Info(ctx)
		if err != nil {
			return err
		}
		from = echomq.Inclusive(echomq.EntryID{})
		if info.Exists {
			from = echomq.Exclusive(info.LastGenerated)
		}
	}
	out, err := a.eventPrinter()
	if err != nil {
		return err
	}
	for _, ev := range head {
		if err := out(ev); err != nil {
			return err
		}
	}
	if len(head) == 0 {
		if info, err := s.Info(ctx); err == nil && !info.Exists {
			fmt.Fprintf(a.stderr, "emq: stream %q in queue %q does not exist yet; waiting for its first event\n", s.Name(), s.Queue())
		}
	}
	for ev, err := range s.Follow(ctx, &echomq.FollowOpts{From: from, Logger: a.followLogger()}) {
		if errors.Is(err, echomq.ErrUnavailable) {
			continue // the follower retries by itself and logs the outage and its end
		}
		if err != nil {
			return err
		}
		if err := out(ev); err != nil {
			return err
		}
	}
	return nil
}

// eventPrinter writes the header of a follow (text only) and returns the
// streaming printer: one row, or one JSON line, per event.
func (a *app) eventPrinter() (func(echomq.Event) error, error) {
	if a.json {
		return func(ev echomq.Event) error { return writeJSON(a.stdout, toEventDoc(ev)) }, nil
	}
	return func(ev echomq.Event) error { return writeEventRow(a.stdout, ev) }, writeEventHeader(a.stdout)
}

// followLogger is the logger of a follower: the outage and recovery lines
// ("engine unavailable; retrying", "engine back") on stderr.
func (a *app) followLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
