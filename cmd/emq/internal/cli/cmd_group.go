package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// groupDoc is the JSON form of one consumer group (group list, group info).
type groupDoc struct {
	Group         string        `json:"group"`
	Pending       int64         `json:"pending"`
	LastDelivered string        `json:"last_delivered"` // "0-0" before the first delivery
	EntriesRead   *int64        `json:"entries_read"`   // null when the engine cannot tell
	Lag           int64         `json:"lag"`            // entries above last_delivered, counted by EchoMQ
	LagExact      bool          `json:"lag_exact"`      // false: lag is a lower bound (more than the count limit)
	EngineLag     *int64        `json:"engine_lag"`     // the engine's own figure, null when it cannot tell (after trims and deletes)
	Consumers     []consumerDoc `json:"consumers"`
}

type consumerDoc struct {
	Name       string `json:"name"`
	Pending    int64  `json:"pending"`
	IdleMs     int64  `json:"idle_ms"`
	InactiveMs *int64 `json:"inactive_ms"` // null when the engine does not report it
}

// toGroupDoc describes a group, its lag counted by EchoMQ above the last
// delivered id (the engine's own lag is unknown after XTRIM and XDEL).
func toGroupDoc(ctx context.Context, s *echomq.Stream, gi echomq.GroupInfo) (groupDoc, error) {
	lag, err := s.CountAfter(ctx, gi.LastDelivered, 0)
	if err != nil {
		return groupDoc{}, err
	}
	d := groupDoc{
		Group: gi.Name, Pending: gi.Pending, LastDelivered: gi.LastDelivered.String(),
		EntriesRead: known(gi.EntriesRead), Lag: lag.N, LagExact: lag.Exact, EngineLag: known(gi.Lag),
		Consumers: make([]consumerDoc, len(gi.Consumers)),
	}
	for i, c := range gi.Consumers {
		d.Consumers[i] = consumerDoc{Name: c.Name, Pending: c.Pending, IdleMs: c.Idle.Milliseconds()}
		if c.Inactive >= 0 {
			ms := c.Inactive.Milliseconds()
			d.Consumers[i].InactiveMs = &ms
		}
	}
	return d, nil
}

// lagText prints a lag, "≥N" when it is a lower bound.
func lagText(d groupDoc) string {
	if !d.LagExact {
		return fmt.Sprintf(">=%d", d.Lag)
	}
	return strconv.FormatInt(d.Lag, 10)
}

// known maps the engine's "cannot tell" (-1) to null.
func known(n int64) *int64 {
	if n < 0 {
		return nil
	}
	return &n
}

