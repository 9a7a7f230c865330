package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/partition"
)

// streamRow is one stream's line of the overview and the head of its page.
type streamRow struct {
	Queue, Name string
	Info        echomq.StreamInfo
	Rate        rate
	Dead        int64
	// Groups is the number of consumer groups, -1 when not read (only the
	// overview reads it).
	Groups int
	Err    string
}

// ID names the row in the live updates.
func (s streamRow) ID() string { return s.Queue + "/" + s.Name }

// partitionedRow is one partitioned stream's line of the overview.
type partitionedRow struct {
	Queue, Name string
	// Counts are the partition counts, oldest generation first.
	Counts []int
	Err    string
}

type overviewQueue struct {
	Name        string
	Lanes       bool
	LaneStats   lanes.Stats
	Projections int
	Streams     []streamRow
	// Partitioned are the queue's partitioned streams, each linked to its
	// partitions page.
	Partitioned []partitionedRow
	// Totals over the streams read without an error.
	Events, Dead int64
	Groups       int
	Err          string
}

type overviewData struct {
	Queues  []overviewQueue
	Archive bool
	Engine  engineLine
}

// engineLine is the overview's line about the engine: what it is, its
// policy and its memory headroom (echomq.Client.Engine, no engine read).
type engineLine struct {
	Text string
	// Warn is set when the engine evicts or has under a tenth of its
	// memory left: appends fail with ErrEngineFull at none.
	Warn bool
}

func newEngineLine(e echomq.Engine) engineLine {
	l := engineLine{Text: e.Name}
	if e.Version != "" {
		l.Text += " " + e.Version
	}
	if !e.Checked {
		l.Text += " · policy and memory unknown (INFO not allowed)"
		return l
	}
	l.Text += " · maxmemory-policy " + e.Policy
	if e.Evicting() {
		l.Text += " (evicts keys: acknowledged events may vanish)"
		l.Warn = true
	}
	if h, ok := e.Headroom(); ok {
		l.Text += fmt.Sprintf(" · memory %s of %s used, headroom %s (%.0f%%)", mib(e.UsedMemory), mib(e.MaxMemory), mib(h), 100*float64(h)/float64(e.MaxMemory))
		l.Warn = l.Warn || h*10 < e.MaxMemory
	} else {
		l.Text += " · memory " + mib(e.UsedMemory) + " used, no maxmemory"
	}
	return l
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func (overviewData) title() (string, string) { return "Overview", "overview" }
func (overviewData) live() string            { return "/events" }

func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	d := overviewData{Archive: h.archiver != nil, Engine: newEngineLine(h.client.Engine())}
	for _, v := range h.queues {
		oq := overviewQueue{Name: v.name, Projections: len(v.projections)}
		var errs []string
		streams, err := h.streamsOf(ctx, v)
		if err != nil {
			errs = append(errs, err.Error())
		}
		lq, shown, err := h.lanesOf(ctx, v)
		if err != nil {
			errs = append(errs, err.Error())
		}
		if shown {
			oq.Lanes = true
			if oq.LaneStats, err = lq.Stats(ctx); err != nil {
				errs = append(errs, err.Error())
			}
		}
		for _, name := range streams {
			row := h.streamRow(ctx, v.name, name)
			if row.Err == "" && !row.Info.Exists {
				row.Groups = 0 // nothing to ask the engine: a missing key is an error reply it counts
			} else if row.Err == "" {
				gs, err := h.client.Stream(v.name, name).Groups(ctx)
				if err != nil {
					row.Err = err.Error()
				} else {
					row.Groups = len(gs)
					oq.Events += row.Info.Length
					oq.Dead += row.Dead
					oq.Groups += len(gs)
				}
			}
			oq.Streams = append(oq.Streams, row)
		}
		if !v.fixed {
			var err error
			if oq.Partitioned, err = h.partitionedOf(ctx, v.name); err != nil {
				errs = append(errs, err.Error())
			}
		}
		oq.Err = strings.Join(errs, "; ")
		d.Queues = append(d.Queues, oq)
	}
	h.render(w, r, http.StatusOK, "overview", d)
}

// streamRow reads one stream's summary; a failure is shown in the row.
func (h *Handler) streamRow(ctx context.Context, queue, name string) streamRow {
	s := h.client.Stream(queue, name)
	row := streamRow{Queue: queue, Name: name, Groups: -1}
	var err error
	if row.Info, err = s.Info(ctx); err == nil {
		if row.Rate, err = h.rate(ctx, s); err == nil {
			row.Dead, err = s.DeadLetters().Len(ctx)
		}
	}
	if err != nil {
		h.cfg.Logger.Warn("dashboard: stream summary", "queue", queue, "stream", name, "err", err)
		row.Err = err.Error()
	}
	return row
}

// partitionedOf lists the partitioned streams of queue (partition.List)
// with their partition counts; a failure to open one is shown in its row.
// A queue whose name no partitioned stream can have has none.
func (h *Handler) partitionedOf(ctx context.Context, queue string) ([]partitionedRow, error) {
	names, err := partition.List(ctx, h.client, queue)
	if errors.Is(err, echomq.ErrInvalidName) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("partitioned streams: %w", err)
	}
	rows := make([]partitionedRow, 0, len(names))
	for _, name := range names {
		row := partitionedRow{Queue: queue, Name: name}
		if s, err := partition.Open(ctx, h.client, queue, name); err != nil {
			row.Err = err.Error()
		} else {
			row.Counts = s.Counts()
		}
		rows = append(rows, row)
	}
	return rows, nil
}
