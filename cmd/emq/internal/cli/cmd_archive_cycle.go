package cli

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
)

// cycleDoc is the JSON result of one archive cycle.
type cycleDoc struct {
	Queue         string       `json:"queue"`
	Stream        string       `json:"stream"`
	Policy        string       `json:"policy"`
	Time          string       `json:"time"` // when the cycle ended
	Generation    uint64       `json:"generation"`
	Folded        int64        `json:"folded"`
	Segments      []segmentDoc `json:"segments"`
	Bytes         int64        `json:"bytes"`
	Trimmed       int64        `json:"trimmed"`
	PrevWatermark *string      `json:"prev_watermark"` // null: nothing was archived before
	Watermark     *string      `json:"watermark"`
	Cache         string       `json:"cache"`
}

type segmentDoc struct {
	Name  string `json:"name"`
	First string `json:"first"`
	Last  string `json:"last"`
	Count int64  `json:"count"`
	Bytes int64  `json:"bytes"`
}

func idOrNull(id echomq.ID) *string {
	if id.IsZero() {
		return nil
	}
	s := id.String()
	return &s
}

func idOrDash(id echomq.ID) string {
	if id.IsZero() {
		return "-"
	}
	return id.String()
}

// cacheText says what the cycle found in the watermark cache.
func cacheText(c archive.CacheCheck) string {
	switch {
	case c.Mismatch && c.HadCache:
		return fmt.Sprintf("repaired (held %s, manifest %s)", idOrDash(c.Cached), idOrDash(c.Manifest))
	case c.Restored:
		return "restored from the manifest"
	case c.Mismatch:
		return "repaired"
	case c.HadCache:
		return "ok"
	default:
		return "none"
	}
}

func toCycleDoc(q string, r archive.CycleResult, now time.Time) cycleDoc {
	d := cycleDoc{
		Queue: q, Stream: r.Policy.Stream, Policy: r.Policy.Keep.String(), Time: fmtTime(now),
		Generation: r.Generation, Folded: r.Folded, Segments: make([]segmentDoc, len(r.Segments)), Trimmed: r.Trimmed,
		PrevWatermark: idOrNull(r.PrevWatermark), Watermark: idOrNull(r.Watermark), Cache: cacheText(r.Cache),
	}
	for i, s := range r.Segments {
		d.Segments[i] = segmentDoc{Name: s.Name, First: s.First.String(), Last: s.Last.String(), Count: s.Count, Bytes: s.Bytes}
		d.Bytes += s.Bytes
	}
	return d
}

// cycleRowFormat has fixed-width columns: with --every the rows stream out.
const cycleRowFormat = "%-24s  %4s  %8s  %8s  %10s  %8s  %-14s  %s\n"

func (a *app) writeCycleHeader() error {
	if a.json {
		return nil
	}
	_, err := fmt.Fprintf(a.stdout, cycleRowFormat, "TIME", "GEN", "FOLDED", "SEGMENTS", "BYTES", "TRIMMED", "WATERMARK", "CACHE")
	return err
}

func (a *app) writeCycle(d cycleDoc) error {
	if a.json {
		return writeJSON(a.stdout, d)
	}
	w := "-"
	if d.Watermark != nil {
		w = *d.Watermark
	}
	_, err := fmt.Fprintf(a.stdout, cycleRowFormat, d.Time, strconv.FormatUint(d.Generation, 10), strconv.FormatInt(d.Folded, 10),
		strconv.Itoa(len(d.Segments)), strconv.FormatInt(d.Bytes, 10), strconv.FormatInt(d.Trimmed, 10), w, d.Cache)
	return err
}

// archiveEvery runs the archiver's background service until ctx ends or
// cycles sweeps ran, printing each successful cycle.
func (a *app) archiveEvery(cmd *cobra.Command, so *storeOpts, cfg *archive.Config, bar *progressBar, cycles int) error {
	ctx, stop := context.WithCancel(cmd.Context())
	defer stop()
	errc := make(chan error, 1)
	n := 0
	cfg.OnSweep = func(res archive.SweepResult) {
		bar.clear()
		n++
		for i, r := range res.Results {
			if res.Errs[i] != nil {
				continue // the archiver logs it on stderr
			}
			if err := a.writeCycle(toCycleDoc(a.queue, r, a.opts.Clock())); err != nil {
				select {
				case errc <- err:
				default:
				}
				stop()
			}
		}
		if cycles > 0 && n >= cycles {
			stop()
		}
	}
	return a.withArchiver(cmd, so, true, cfg, func(arch *archive.Archiver) error {
		if err := a.writeCycleHeader(); err != nil {
			return err
		}
		if err := arch.Start(ctx); err != nil {
			return err
		}
		<-ctx.Done()
		if err := arch.Stop(context.Background()); err != nil {
			return err
		}
		select {
		case err := <-errc:
			return err
		default:
			return nil
		}
	})
}
