package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
)

// archiveStatusDoc is the JSON result of archive status, and one stream of
// archive ls.
type archiveStatusDoc struct {
	Queue          string   `json:"queue"`
	Stream         string   `json:"stream"`
	Generation     uint64   `json:"generation"`
	Watermark      *string  `json:"watermark"` // W; null: nothing archived
	WatermarkEntry *string  `json:"watermark_entry"`
	WatermarkTime  *string  `json:"watermark_time"`
	Segments       int      `json:"segments"`
	Entries        int64    `json:"entries"`
	Bytes          int64    `json:"bytes"`
	First          *string  `json:"first"` // the oldest archived id
	Last           *string  `json:"last"`
	Cache          cacheDoc `json:"cache"`
	Live           liveDoc  `json:"live"`
}

type cacheDoc struct {
	Present  bool    `json:"present"`
	Cached   *string `json:"cached"`
	Mismatch bool    `json:"mismatch"` // the manifest wins; the next cycle repairs it
}

type liveDoc struct {
	Length int64     `json:"length"`
	First  *eventDoc `json:"first"`
	Last   *eventDoc `json:"last"`
}

func toArchiveStatusDoc(st archive.Status) archiveStatusDoc {
	d := archiveStatusDoc{
		Queue: st.Queue, Stream: st.Stream, Generation: st.Generation,
		Watermark: idOrNull(st.Watermark), Segments: st.Segments, Entries: st.Entries, Bytes: st.Bytes,
		First: idOrNull(st.First), Last: idOrNull(st.Last),
		Cache: cacheDoc{Present: st.HasCache, Cached: idOrNull(st.Cached), Mismatch: st.CacheMismatch},
		Live:  liveDoc{Length: st.Live.Length},
	}
	if !st.Watermark.IsZero() {
		e, t := st.Watermark.EntryID().String(), fmtTime(st.WatermarkTime())
		d.WatermarkEntry, d.WatermarkTime = &e, &t
	}
	for _, p := range []struct {
		ev  *echomq.Event
		dst **eventDoc
	}{{st.Live.First, &d.Live.First}, {st.Live.Last, &d.Live.Last}} {
		if p.ev != nil {
			ed := toEventDoc(*p.ev)
			*p.dst = &ed
		}
	}
	return d
}

func (a *app) archiveStatusCommand(so *storeOpts) *cobra.Command {
	return &cobra.Command{
		Use:   "status STREAM",
		Short: "Show a stream's archive (W, segments, bytes, entries) and live length",
		Long: `Show STREAM's archive: the manifest generation, the watermark W (the newest
archived id) with its entry id and mint instant, the segments, entries and bytes
archived, the oldest and newest archived ids; the watermark cache in the engine
and whether it agrees with the manifest (the manifest wins: the next cycle
repairs it); and the live stream's length and ends. It changes nothing.

A stream neither archived nor live, or a missing --store directory, exits 3.`,
		Example: "  emq archive status orders\n  emq archive status orders --json | jq .watermark",
		Args:    argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			if err := so.check(cmd, a.opts.Getenv); err != nil {
				return err
			}
			return a.withArchiver(cmd, so, false, nil, func(arch *archive.Archiver) error {
				st, err := arch.Status(cmd.Context(), a.queue, args[0])
				if err != nil {
					return err
				}
				if st.Generation == 0 && !st.Live.Exists {
					return &notFoundError{what: fmt.Sprintf("stream %q in queue %q (neither archived nor live)", args[0], a.queue)}
				}
				d := toArchiveStatusDoc(st)
				if a.json {
					return writeJSON(a.stdout, d)
				}
				return a.writeArchiveStatus(d)
			})
		}),
	}
}

