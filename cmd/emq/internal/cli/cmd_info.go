package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// infoDoc is the JSON result of info.
type infoDoc struct {
	Queue         string    `json:"queue"`
	Stream        string    `json:"stream"`
	Key           string    `json:"key"`
	Length        int64     `json:"length"`
	First         *eventDoc `json:"first"` // null when the stream is empty
	Last          *eventDoc `json:"last"`
	LastGenerated string    `json:"last_generated"`
	MemoryBytes   *int64    `json:"memory_bytes"` // null when the engine does not report it
	// EngineTime is the engine's clock when info was read; TopAheadMs is
	// how far the last generated id's mint instant is ahead of it
	// (negative: behind). An Append refuses to follow a top more than
	// MaxSkew (5s) ahead.
	EngineTime string `json:"engine_time"`
	TopAheadMs int64  `json:"top_ahead_ms"`
}

func (a *app) infoCommand() *cobra.Command {
	var engine bool
	cmd := &cobra.Command{
		Use:   "info STREAM",
		Short: "Show a stream's length, first and last events and memory use, or the engine",
		Long: `Show STREAM's length, its first and last events (ids, entry ids and mint
instants), the last entry id it ever accepted (appends must go above it, even
after the newest events were deleted), how far that top is ahead of the engine's
clock (or behind it) and the engine's MEMORY USAGE of its key. A top ahead of
the engine's clock means some writer minted into the future; Append refuses to
follow a top more than 5s ahead.

A stream that does not exist exits 3 with one line on stderr.

With --engine (and no STREAM) it shows the engine instead: Redis or Valkey and
its version, cluster or not, its maxmemory-policy (only noeviction keeps every
key: an evicting engine is reported, not refused, here), maxmemory, used memory
and headroom, read with one INFO.`,
		Example: "  emq info orders\n  emq info orders --json | jq .length\n  emq info --engine",
		Args:    argsRange(0, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if engine {
				if len(args) > 0 {
					return usagef("info --engine takes no STREAM (got %d argument%s)", len(args), plural(len(args)))
				}
				return a.engineInfo(cmd)
			}
			if len(args) == 0 {
				return usagef("info takes STREAM, or --engine (got 0 arguments)")
			}
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				info, err := s.Info(cmd.Context())
				if err != nil {
					return err
				}
				if !info.Exists {
					return &notFoundError{what: fmt.Sprintf("stream %q in queue %q", s.Name(), s.Queue())}
				}
				engine, err := s.Client().EngineTime(cmd.Context())
				if err != nil {
					return err
				}
				doc := infoDoc{
					Queue: a.queue, Stream: s.Name(), Key: s.Key(), Length: info.Length,
					LastGenerated: info.LastGenerated.String(), EngineTime: fmtTime(engine),
					TopAheadMs: info.LastGenerated.Time().Sub(engine).Milliseconds(),
				}
				for _, p := range []struct {
					ev  *echomq.Event
					dst **eventDoc
				}{{info.First, &doc.First}, {info.Last, &doc.Last}} {
					if p.ev != nil {
						d := toEventDoc(*p.ev)
						*p.dst = &d
					}
				}
				if info.MemoryBytes >= 0 {
					doc.MemoryBytes = &info.MemoryBytes
				}
				if a.json {
					return writeJSON(a.stdout, doc)
				}
				return a.writeInfo(doc, info)
			})
		}),
	}
	cmd.Flags().BoolVar(&engine, "engine", false, "show the engine (Client.Engine) instead of a stream")
	return cmd
}

func (a *app) writeInfo(doc infoDoc, info echomq.StreamInfo) error {
	tw := table(a.stdout)
	fmt.Fprintf(tw, "queue\t%s\n", doc.Queue)
	fmt.Fprintf(tw, "stream\t%s\n", doc.Stream)
	fmt.Fprintf(tw, "key\t%s\n", doc.Key)
	fmt.Fprintf(tw, "length\t%d\n", doc.Length)
	for _, p := range []struct {
		name string
		ev   *echomq.Event
	}{{"first", info.First}, {"last", info.Last}} {
		if p.ev == nil {
			fmt.Fprintf(tw, "%s\t-\n", p.name)
			continue
		}
		id := "-"
		if !p.ev.ID.IsZero() {
			id = p.ev.ID.String()
		}
		fmt.Fprintf(tw, "%s\t%s  %s  %s\n", p.name, id, p.ev.Entry, fmtTime(p.ev.Time()))
	}
	fmt.Fprintf(tw, "last generated\t%s  %s\n", info.LastGenerated, fmtTime(info.LastGenerated.Time()))
	lead, word := time.Duration(doc.TopAheadMs)*time.Millisecond, "ahead"
	if lead < 0 {
		lead, word = -lead, "behind"
	}
	fmt.Fprintf(tw, "engine clock\t%s  top %v %s\n", doc.EngineTime, lead, word)
	if doc.MemoryBytes != nil {
		fmt.Fprintf(tw, "memory\t%d bytes\n", *doc.MemoryBytes)
	} else {
		fmt.Fprintf(tw, "memory\tnot reported by the engine\n")
	}
	return tw.Flush()
}
