package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/partition"
)

// withPartitioned connects and runs fn on the partitioned stream; a stream
// with no partition count recorded is a not-found error (exit 3).
func (a *app) withPartitioned(ctx context.Context, stream string, fn func(*partition.Stream) error) error {
	return a.withClient(ctx, func(c *echomq.Client) error {
		s, err := partition.Open(ctx, c, a.queue, stream)
		if errors.Is(err, partition.ErrNotPartitioned) {
			return &notFoundError{what: fmt.Sprintf("partitioned stream %q in queue %q", stream, a.queue)}
		}
		if err != nil {
			return err
		}
		return fn(s)
	})
}

func (a *app) partitionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "partition",
		Short: "Create and inspect partitioned streams",
		Long: `A partitioned stream keeps one logical stream in P partitions, each an ordinary
stream in a queue of its own ("<queue>.emq-p<i>of<P>-<salt>") whose cluster slot
lies in its own part of the slot space, so the partitions spread over a
cluster's masters (docs/partitions.md). "emq group partitions" shows how a
consumer group's members share them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.partitionCreateCommand(), a.partitionInfoCommand())
	return cmd
}

// partitionInfoDoc is the JSON result of partition create and info.
type partitionInfoDoc struct {
	Queue      string             `json:"queue"`
	Stream     string             `json:"stream"`
	Counts     []int              `json:"counts"` // partition counts, oldest generation first
	Partitions []partitionPartDoc `json:"partitions"`
}

type partitionPartDoc struct {
	Partition int    `json:"partition"`
	Queue     string `json:"queue"`
	Length    int64  `json:"length"`
	Last      string `json:"last"` // newest entry id, "" when empty
}

func (a *app) partitionCreateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "create STREAM P",
		Short: "Create a partitioned stream of P partitions (recorded on the engine)",
		Long: `Record STREAM of --queue as a partitioned stream of P partitions (1 to 1024).
Creating it again with the same P is not an error; another P fails (exit 1)
and writes nothing. The partitions' streams come into being with their first
append.`,
		Example: "  emq partition create orders 8 -q shop",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			p, err := strconv.Atoi(args[1])
			if err != nil || p < 1 || p > partition.MaxPartitions {
				return usagef("invalid partition count %q: want 1..%d", args[1], partition.MaxPartitions)
			}
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			return a.withClient(cmd.Context(), func(c *echomq.Client) error {
				s, err := partition.Create(cmd.Context(), c, a.queue, args[0], p)
				if err != nil {
					return err
				}
				return a.writePartitionInfo(cmd.Context(), s)
			})
		}),
	}
}

func (a *app) partitionInfoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "info STREAM",
		Short: "Show a partitioned stream's partitions: queue, length and newest id",
		Long: `Show the partition counts recorded for STREAM (several after a repartition:
reads merge every generation, appends go to the newest) and each partition's
queue, length and newest entry id. A stream that is not partitioned exits 3.`,
		Example: "  emq partition info orders -q shop\n  emq partition info orders -q shop --json | jq '.partitions[].length'",
		Args:    argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			return a.withPartitioned(cmd.Context(), args[0], func(s *partition.Stream) error {
				return a.writePartitionInfo(cmd.Context(), s)
			})
		}),
	}
}

func (a *app) writePartitionInfo(ctx context.Context, s *partition.Stream) error {
	d := partitionInfoDoc{Queue: s.Queue(), Stream: s.Name(), Counts: s.Counts()}
	for i, p := range s.All() {
		info, err := p.Info(ctx)
		if err != nil {
			return err
		}
		pd := partitionPartDoc{Partition: i, Queue: p.Queue(), Length: info.Length}
		if info.Last != nil {
			pd.Last = info.Last.ID.String()
		}
		d.Partitions = append(d.Partitions, pd)
	}
	if a.json {
		return writeJSON(a.stdout, d)
	}
	counts := make([]string, len(d.Counts))
	for i, n := range d.Counts {
		counts[i] = strconv.Itoa(n)
	}
	tw := table(a.stdout)
	fmt.Fprintf(tw, "queue\t%s\n", d.Queue)
	fmt.Fprintf(tw, "stream\t%s\n", d.Stream)
	fmt.Fprintf(tw, "partitions\t%s\n", strings.Join(counts, ","))
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "PARTITION\tQUEUE\tLENGTH\tLAST")
	for _, p := range d.Partitions {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", p.Partition, p.Queue, p.Length, orEmptyDash(p.Last))
	}
	return tw.Flush()
}

func orEmptyDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
