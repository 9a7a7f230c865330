package echomq

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
)

// StreamBudget bounds what one stream may hold in the engine's memory.
// While the stream holds MaxEntries entries or more, or its key takes
// MaxBytes bytes or more (MEMORY USAGE), appends to it are refused early
// with a [*BudgetError], which matches [ErrEngineFull] as the engine's own
// OOM reply does; nothing is written. An archive policy (package archive)
// or a retention rule that trims the stream below its budget lets appends
// through again: keep the policy inside the budget and appends never meet
// it. Set budgets in [Config.Budgets].
//
// The budget is soft by design: the client samples each budgeted stream's
// length (and size, when MaxBytes is set) every Config.BudgetInterval, so
// appends of up to one interval may land above the bound; in exchange an
// append pays one map lookup and no round trip.
type StreamBudget struct {
	Queue, Stream string
	// MaxEntries is the most entries the stream may hold; 0 means no bound
	// on entries.
	MaxEntries int64
	// MaxBytes is the most bytes the stream's key may take (the engine's
	// MEMORY USAGE, which the embedded engine does not report: there only
	// MaxEntries binds); 0 means no bound on bytes.
	MaxBytes int64
}

// defaultBudgetInterval is the default of Config.BudgetInterval.
const defaultBudgetInterval = time.Second

// BudgetError is an append refused because its stream is over the budget
// [Config.Budgets] gives it. It matches [ErrEngineFull].
type BudgetError struct {
	Budget StreamBudget
	// Entries and Bytes are the stream's size at the last sample (Bytes 0
	// when not sampled).
	Entries, Bytes int64
	// At is when that sample was taken.
	At time.Time
}

func (e *BudgetError) Error() string {
	size := fmt.Sprintf("%d entries", e.Entries)
	if e.Bytes > 0 {
		size += fmt.Sprintf(", %d bytes", e.Bytes)
	}
	return fmt.Sprintf("echomq: stream %s/%s over its budget (%s at %s; budget: %s): appends are refused until archiving or trimming brings it below",
		e.Budget.Queue, e.Budget.Stream, size, e.At.UTC().Format(time.RFC3339), e.Budget.limits())
}

// Is makes errors.Is(err, ErrEngineFull) true.
func (e *BudgetError) Is(target error) bool { return target == ErrEngineFull }

func (b StreamBudget) limits() string {
	switch {
	case b.MaxEntries > 0 && b.MaxBytes > 0:
		return fmt.Sprintf("%d entries, %d bytes", b.MaxEntries, b.MaxBytes)
	case b.MaxEntries > 0:
		return fmt.Sprintf("%d entries", b.MaxEntries)
	}
	return fmt.Sprintf("%d bytes", b.MaxBytes)
}

func (b StreamBudget) validate() error {
	if err := keyspace.Queue(b.Queue); err != nil {
		return err
	}
	if err := keyspace.Stream(b.Stream); err != nil {
		return err
	}
	if b.MaxEntries < 0 || b.MaxBytes < 0 || b.MaxEntries == 0 && b.MaxBytes == 0 {
		return &ArgumentError{Name: "budget", Reason: fmt.Sprintf("%s/%s: MaxEntries and MaxBytes must not be negative, and one of them positive", b.Queue, b.Stream)}
	}
	return nil
}

// budgetState is one budgeted stream's last sample.
type budgetState struct {
	budget StreamBudget
	key    string
	over   atomic.Pointer[BudgetError] // nil while within the budget
}

// budgets are a client's budgeted streams, by stream key; nil when
// Config.Budgets is empty, so an unbudgeted client pays one nil check.
type budgets map[string]*budgetState

func newBudgets(bs []StreamBudget) budgets {
	if len(bs) == 0 {
		return nil
	}
	m := budgets{}
	for _, b := range bs {
		key := keyspace.StreamKey(b.Queue, b.Stream)
		m[key] = &budgetState{budget: b, key: key}
	}
	return m
}

// check returns the [*BudgetError] of an append to key while its stream is
// over its budget.
func (m budgets) check(key string) error {
	if m == nil {
		return nil
	}
	if st := m[key]; st != nil {
		if e := st.over.Load(); e != nil {
			return e
		}
	}
	return nil
}

// startBudgets starts the sampler of the budgeted streams; Close stops it.
func (c *Client) startBudgets() {
	if c.budgets == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.budgetStop, c.budgetDone = cancel, make(chan struct{})
	go c.sampleBudgets(ctx)
}

// sampleBudgets samples every budgeted stream now and then every
// Config.BudgetInterval until Close. A failed sample keeps the last verdict
// (an engine that does not answer takes no appends either).
func (c *Client) sampleBudgets(stop context.Context) {
	defer close(c.budgetDone)
	t := time.NewTicker(c.cfg.BudgetInterval)
	defer t.Stop()
	failing := false
	for {
		err := c.sampleOnce(stop)
		if stop.Err() != nil {
			return
		}
		if err != nil && !failing {
			c.cfg.Logger.Warn("echomq: stream budgets: sample failed; keeping the last verdict and retrying every interval", "err", err)
		}
		failing = err != nil
		select {
		case <-stop.Done():
			return
		case <-t.C:
		}
	}
}

func (c *Client) sampleOnce(stop context.Context) error {
	var errs []error
	for _, st := range c.budgets {
		ctx, cancel := context.WithTimeout(stop, max(c.cfg.CallTimeout, c.cfg.BudgetInterval))
		n, err := c.conn.XLen(ctx, st.key)
		var bytes int64
		if err == nil && st.budget.MaxBytes > 0 {
			bytes, _, err = c.conn.MemoryUsage(ctx, st.key)
		}
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", st.key, err))
			continue
		}
		b := st.budget
		if b.MaxEntries > 0 && n >= b.MaxEntries || b.MaxBytes > 0 && bytes >= b.MaxBytes {
			st.over.Store(&BudgetError{Budget: b, Entries: n, Bytes: bytes, At: time.Now()})
		} else {
			st.over.Store(nil)
		}
	}
	return errors.Join(errs...)
}
