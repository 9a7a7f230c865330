package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// groupInfoDoc is the JSON result of group info.
type groupInfoDoc struct {
	Queue  string `json:"queue"`
	Stream string `json:"stream"`
	groupDoc
}

func (a *app) groupInfoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "info STREAM GROUP",
		Short: "Show a group's pending count, last delivered id, lag and consumers",
		Long: `Show consumer group GROUP of STREAM: how many entries are pending (delivered and
not acknowledged), the last entry id delivered to it, how many entries it read
and how many it still has to read (lag: the entries above the last delivered id,
counted by EchoMQ, so still known after trims and deletes; "engine lag" is the
engine's own figure, "-" when it cannot tell), and
each consumer with its pending count, idle time (since it last read or claimed)
and inactive time (since its last successful read or claim; "-" before Redis
7.2). A missing group exits 3.`,
		Example: "  emq group info orders billing\n  emq group info orders billing --json | jq '.consumers[].pending'",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkGroup(args[0], args[1]); err != nil {
				return err
			}
			return a.withGroup(cmd.Context(), args[0], args[1], func(g *echomq.Group) error {
				gi, err := g.Info(cmd.Context())
				if err != nil {
					return err
				}
				d, err := toGroupDoc(cmd.Context(), g.Stream(), gi)
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, groupInfoDoc{Queue: a.queue, Stream: args[0], groupDoc: d})
				}
				return a.writeGroupInfo(args[0], d, gi)
			})
		}),
	}
}

func (a *app) writeGroupInfo(stream string, d groupDoc, gi echomq.GroupInfo) error {
	tw := table(a.stdout)
	fmt.Fprintf(tw, "queue\t%s\n", a.queue)
	fmt.Fprintf(tw, "stream\t%s\n", stream)
	fmt.Fprintf(tw, "group\t%s\n", d.Group)
	fmt.Fprintf(tw, "pending\t%d\n", d.Pending)
	if gi.LastDelivered == (echomq.EntryID{}) {
		fmt.Fprintf(tw, "last delivered\t%s  (nothing delivered yet)\n", d.LastDelivered)
	} else {
		fmt.Fprintf(tw, "last delivered\t%s  %s\n", d.LastDelivered, fmtTime(gi.LastDelivered.Time()))
	}
	fmt.Fprintf(tw, "entries read\t%s\n", orDash(d.EntriesRead))
	fmt.Fprintf(tw, "lag\t%s\n", lagText(d))
	fmt.Fprintf(tw, "engine lag\t%s\n", orDash(d.EngineLag))
	fmt.Fprintf(tw, "consumers\t%d\n", len(d.Consumers))
	if err := tw.Flush(); err != nil || len(gi.Consumers) == 0 {
		return err
	}
	fmt.Fprintln(a.stdout)
	tw = table(a.stdout)
	fmt.Fprintln(tw, "CONSUMER\tPENDING\tIDLE\tINACTIVE")
	for _, c := range gi.Consumers {
		inactive := "-"
		if c.Inactive >= 0 {
			inactive = fmtIdle(c.Inactive)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", c.Name, c.Pending, fmtIdle(c.Idle), inactive)
	}
	return tw.Flush()
}

// pendingDoc is the JSON result of group pending.
type pendingDoc struct {
	Queue   string            `json:"queue"`
	Stream  string            `json:"stream"`
	Group   string            `json:"group"`
	Count   int               `json:"count"`
	Pending []pendingEntryDoc `json:"pending"`
}

type pendingEntryDoc struct {
	Entry      string `json:"entry"`
	Time       string `json:"time"`
	Consumer   string `json:"consumer"`
	Deliveries int64  `json:"deliveries"`
	IdleMs     int64  `json:"idle_ms"`
}

func (a *app) groupPendingCommand() *cobra.Command {
	var (
		consumer string
		minIdle  time.Duration
		count    int
		from, to string
	)
	cmd := &cobra.Command{
		Use:   "pending STREAM GROUP",
		Short: "List a group's pending entries with owner, delivery count and idle time",
		Long: `List the entries of GROUP that were delivered and not acknowledged, in entry-id
order: the consumer that owns each, how many times it was delivered and how long
ago (idle). --consumer lists one consumer's entries, --min-idle only entries idle
at least that long, --from/--to limit the entry ids (bounds as in read).`,
		Example: `  emq group pending orders billing
  emq group pending orders billing --consumer worker-1 --min-idle 1m -n 10`,
		Args: argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkGroup(args[0], args[1], consumer); err != nil {
				return err
			}
			if err := checkPositive("count", count); err != nil {
				return err
			}
			if minIdle < 0 {
				return usagef("invalid --min-idle %s: must not be negative", minIdle)
			}
			now := a.opts.Clock()
			lo, err := parseBound(from, true, now)
			if err != nil {
				return err
			}
			hi, err := parseBound(to, false, now)
			if err != nil {
				return err
			}
			r := echomq.Span(lo, hi)
			if err := r.Validate(); err != nil {
				return err
			}
			return a.withGroup(cmd.Context(), args[0], args[1], func(g *echomq.Group) error {
				pes, err := g.Pending(cmd.Context(), &echomq.PendingOpts{Range: r, Consumer: consumer, MinIdle: minIdle, Count: count})
				if err != nil {
					return err
				}
				return a.writePending(args[0], g.Name(), pes)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&consumer, "consumer", "", "only the entries this consumer owns")
	f.DurationVar(&minIdle, "min-idle", 0, "only entries idle at least this long (e.g. 30s)")
	f.IntVarP(&count, "count", "n", 100, "at most this many entries")
	f.StringVar(&from, "from", "-", "lower bound: -, entry id, EVT id or time; ( excludes")
	f.StringVar(&to, "to", "+", "upper bound: +, entry id, EVT id or time; ( excludes")
	return cmd
}

func (a *app) writePending(stream, group string, pes []echomq.PendingEntry) error {
	docs := make([]pendingEntryDoc, len(pes))
	for i, p := range pes {
		docs[i] = pendingEntryDoc{
			Entry: p.Entry.String(), Time: fmtTime(p.Entry.Time()), Consumer: p.Consumer,
			Deliveries: p.Deliveries, IdleMs: p.Idle.Milliseconds(),
		}
	}
	if a.json {
		return writeJSON(a.stdout, pendingDoc{Queue: a.queue, Stream: stream, Group: group, Count: len(docs), Pending: docs})
	}
	tw := table(a.stdout)
	fmt.Fprintln(tw, "ENTRY\tTIME\tCONSUMER\tDELIVERIES\tIDLE")
	for i, d := range docs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", d.Entry, d.Time, d.Consumer, d.Deliveries, fmtIdle(pes[i].Idle))
	}
	return tw.Flush()
}

// checkPositive refuses a count flag below 1.
func checkPositive(flag string, n int) error {
	if n < 1 {
		return usagef("invalid --%s %d: must be at least 1", flag, n)
	}
	return nil
}
