package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/partition"
)

// groupPartitionsDoc is the JSON result of group partitions.
type groupPartitionsDoc struct {
	Queue      string              `json:"queue"`
	Stream     string              `json:"stream"`
	Group      string              `json:"group"`
	At         time.Time           `json:"at"` // the engine's clock at the read
	Members    []groupMemberDoc    `json:"members"`
	Partitions []groupPartitionDoc `json:"partitions"`
}

type groupMemberDoc struct {
	Member string `json:"member"`
	Held   []int  `json:"held"`
	Lag    int64  `json:"lag"` // sum over the held partitions
}

type groupPartitionDoc struct {
	Partition int    `json:"partition"`
	Queue     string `json:"queue"`
	Owner     string `json:"owner"` // "" when no live member holds it
	Token     int64  `json:"token"`
	Lag       int64  `json:"lag"`
	LagExact  bool   `json:"lag_exact"`
	Pending   int64  `json:"pending"`
}

func (a *app) groupPartitionsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "partitions STREAM GROUP",
		Short: "Show a partitioned stream's group: members, the partitions each holds, and lag",
		Long: `Show consumer group GROUP of the partitioned stream STREAM as the engine holds it:
the live members (name/instance) with the partitions each holds and their lag,
then every partition with its queue, holder ("-" when none), fencing token
(the number of takes: it rises at every rebalance), lag and pending entries.
Nothing is written. A stream that is not partitioned exits 3.`,
		Example: "  emq group partitions orders billing -q shop\n  emq group partitions orders billing -q shop --json | jq '.members'",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkGroup(args[0], args[1]); err != nil {
				return err
			}
			return a.withPartitioned(cmd.Context(), args[0], func(s *partition.Stream) error {
				st, err := s.GroupState(cmd.Context(), args[1])
				if err != nil {
					return err
				}
				d := toGroupPartitionsDoc(s, st)
				if a.json {
					return writeJSON(a.stdout, d)
				}
				return a.writeGroupPartitions(d)
			})
		}),
	}
}

func toGroupPartitionsDoc(s *partition.Stream, st partition.GroupState) groupPartitionsDoc {
	d := groupPartitionsDoc{Queue: s.Queue(), Stream: s.Name(), Group: st.Group, At: st.At.UTC(), Members: []groupMemberDoc{}}
	lag := map[string]int64{}
	for _, p := range st.Partitions {
		d.Partitions = append(d.Partitions, groupPartitionDoc{
			Partition: p.Partition, Queue: p.Queue, Owner: p.Owner, Token: p.Token,
			Lag: p.Lag.Lag, LagExact: p.Lag.Exact, Pending: p.Lag.Pending,
		})
		lag[p.Owner] += p.Lag.Lag
	}
	for _, m := range st.Members {
		held := st.Held(m)
		if held == nil {
			held = []int{}
		}
		d.Members = append(d.Members, groupMemberDoc{Member: m, Held: held, Lag: lag[m]})
	}
	return d
}

func (a *app) writeGroupPartitions(d groupPartitionsDoc) error {
	tw := table(a.stdout)
	fmt.Fprintf(tw, "queue\t%s\n", d.Queue)
	fmt.Fprintf(tw, "stream\t%s\n", d.Stream)
	fmt.Fprintf(tw, "group\t%s\n", d.Group)
	fmt.Fprintf(tw, "members\t%d\n", len(d.Members))
	fmt.Fprintln(tw)
	if len(d.Members) > 0 {
		fmt.Fprintln(tw, "MEMBER\tPARTITIONS\tLAG")
		for _, m := range d.Members {
			held := make([]string, len(m.Held))
			for i, p := range m.Held {
				held[i] = strconv.Itoa(p)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\n", m.Member, orEmptyDash(strings.Join(held, ",")), m.Lag)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw, "PARTITION\tQUEUE\tHOLDER\tTOKEN\tLAG\tPENDING")
	for _, p := range d.Partitions {
		lag := strconv.FormatInt(p.Lag, 10)
		if !p.LagExact {
			lag = ">=" + lag
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%d\n", p.Partition, p.Queue, orEmptyDash(p.Owner), p.Token, lag, p.Pending)
	}
	return tw.Flush()
}
