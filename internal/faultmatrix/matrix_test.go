package faultmatrix

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

// fault is one column of the matrix: what is done to every cell's engine
// or link, for how long.
type fault struct {
	name   string
	d      time.Duration
	outage bool // the engine is away (not merely slow): attempts are bounded
	inject func(c *cell)
	heal   func(c *cell)
}

func restart(d time.Duration) fault {
	return fault{
		name: "restart after " + d.String(), d: d, outage: true,
		inject: func(c *cell) { require.NoError(c.t, c.srv.Kill()) },
		heal:   func(c *cell) { c.srv.Restart(c.t) },
	}
}

func pause(d time.Duration) fault {
	return fault{
		name: "paused " + d.String(), d: d, outage: true,
		inject: func(c *cell) { require.NoError(c.t, c.srv.Pause()) },
		heal:   func(c *cell) { require.NoError(c.t, c.srv.Resume()) },
	}
}

func partition(d time.Duration) fault {
	return fault{
		name: "partition " + d.String(), d: d, outage: true,
		inject: func(c *cell) { c.proxy.Partition() },
		heal:   func(c *cell) { c.proxy.Heal() },
	}
}

func latency(l, d time.Duration) fault {
	return fault{
		name: "latency " + l.String() + " for " + d.String(), d: d,
		inject: func(c *cell) { c.proxy.SetLatency(l) },
		heal:   func(c *cell) { c.proxy.SetLatency(0) },
	}
}

// faults returns the columns: the short version by default (make test),
// every duration of docs/faults.md with EMQ_FAULTS=full (make faults),
// including the 60s outage of the read acceptance.
func faults() []fault {
	if os.Getenv("EMQ_FAULTS") == "full" {
		return []fault{
			restart(3 * time.Second), restart(30 * time.Second), pause(10 * time.Second),
			partition(2 * time.Second), latency(200*time.Millisecond, 10*time.Second), restart(60 * time.Second),
		}
	}
	return []fault{
		restart(3 * time.Second), pause(3 * time.Second), partition(2 * time.Second),
		latency(200*time.Millisecond, 3*time.Second),
	}
}

// Budgets of a cell.
const (
	callTimeout    = 5 * time.Second  // the default of echomq.Config.CallTimeout
	warmTimeout    = 30 * time.Second // until every cell handled its first items
	produceAfter   = 3 * time.Second  // the producers go on this long after the heal
	catchUpTimeout = 90 * time.Second // until every cell handled what was acknowledged
	// maxAttemptRate bounds a component's attempts to reach an engine that
	// is away, per second of outage: backoffs keep them at a few a second
	// (a spinning loop makes thousands).
	maxAttemptRate = 50.0
)

// row is one cell's figures.
type row struct {
	comp, fault    string
	recovered      bool
	recoverIn      time.Duration
	acked          int
	lost, dups     int
	exits          int64
	downs, ups     int64
	attemptsPerSec float64
	slowest        time.Duration
	note           string
}

// TestFaultMatrix runs every component under every fault, one fault at a
// time (so the process CPU measured during the outage belongs to it), the
// cells of one fault in parallel on engines of their own.
func TestFaultMatrix(t *testing.T) {
	var rows []row
	var cpu []string
	for _, f := range faults() {
		t.Run(strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			r, line := runFault(t, f)
			rows = append(rows, r...)
			cpu = append(cpu, line)
		})
	}
	report(t, rows, cpu)
}

// selected returns the rows to run: every component, or with
// EMQ_FAULTS_ROWS=<name>,<name> those named (to measure a few rows alone).
func selected() []component {
	names := os.Getenv("EMQ_FAULTS_ROWS")
	if names == "" {
		return components
	}
	var out []component
	for _, comp := range components {
		for n := range strings.SplitSeq(names, ",") {
			if strings.TrimSpace(n) == comp.name {
				out = append(out, comp)
			}
		}
	}
	return out
}

func runFault(t *testing.T, f fault) ([]row, string) {
	comps := selected()
	cells := make([]*cell, len(comps))
	for i, comp := range comps {
		cells[i] = newCell(t, comp)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pctx, stopProducing := context.WithCancel(ctx)
	defer stopProducing()
	var producers sync.WaitGroup
	stops := make([]func(), len(cells))
	for i, c := range cells {
		stops[i] = c.comp.start(c, ctx)
		producers.Go(func() {
			if c.comp.produce != nil {
				c.comp.produce(c, pctx)
			} else {
				c.produce(pctx, "ev")
			}
			c.producedUntil.Store(time.Now().UnixNano())
		})
	}
	for _, c := range cells {
		require.Eventually(t, func() bool { return len(c.acked.names()) >= 10 && c.recoveredOrSeen() },
			warmTimeout, 50*time.Millisecond, "%s did not start working", c.comp.name)
	}

	// The fault, on every cell at once.
	before := make([]echomqtest.ProxyCounts, len(cells))
	seenBefore := make([]int, len(cells))
	forEach(cells, func(i int, c *cell) {
		before[i] = c.proxy.Counts()
		seenBefore[i] = len(c.seen.names())
		f.inject(c)
	})
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(f.d) // sleep: the fault lasts f.d
	cpu1, wall1 := cpuTime(), time.Now()
	forEach(cells, func(i int, c *cell) {
		c.attempts = c.proxy.Counts().Sub(before[i])
		f.heal(c)
		c.healedAt.Store(time.Now().UnixNano())
	})
	window := wall1.Sub(wall0)
	cpuLine := fmt.Sprintf("| %s | %v | %v | %.1f %% |", f.name, window.Round(time.Millisecond),
		(cpu1 - cpu0).Round(time.Millisecond), 100*float64(cpu1-cpu0)/float64(window))

	time.Sleep(produceAfter) // sleep: the producers run on a while after the fault
	stopProducing()
	producers.Wait()
	deadline := time.Now().Add(catchUpTimeout)
	for _, c := range cells {
		for !c.caughtUp() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond) // sleep: poll of a bounded wait; a cell that does not catch up fails its check below
		}
	}
	for _, c := range cells {
		c.stopping.Store(true)
	}
	cancel()
	for i, s := range stops {
		start := time.Now()
		s()
		if took := time.Since(start); took > 5*time.Second {
			t.Logf("%s took %v to stop", cells[i].comp.name, took.Round(time.Millisecond))
		}
	}

	rows := make([]row, len(cells))
	for i, c := range cells {
		rows[i] = c.figures(f, window)
		c.check(f, rows[i], seenBefore[i])
	}
	return rows, cpuLine
}

