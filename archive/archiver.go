package archive

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/startstop"
)

// Config configures an [Archiver]; the zero value means the defaults.
type Config struct {
	// Policies are the streams [Archiver.Sweep] and the background service
	// archive, in order; one stream may appear once. Defaults to none.
	Policies []Policy

	// Tick is the delay between the end of one background sweep and the
	// start of the next. Defaults to 10s.
	Tick time.Duration

	// Clock is "now" for retention.Ago rules and the commit times.
	// Defaults to the client's clock ([echomq.Client.Now]).
	Clock echomq.Clock

	// SegmentEntries caps the entries of one segment; a cycle that folds
	// more writes several segments and commits them together. It bounds
	// the memory of a cycle and of a read. Defaults to 100000.
	SegmentEntries int

	// PageSize is how many entries one read of the live stream fetches.
	// Defaults to 1000.
	PageSize int

	// LockTTL is the time-to-live of the engine lease that guards a stream
	// when the store has no lock of its own ([Locker]); the holder extends
	// it every third of it. A crashed archiver's lease blocks the stream
	// for up to LockTTL. Defaults to 30s.
	LockTTL time.Duration

	// KeepManifests is how many manifest generations a cycle keeps; older
	// ones are deleted when the store is a [Deleter]. Defaults to 3.
	KeepManifests int

	// Logger receives warnings: a watermark cache that disagreed with the
	// manifest, a failed background cycle. Defaults to slog.Default().
	Logger *slog.Logger

	// Progress, when set, is called as long operations (a cycle's fold, a
	// restore) advance, at most once per page. Defaults to nil.
	Progress func(Progress)

	// OnStep, when set, is called as a cycle passes each [Step], from the
	// cycle's goroutine: a hook for metrics, and for tests that crash the
	// archiver at a chosen point. Defaults to nil.
	OnStep func(StepEvent)

	// OnSweep, when set, is called after each background sweep. Defaults
	// to nil.
	OnSweep func(SweepResult)
}

// Archiver folds streams into a [Store] before trimming them, reads them
// back merged with their live tails, restores them and collects orphans.
// It is safe for concurrent use; cycles of one stream exclude each other
// across processes through the stream's lock.
type Archiver struct {
	client *echomq.Client
	store  Store
	cfg    Config

	svc startstop.Service // the background sweeps
}

// Upper bounds of [Config]: a segment is built in memory, a page is one
// engine reply.
const (
	MaxSegmentEntries = 10_000_000
	MaxPageSize       = 100_000
)

// New returns an archiver of client's streams into store; nil cfg means
// the defaults. It returns an [*echomq.ArgumentError] for a nil client or
// store, a negative knob or one above its bound, or a stream named by two policies, and a policy's
// [*echomq.NameError] or [*echomq.ArgumentError]; all before any I/O.
func New(client *echomq.Client, store Store, cfg *Config) (*Archiver, error) {
	if client == nil {
		return nil, &echomq.ArgumentError{Name: "client", Reason: "must not be nil"}
	}
	if store == nil {
		return nil, &echomq.ArgumentError{Name: "store", Reason: "must not be nil"}
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.Tick < 0 || c.SegmentEntries < 0 || c.PageSize < 0 || c.LockTTL < 0 || c.KeepManifests < 0 {
		return nil, &echomq.ArgumentError{Name: "archive config", Reason: "tick, segment entries, page size, lock TTL and kept manifests must not be negative"}
	}
	if c.SegmentEntries > MaxSegmentEntries || c.PageSize > MaxPageSize {
		return nil, &echomq.ArgumentError{Name: "archive config", Reason: fmt.Sprintf("segment entries at most %d, page size at most %d", MaxSegmentEntries, MaxPageSize)}
	}
	if c.LockTTL > 0 && c.LockTTL < 30*time.Millisecond {
		return nil, &echomq.ArgumentError{Name: "archive config", Reason: "lock TTL below 30ms"}
	}
	c.Tick = or(c.Tick, 10*time.Second)
	c.SegmentEntries = or(c.SegmentEntries, 100_000)
	c.PageSize = or(c.PageSize, 1000)
	c.LockTTL = or(c.LockTTL, 30*time.Second)
	c.KeepManifests = or(c.KeepManifests, 3)
	if c.Clock == nil {
		c.Clock = client.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	seen := make(map[StreamRef]bool, len(c.Policies))
	for _, p := range c.Policies {
		if err := p.Validate(); err != nil {
			return nil, err
		}
		ref := StreamRef{p.Queue, p.Stream}
		if seen[ref] {
			return nil, &echomq.ArgumentError{Name: "archive policies", Reason: ref.String() + " is named twice"}
		}
		seen[ref] = true
	}
	c.Policies = append([]Policy(nil), c.Policies...)
	return &Archiver{client: client, store: store, cfg: c}, nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Store returns the archiver's store.
func (a *Archiver) Store() Store { return a.store }

// Client returns the archiver's client.
func (a *Archiver) Client() *echomq.Client { return a.client }

// Policies returns a copy of the configured policies.
func (a *Archiver) Policies() []Policy { return append([]Policy(nil), a.cfg.Policies...) }

func (a *Archiver) step(ev StepEvent) {
	if a.cfg.OnStep != nil {
		a.cfg.OnStep(ev)
	}
}

func (a *Archiver) progress(p Progress) {
	if a.cfg.Progress != nil {
		a.cfg.Progress(p)
	}
}
