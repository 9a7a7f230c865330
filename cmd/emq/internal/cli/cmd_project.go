package cli

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/projection"
)

// projectDoc is the JSON result of project.
type projectDoc struct {
	Queue   string     `json:"queue"`
	Streams []string   `json:"streams"`
	Spec    string     `json:"spec"`   // the fold in the text form ParseSpec reads
	Window  string     `json:"window"` // the window in the form --window reads
	From    string     `json:"from"`   // the entry-id bounds folded
	To      string     `json:"to"`
	Events  int64      `json:"events"` // how many events were folded
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// projectOpts are the flags of project: the fold's arguments and its window.
type projectOpts struct {
	field, by, every string
	n                int
	window, since    string
}

// defaultTop is how many a top keeps when neither -n nor the spec says.
const defaultTop = 10

const projectLong = `Fold the events of one or more streams with a ready-made projection and print
its result as a table. Several streams are merged by entry id (mint order) into
one fold. Nothing is written; a missing stream folds as empty.

FOLD is a fold name and the flags give its arguments; FOLD may instead be a
whole spec "fold,name=value,..." (e.g. 'count,by=room'), which the flags extend:

  count                       how many events; --by F: per value of F
  sum|min|max|avg --field F   of the numeric field F; --by G: per value of G
  stats --field F             count, sum, min, max and avg of F; --by G
  buckets --every W           events per time bucket: minute, hour, day or a
                              Go duration (15m); buckets align on the epoch, UTC
  latest --by K               the newest event per value of K (a changelog)
  top --field F               the -n (10) events with the highest F;
                              --by G: the -n values of G with the highest total F
  distinct --field F          the distinct values of F

Numeric folds skip values that are not numbers; count --by counts events
without the field as "(missing)".

--window W (default all):
  all             every event
  last:D          the last D up to now, D a Go duration (90s, 15m, 1h)
  since:T         minted at or after T
  between:T0,T1   minted from T0's millisecond to T1's, both included
  ids:B0,B1       an id range; bounds as in read (-, +, entry id, EVT id, time;
                  "(" excludes)
T is an emq time (RFC3339, a date, now, -1h, now-15m); --since T is since:T.`

func (a *app) projectCommand() *cobra.Command {
	var o projectOpts
	cmd := &cobra.Command{
		Use:   "project FOLD STREAM...",
		Short: "Fold streams with a ready-made projection (count, sum, buckets, top, ...)",
		Long:  projectLong,
		Example: `  emq -q cm project count --by room guess-scored --window last:1h
  emq -q cm project buckets --every hour guess-scored
  emq -q cm project sum --field points --by player guess-scored game-settled
  emq -q cm project top --field points --by player -n 3 guess-scored --since -24h
  emq -q cm project 'latest,by=room' game-settled --json`,
		Args: argsRange(2, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			spec, err := o.spec(cmd, args[0])
			if err != nil {
				return err
			}
			now := a.opts.Clock()
			w, err := o.windowAt(cmd, now)
			if err != nil {
				return err
			}
			r, err := w.Resolve(now)
			if err != nil {
				return usagef("invalid --window %q: %w", o.window, err)
			}
			seen := make(map[string]bool, len(args)-1)
			for _, name := range args[1:] {
				if err := a.checkStream(name); err != nil {
					return err
				}
				if seen[name] {
					return usagef("stream %q given twice", name)
				}
				seen[name] = true
			}
			// The fold resolves a relative window against this same now,
			// so the bounds reported are the bounds read.
			w = w.WithClock(func() time.Time { return now })
			return a.project(cmd.Context(), spec, w, r, args[1:])
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.field, "field", "", "the measured field (sum, min, max, avg, stats, top, distinct)")
	f.StringVar(&o.by, "by", "", "the grouping or key field (count, sum..stats, top; required by latest)")
	f.StringVar(&o.every, "every", "", "bucket width of buckets: minute, hour, day or a Go duration")
	f.IntVarP(&o.n, "count", "n", defaultTop, "how many top keeps")
	f.StringVar(&o.window, "window", "all", "all, last:D, since:T, between:T0,T1 or ids:B0,B1")
	f.StringVar(&o.since, "since", "", "fold what was minted at or after this time (since:T)")
	return cmd
}

// spec appends the flags given to the fold text and parses it. An argument
// error of the spec becomes one usage line showing the text parsed.
func (o *projectOpts) spec(cmd *cobra.Command, fold string) (projection.Spec, error) {
	text := strings.TrimSpace(fold)
	var textSb125 strings.Builder
	for _, f := range []struct{ name, val string }{{"field", o.field}, {"by", o.by}, {"every", o.every}} {
		if !cmd.Flags().Changed(f.name) {
			continue
		}
		if f.val == "" || strings.ContainsRune(f.val, ',') {
			return projection.Spec{}, usagef("invalid --%s %q: want a non-empty value without a comma", f.name, f.val)
		}
		textSb125.WriteString("," + f.name + "=" + f.val)
	}
	text += textSb125.String()
	name, _, _ := strings.Cut(text, ",")
	name = strings.TrimSpace(name)
	if cmd.Flags().Changed("count") || name == "top" && !specHas(text, "n") {
		text += ",n=" + strconv.Itoa(o.n)
	}
	if need := foldNeeds[name]; need != "" && !specHas(text, need) {
		return projection.Spec{}, usagef("invalid fold spec %q: %s needs --%s", text, name, need)
	}
	sp, err := projection.ParseSpec(text)
	if ae := (*echomq.ArgumentError)(nil); errors.As(err, &ae) {
		return projection.Spec{}, usagef("invalid fold spec %q: %s", text, ae.Reason)
	}
	return sp, err
}

// foldNeeds names the argument each fold cannot do without, so that its
// absence is reported as the missing flag.
var foldNeeds = map[string]string{
	"sum": "field", "min": "field", "max": "field", "avg": "field", "stats": "field",
	"top": "field", "distinct": "field", "latest": "by", "buckets": "every",
}

// specHas reports whether the spec text gives the argument name.
func specHas(text, name string) bool {
	parts := strings.Split(text, ",")
	for _, kv := range parts[1:] {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == name {
			return true
		}
	}
	return false
}

// windowAt reads --window or --since; relative times count from now.
func (o *projectOpts) windowAt(cmd *cobra.Command, now time.Time) (projection.Window, error) {
	if cmd.Flags().Changed("since") {
		if cmd.Flags().Changed("window") {
			return projection.Window{}, usagef("project: --window and --since exclude each other")
		}
		t, err := parseTime(o.since, now)
		if err != nil {
			return projection.Window{}, err
		}
		return projection.Since(t), nil
	}
	return parseWindow(o.window, now)
}

// parseWindow reads the forms of projection.ParseWindow, with any emq time
// in since: and between: and any read bound in ids:.
func parseWindow(s string, now time.Time) (projection.Window, error) {
	kind, arg, _ := strings.Cut(strings.TrimSpace(s), ":")
	switch kind {
	case "since":
		t, err := parseTime(arg, now)
		return projection.Since(t), err
	case "between", "ids":
		lo, hi, ok := strings.Cut(arg, ",")
		if !ok {
			return projection.Window{}, usagef("invalid --window %q: want %s:<from>,<to>", s, kind)
		}
		if kind == "ids" {
			from, err := parseBound(lo, true, now)
			if err != nil {
				return projection.Window{}, err
			}
			to, err := parseBound(hi, false, now)
			return projection.IDs(echomq.Span(from, to)), err
		}
		t0, err := parseTime(lo, now)
		if err != nil {
			return projection.Window{}, err
		}
		t1, err := parseTime(hi, now)
		return projection.Between(t0, t1), err
	}
	w, err := projection.ParseWindow(s)
	if _, terr := parseTime(s, now); err != nil && terr == nil {
		return projection.Window{}, usagef("invalid --window %q: a time is not a window: use --since %s (or since:%s)", s, s, s)
	}
	if ae := (*echomq.ArgumentError)(nil); errors.As(err, &ae) {
		return projection.Window{}, usagef("invalid --window %q: %s", s, ae.Reason)
	}
	return w, err
}

// project connects, folds the streams and prints the fold's table.
func (a *app) project(ctx context.Context, spec projection.Spec, w projection.Window, r echomq.Range, names []string) (err error) {
	p, err := spec.Projection()
	if err != nil {
		return err
	}
	var events int64
	apply := p.Apply
	p.Apply = func(t projection.Table, ev projection.Event) projection.Table { events++; return apply(t, ev) }
	c, err := a.connect(ctx, a.stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	srcs := make([]projection.Source, len(names))
	for i, name := range names {
		srcs[i] = c.Stream(a.queue, name)
	}
	t, err := projection.Fold(ctx, w, p, srcs...)
	if err != nil {
		return err
	}
	cols, rows := t.Columns(), t.Rows()
	if a.json {
		from, to := r.From.String(), r.To.String()
		if from == "" {
			from = "-"
		}
		if to == "" {
			to = "+"
		}
		if rows == nil {
			rows = [][]string{}
		}
		return writeJSON(a.stdout, projectDoc{
			Queue: a.queue, Streams: names, Spec: spec.String(),
			Window: w.String(), From: from, To: to, Events: events, Columns: cols, Rows: rows,
		})
	}
	tw := table(a.stdout)
	line := make([]string, len(cols))
	for i, c := range cols {
		line[i] = strings.ToUpper(tableCell(c))
	}
	_, _ = tw.Write([]byte(strings.Join(line, "\t") + "\n")) // buffered: Flush reports the error
	for _, row := range rows {
		for i := range line {
			line[i] = ""
			if i < len(row) {
				line[i] = tableCell(row[i])
			}
		}
		_, _ = tw.Write([]byte(strings.Join(line, "\t") + "\n"))
	}
	return tw.Flush()
}

// tableCell quotes (Go syntax) a cell that is empty or holds a byte that
// does not print, so a row stays one line of aligned columns.
func tableCell(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r != ' ' && (r == unicode.ReplacementChar || !unicode.IsPrint(r)) {
			return strconv.Quote(s)
		}
	}
	return s
}
