package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// readDoc is the JSON result of read, window, since and tail.
type readDoc struct {
	Queue  string     `json:"queue"`
	Stream string     `json:"stream"`
	From   string     `json:"from"` // the XRANGE bounds read
	To     string     `json:"to"`
	Count  int        `json:"count"`
	Events []eventDoc `json:"events"`
}

// readOpts are the flags every range read shares.
type readOpts struct {
	count   int
	reverse bool
}

func (o *readOpts) register(cmd *cobra.Command) {
	cmd.Flags().IntVarP(&o.count, "count", "n", 0, "at most this many events (0: no cap)")
	cmd.Flags().BoolVar(&o.reverse, "reverse", false, "newest first (with --count: the newest N)")
}

// readRange validates and reads r from stream name and prints the events.
func (a *app) readRange(ctx context.Context, name string, r echomq.Range, o readOpts) error {
	if err := a.checkStream(name); err != nil {
		return err
	}
	if err := checkCount("count", o.count); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	return a.withStream(ctx, name, func(s *echomq.Stream) error {
		evs, err := s.Read(ctx, r, &echomq.ReadOpts{Count: o.count, Reverse: o.reverse})
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			if err := mustExist(ctx, s); err != nil {
				return err
			}
		}
		return a.printEvents(s, r, evs)
	})
}

// mustExist answers a read that found nothing: a stream that does not
// exist is not found (exit 3), as info says; an existing one read empty.
func mustExist(ctx context.Context, s *echomq.Stream) error {
	info, err := s.Info(ctx)
	if err != nil {
		return err
	}
	if !info.Exists {
		return &notFoundError{what: fmt.Sprintf("stream %q in queue %q", s.Name(), s.Queue())}
	}
	return nil
}

func (a *app) printEvents(s *echomq.Stream, r echomq.Range, evs []echomq.Event) error {
	if !a.json {
		return writeEvents(a.stdout, evs)
	}
	from, to := r.From.String(), r.To.String()
	if from == "" {
		from = "-"
	}
	if to == "" {
		to = "+"
	}
	return writeJSON(a.stdout, readDoc{
		Queue: a.queue, Stream: s.Name(), From: from, To: to,
		Count: len(evs), Events: toEventDocs(evs),
	})
}

func (a *app) readCommand() *cobra.Command {
	var o readOpts
	var from, to string
	var merged bool
	var so storeOpts
	cmd := &cobra.Command{
		Use:   "read STREAM",
		Short: "Read a range of a stream in mint order",
		Long: `Read the events of STREAM between --from and --to (both included), oldest first.

A bound is "-" (the start) or "+" (the end), an entry id "<ms>-<seq>" or "<ms>",
an EVT id (its entry), or a time (whole milliseconds: a lower bound starts at
the first id of its millisecond, an upper bound ends at the last). Prefix "("
to exclude the bound. A stream that does not exist exits 3 (not found); an
existing stream with nothing in the range prints an empty table.

--merged reads the stream's archive (--store or --s3, as "emq archive") and
its live tail as one log, with an ARCHIVED column: "emq archive read".`,
		Example: `  emq read orders
  emq read orders --from 2024-06-01T12:00:00Z --to now --count 100
  emq read orders --from '(EVT0Ab3dE9xYz1'
  emq read orders --reverse -n 5
  emq read orders --merged --store ./emq-archive`,
		Args: argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			now := a.opts.Clock()
			lo, err := parseBound(from, true, now)
			if err != nil {
				return err
			}
			hi, err := parseBound(to, false, now)
			if err != nil {
				return err
			}
			if merged {
				return a.readMerged(cmd.Context(), cmd, &so, args[0], echomq.Span(lo, hi), o)
			}
			if cmd.Flags().Changed("store") || cmd.Flags().Changed("s3") {
				return usagef("read: --store and --s3 need --merged")
			}
			return a.readRange(cmd.Context(), args[0], echomq.Span(lo, hi), o)
		}),
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&merged, "merged", false, "read the archive and the live stream as one log")
	so.register(cmd.Flags())
	cmd.Flags().StringVar(&from, "from", "-", "lower bound: -, entry id, EVT id or time; ( excludes")
	cmd.Flags().StringVar(&to, "to", "+", "upper bound: +, entry id, EVT id or time; ( excludes")
	return cmd
}

func (a *app) windowCommand() *cobra.Command {
	var o readOpts
	cmd := &cobra.Command{
		Use:   "window STREAM T0 T1",
		Short: "Read the events minted in the closed time window [T0, T1]",
		Long: `Read the events of STREAM minted from T0's millisecond to T1's, both included.

A time window is an id range: [floor(T0), ceil(T1)] = ["<ms0>-0", "<ms1>-4194303"].
T1 before T0 is refused (exit 2); [T, T] is one millisecond.`,
		Example: `  emq window orders -1h now
  emq window orders 2024-06-01T00:00:00Z 2024-06-01T23:59:59.999Z`,
		Args: argsRange(3, 3),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			now := a.opts.Clock()
			t0, err := parseTime(args[1], now)
			if err != nil {
				return err
			}
			t1, err := parseTime(args[2], now)
			if err != nil {
				return err
			}
			return a.readRange(cmd.Context(), args[0], echomq.Window(t0, t1), o)
		}),
	}
	o.register(cmd)
	return cmd
}

func (a *app) sinceCommand() *cobra.Command {
	var o readOpts
	cmd := &cobra.Command{
		Use:     "since STREAM T0",
		Short:   "Read the events minted at or after T0",
		Example: "  emq since orders -15m\n  emq since orders 2024-06-01",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			t0, err := parseTime(args[1], a.opts.Clock())
			if err != nil {
				return err
			}
			return a.readRange(cmd.Context(), args[0], echomq.Since(t0), o)
		}),
	}
	o.register(cmd)
	return cmd
}
