package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
)

// windowReplayDoc is the JSON result of replay.
type windowReplayDoc struct {
	Queue  string `json:"queue"`
	Stream string `json:"stream"`
	Into   string `json:"into"`
	From   string `json:"from"`
	To     string `json:"to"`
	Events int64  `json:"events"`
	First  string `json:"first,omitempty"`
	Last   string `json:"last,omitempty"`
	Merged bool   `json:"merged"`
}

func (a *app) replayCommand() *cobra.Command {
	var (
		from, to, into string
		merged         bool
		so             storeOpts
	)
	cmd := &cobra.Command{
		Use:   "replay STREAM --into TARGET [--from B] [--to B] [--merged]",
		Short: "Append a range (a time window) of a stream to another stream",
		Long: `Append the events of STREAM between --from and --to (bounds as "emq read" takes
them: times, entry ids, EVT ids) to stream TARGET of the same queue, oldest
first, each with a new id and its payload unchanged. --merged reads the
stream's archive (--store or --s3) and live tail as one log, so a window that
reaches into archived history replays whole.

Each append carries the idempotency key replay:<source key>:<original id>, so
running the same replay again within the dedupe window appends nothing twice.`,
		Example: `  emq replay guess-scored --into guess-scored-replay --from -1h --to now
  emq replay orders --into orders-fix --from 2024-06-01 --to 2024-06-02 --merged --store ./emq-archive`,
		Args: argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if into == "" {
				return usagef("replay: --into TARGET is required")
			}
			r, err := a.readBounds(from, to)
			if err != nil {
				return err
			}
			if err := r.Validate(); err != nil {
				return err
			}
			for _, n := range []string{args[0], into} {
				if err := a.checkStream(n); err != nil {
					return err
				}
			}
			if args[0] == into {
				return usagef("replay: --into must name another stream")
			}
			if !merged {
				if cmd.Flags().Changed("store") || cmd.Flags().Changed("s3") {
					return usagef("replay: --store and --s3 need --merged")
				}
				return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
					return a.replay(cmd.Context(), s, s.Client().Stream(a.queue, into), r, false)
				})
			}
			if err := so.check(cmd, a.opts.Getenv); err != nil {
				return err
			}
			return a.withArchiver(cmd, &so, false, nil, func(arch *archive.Archiver) error {
				rd := arch.Reader(a.queue, args[0])
				return a.replay(cmd.Context(), rd, rd.Client().Stream(a.queue, into), r, true)
			})
		}),
	}
	cmd.Flags().StringVar(&into, "into", "", "stream of the same queue to append to (required)")
	cmd.Flags().StringVar(&from, "from", "-", "lower bound: -, entry id, EVT id or time; ( excludes")
	cmd.Flags().StringVar(&to, "to", "+", "upper bound: +, entry id, EVT id or time; ( excludes")
	cmd.Flags().BoolVar(&merged, "merged", false, "read the archive and the live stream as one log")
	so.register(cmd.Flags())
	return cmd
}

func (a *app) replay(ctx context.Context, src echomq.EventSource, dst *echomq.Stream, r echomq.Range, merged bool) error {
	res, err := echomq.Replay(ctx, src, r, &echomq.ReplayOpts{Into: dst})
	if err != nil {
		return err
	}
	from, to := r.From.String(), r.To.String()
	if from == "" {
		from = "-"
	}
	if to == "" {
		to = "+"
	}
	if a.json {
		doc := windowReplayDoc{Queue: a.queue, Stream: streamName(src), Into: dst.Name(), From: from, To: to, Events: res.Events, Merged: merged}
		if res.Events > 0 {
			doc.First, doc.Last = res.First.String(), res.Last.String()
		}
		return writeJSON(a.stdout, doc)
	}
	_, err = fmt.Fprintf(a.stdout, "replayed %d events of %q into %q\n", res.Events, streamName(src), dst.Name())
	return err
}

func streamName(src echomq.EventSource) string {
	if n, ok := src.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}