func orDash(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

// fmtIdle prints an idle time to the millisecond, the engine's resolution.
// fmtIdle shows an idle time; "-" for an entry handed back unstarted by a
// stopping consumer, which the library marks idle for a year so that any
// reclaim takes it (its idle time says nothing then).
func fmtIdle(d time.Duration) string {
	if d >= releasedIdle {
		return "-"
	}
	return d.Round(time.Millisecond).String()
}

// releasedIdle is the idle time from which an entry counts as handed back
// (the library gives 365 days).
const releasedIdle = 300 * 24 * time.Hour

// checkGroup validates the stream, group and (when not empty) consumer
// names before any I/O.
func (a *app) checkGroup(stream, group string, consumers ...string) error {
	if err := new(echomq.Client).Group(a.queue, stream, group).Err(); err != nil {
		return err
	}
	for _, c := range consumers {
		if c == "" {
			continue
		}
		if err := echomq.CheckName("consumer", c); err != nil {
			return err
		}
	}
	return nil
}

// withGroup connects and runs fn on the group handle. A missing group (or
// stream) becomes a not-found error (exit 3).
func (a *app) withGroup(ctx context.Context, stream, group string, fn func(*echomq.Group) error) error {
	return a.withStream(ctx, stream, func(s *echomq.Stream) error {
		g := s.Group(group)
		err := fn(g)
		if errors.Is(err, echomq.ErrGroupNotFound) {
			return a.groupNotFound(g)
		}
		return err
	})
}

func (a *app) groupNotFound(g *echomq.Group) error {
	return &notFoundError{what: fmt.Sprintf("group %q of stream %q in queue %q", g.Name(), g.Stream().Name(), a.queue)}
}

func (a *app) groupCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "group",
		Short: "Create and inspect consumer groups; move and remove their consumers' entries",
		Long: `A consumer group reads one stream at its own pace: every entry goes to one of the
group's consumers and stays pending until a handler succeeded. These commands
create groups, show their state and pending entries, move a consumer's pending
entries to another consumer, remove consumers that own none and move a group's
read position back or forth (reset).

A missing group exits 3. "emq consume" runs a consumer; "emq dead" handles the
entries a group gave up on.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.groupCreateCommand(), a.groupListCommand(), a.groupInfoCommand(),
		a.groupPendingCommand(), a.groupClaimCommand(), a.groupDeleteConsumerCommand(), a.groupResetCommand(),
		a.groupPartitionsCommand())
	return cmd
}

// groupCreateDoc is the JSON result of group create.
type groupCreateDoc struct {
	Queue   string `json:"queue"`
	Stream  string `json:"stream"`
	Group   string `json:"group"`
	Start   string `json:"start"`
	Created bool   `json:"created"` // false: the group existed and kept its position
}

func (a *app) groupCreateCommand() *cobra.Command {
	var start string
	cmd := &cobra.Command{
		Use:   "create STREAM GROUP",
		Short: "Create a consumer group at --start new or head",
		Long: `Create consumer group GROUP of STREAM (and the empty stream when it does not
exist). --start is required: "new" reads only what is appended from now on,
"head" reads the stream from its oldest entry. An existing group is not an
error: it keeps its position and "exists" is printed.`,
		Example: "  emq group create orders billing --start new\n  emq group create orders audit --start head",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("start") {
				return usagef("group create: --start new or head is required")
			}
			st, err := parseStart(start)
			if err != nil {
				return err
			}
			if err := a.checkGroup(args[0], args[1]); err != nil {
				return err
			}
			return a.withGroup(cmd.Context(), args[0], args[1], func(g *echomq.Group) error {
				created, err := g.Create(cmd.Context(), st)
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, groupCreateDoc{Queue: a.queue, Stream: args[0], Group: g.Name(), Start: st.String(), Created: created})
				}
				if created {
					_, err = fmt.Fprintf(a.stdout, "created group %q of stream %q at %s\n", g.Name(), args[0], st)
				} else {
					_, err = fmt.Fprintf(a.stdout, "group %q of stream %q exists; its position is unchanged\n", g.Name(), args[0])
				}
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&start, "start", "", "where the new group begins: new or head (required)")
	return cmd
}

// groupListDoc is the JSON result of group list.
type groupListDoc struct {
	Queue  string     `json:"queue"`
	Stream string     `json:"stream"`
	Groups []groupDoc `json:"groups"`
}

func (a *app) groupListCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "list STREAM",
		Short:   "List a stream's consumer groups",
		Long:    "List the consumer groups of STREAM with their consumers, pending entries, last\ndelivered entry id, entries read and lag (entries above the last delivered id,\ncounted by EchoMQ, so still known after trims and deletes). A missing stream has none.",
		Example: "  emq group list orders",
		Args:    argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				gis, err := s.Groups(cmd.Context())
				if err != nil {
					return err
				}
				docs := make([]groupDoc, len(gis))
				for i, gi := range gis {
					if docs[i], err = toGroupDoc(cmd.Context(), s, gi); err != nil {
						return err
					}
				}
				if a.json {
					return writeJSON(a.stdout, groupListDoc{Queue: a.queue, Stream: s.Name(), Groups: docs})
				}
				tw := table(a.stdout)
				fmt.Fprintln(tw, "GROUP\tCONSUMERS\tPENDING\tLAST-DELIVERED\tREAD\tLAG")
				for _, d := range docs {
					fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", d.Group, len(d.Consumers), d.Pending, d.LastDelivered, orDash(d.EntriesRead), lagText(d))
				}
				return tw.Flush()
			})
		}),
	}
}