func orDashS(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func (a *app) writeArchiveStatus(d archiveStatusDoc) error {
	tw := table(a.stdout)
	fmt.Fprintf(tw, "queue\t%s\n", d.Queue)
	fmt.Fprintf(tw, "stream\t%s\n", d.Stream)
	fmt.Fprintf(tw, "generation\t%d\n", d.Generation)
	if d.Watermark == nil {
		fmt.Fprintf(tw, "watermark\t- (nothing archived)\n")
	} else {
		fmt.Fprintf(tw, "watermark\t%s  %s  %s\n", *d.Watermark, *d.WatermarkEntry, *d.WatermarkTime)
	}
	fmt.Fprintf(tw, "segments\t%d\n", d.Segments)
	fmt.Fprintf(tw, "entries\t%d\n", d.Entries)
	fmt.Fprintf(tw, "bytes\t%d\n", d.Bytes)
	fmt.Fprintf(tw, "archived\t%s .. %s\n", orDashS(d.First), orDashS(d.Last))
	switch {
	case d.Cache.Mismatch && d.Cache.Present:
		fmt.Fprintf(tw, "cache\t%s  disagrees with the manifest (the next cycle repairs it)\n", orDashS(d.Cache.Cached))
	case d.Cache.Mismatch:
		fmt.Fprintf(tw, "cache\tmissing (the next cycle restores it)\n")
	case d.Cache.Present:
		fmt.Fprintf(tw, "cache\t%s  ok\n", orDashS(d.Cache.Cached))
	default:
		fmt.Fprintf(tw, "cache\t-\n")
	}
	fmt.Fprintf(tw, "live\t%d event%s\n", d.Live.Length, plural(int(d.Live.Length)))
	for _, p := range []struct {
		name string
		ev   *eventDoc
	}{{"live first", d.Live.First}, {"live last", d.Live.Last}} {
		if p.ev == nil {
			fmt.Fprintf(tw, "%s\t-\n", p.name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s  %s  %s\n", p.name, orDashS(p.ev.ID), p.ev.Entry, p.ev.Time)
	}
	return tw.Flush()
}

// archiveLsDoc is the JSON result of archive ls.
type archiveLsDoc struct {
	Streams []archiveStatusDoc `json:"streams"`
}

func (a *app) archiveLsCommand(so *storeOpts) *cobra.Command {
	return &cobra.Command{
		Use:   "ls [QUEUE]",
		Short: "List the archived streams of the store, with their W, segments and live length",
		Long: `List every stream that has an archive in the store, of every queue or of QUEUE,
sorted by queue and stream, with its generation, segments, entries, bytes,
watermark W and its instant, and live length (of the engine --url names).`,
		Example: "  emq archive ls\n  emq archive ls cm --store /var/lib/emq-archive",
		Args:    argsRange(0, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			only := ""
			if len(args) == 1 {
				if err := echomq.CheckName("queue", args[0]); err != nil {
					return err
				}
				only = args[0]
			}
			if err := so.check(cmd, a.opts.Getenv); err != nil {
				return err
			}
			return a.withArchiver(cmd, so, false, nil, func(arch *archive.Archiver) error {
				refs, err := archive.Streams(cmd.Context(), arch.Store())
				if err != nil {
					return err
				}
				doc := archiveLsDoc{Streams: []archiveStatusDoc{}}
				for _, ref := range refs {
					if only != "" && ref.Queue != only {
						continue
					}
					st, err := arch.Status(cmd.Context(), ref.Queue, ref.Stream)
					if err != nil {
						return err
					}
					doc.Streams = append(doc.Streams, toArchiveStatusDoc(st))
				}
				if a.json {
					return writeJSON(a.stdout, doc)
				}
				tw := table(a.stdout)
				fmt.Fprintln(tw, "GEN\tSEGMENTS\tENTRIES\tBYTES\tWATERMARK\tW TIME\tLIVE\tQUEUE/STREAM")
				for _, d := range doc.Streams {
					fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%s\t%s\t%d\t%s\n", d.Generation, d.Segments, d.Entries, d.Bytes,
						orDashS(d.Watermark), orDashS(d.WatermarkTime), d.Live.Length, d.Queue+"/"+d.Stream)
				}
				return tw.Flush()
			})
		}),
	}
}