func (c *cell) recoveredOrSeen() bool {
	if c.comp.caughtUp != nil {
		return c.lastClean.Load() != 0 || c.comp.name == "node lease"
	}
	return len(c.seen.names()) > 0
}

func (c *cell) caughtUp() bool {
	if c.comp.caughtUp != nil {
		return c.comp.caughtUp(c)
	}
	return c.seen.missing(c.acked.names()) == 0
}

// figures computes the cell's row after its component stopped.
func (c *cell) figures(f fault, window time.Duration) row {
	var lost, dups int
	if c.comp.final != nil {
		lost, dups = c.comp.final(c)
	} else {
		lost, dups = c.seen.missing(c.acked.names()), c.seen.repeats()
	}
	r := row{
		comp: c.comp.name, fault: f.name, acked: len(c.acked.names()), lost: lost, dups: dups,
		exits: c.exits.Load(), downs: c.logs.downs.Load(), ups: c.logs.ups.Load(),
		attemptsPerSec: float64(c.attempts.Attempts()) / window.Seconds(),
		slowest:        time.Duration(c.slowest.Load()), note: c.note,
	}
	if rec, h := c.recovered.Load(), c.healedAt.Load(); rec != 0 && c.caughtUp() {
		r.recovered, r.recoverIn = true, time.Duration(rec-h)
	}
	return r
}

// check holds the cell to the acceptance: recovered, nothing acknowledged
// lost, no exit, no repeat where the component promises exactly once, the
// outage logged once and its end once, attempts bounded during an outage,
// every call returned within its documented bound.
func (c *cell) check(f fault, r row, seenBefore int) {
	t := c.t
	name := c.comp.name + " / " + f.name
	if !r.recovered {
		t.Errorf("%s: did not recover (acked %d, missing %d)", name, r.acked, c.seen.missing(c.acked.names()))
	}
	if r.lost != 0 {
		t.Errorf("%s: lost %d acknowledged items", name, r.lost)
	}
	if r.exits != 0 {
		t.Errorf("%s: exited %d times", name, r.exits)
	}
	if c.comp.exactlyOnce && r.dups != 0 {
		t.Errorf("%s: %d repeats from a component that promises each item once", name, r.dups)
	}
	if c.comp.logs && (r.downs > 1 || r.ups != r.downs) {
		t.Errorf("%s: logged %d outages and %d recoveries (want at most one, and as many ends)", name, r.downs, r.ups)
	}
	if f.outage && r.attemptsPerSec > maxAttemptRate {
		t.Errorf("%s: %.0f attempts a second against an engine that is away", name, r.attemptsPerSec)
	}
	if bound := 2*callTimeout + 5*time.Second; r.slowest > bound {
		t.Errorf("%s: a call took %v, above its bound %v", name, r.slowest, bound)
	}
	if !f.outage && c.comp.name != "node lease" && c.comp.caughtUp == nil && len(c.seen.names()) == seenBefore {
		t.Errorf("%s: handled nothing while the link was slow", name)
	}
	c.logs.mu.Lock()
	if len(c.logs.last) > 0 {
		t.Logf("%s: %d error lines; last warnings and errors: %q", name, c.logs.errs.Load(), c.logs.last)
	}
	c.logs.mu.Unlock()
}

// report prints the matrix as the markdown docs/faults.md holds, to the
// test log and, with EMQ_FAULTS_REPORT=<file>, to that file.
func report(t *testing.T, rows []row, cpu []string) {
	var b strings.Builder
	b.WriteString("| component | fault | recovered | time to recover | acked | lost | duplicates | exits | outage / recovery lines | attempts/s during the fault | slowest call | note |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		rec, in := "no", "—"
		if r.recovered {
			rec, in = "yes", r.recoverIn.Round(10*time.Millisecond).String()
		}
		slow := "—"
		if r.slowest > 0 {
			slow = r.slowest.Round(10 * time.Millisecond).String()
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %d | %d / %d | %.1f | %s | %s |\n",
			r.comp, r.fault, rec, in, r.acked, r.lost, r.dups, r.exits, r.downs, r.ups, r.attemptsPerSec, slow, r.note)
	}
	b.WriteString("\n| fault | window | process CPU in the window | of one core |\n|---|---|---|---|\n")
	for _, l := range cpu {
		b.WriteString(l + "\n")
	}
	t.Log("\n" + b.String())
	if path := os.Getenv("EMQ_FAULTS_REPORT"); path != "" {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	}
}

// forEach runs fn on every cell at once and waits.
func forEach(cells []*cell, fn func(i int, c *cell)) {
	var wg sync.WaitGroup
	for i, c := range cells {
		wg.Go(func() { fn(i, c) })
	}
	wg.Wait()
}

// cpuTime is the process's user + system CPU time: the components, the
// producers and the proxies of every cell (the engines are other
// processes).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
