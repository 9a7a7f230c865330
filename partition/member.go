package partition

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/startstop"
	"github.com/echomq/echomq/internal/wire"
)

// ErrLeaseLapsed is what a delivery fails with when it reaches the handler
// after the member's lease on its partition may have lapsed: the entry
// stays pending, and the partition's next holder handles it.
var ErrLeaseLapsed = errors.New("partition: the partition lease may have lapsed; delivery left to the next holder")

// Member is one member of a consumer group over a partitioned stream: it
// holds leases on some partitions and runs an [echomq.Consumer] of the
// group on each partition it holds. The members of a group share the
// partitions (partition k goes to the (k mod n)-th of the n live members,
// sorted by id), so each partition, and with it each partition key, is
// handled by one member at a time, in order. See docs/partitions.md for the
// rebalance protocol and its bounds. Make one with [Stream.Member]; its
// methods are safe for concurrent use, and Run runs once at a time.
type Member struct {
	s          *Stream
	cfg        MemberConfig
	id         string // the name and a random instance suffix: members sort by it
	conn       *wire.Conn
	membersKey string
	ownersKey  string
	margin     time.Duration // how long before a lease's end the member stops its consumer: LeaseTTL/10 + grace + the consumer's Beat
	grace      time.Duration // the consumers' Grace: running handlers' time to finish once stopped
	t0         time.Time     // the origin of mono
	wake       chan struct{}
	svc        startstop.Service // Run, Start, Stop and Stopped

	mu      sync.Mutex
	members []string
	owners  map[int]string // partition → holder id, at the last beat
	slots   map[int]*slot
	give    map[int]bool  // stopped partitions whose leases are to be given back
	watch   *outage.Watch // the engine's outages, as every long-running component logs them
	refused bool          // the last beat failed with a permanent error (logged once)
	wg      sync.WaitGroup
}

// slot is one partition the member holds.
type slot struct {
	part       int
	token      int64
	since      time.Time
	validUntil atomic.Int64 // mono ns: the lease surely holds before it
	lapse      *time.Timer  // stops the consumer margin before validUntil
	cancel     context.CancelFunc
	done       chan struct{}
	stopping   bool
}

// Member returns a member of the group cfg.Group over the stream. Nothing
// is written until [Member.Run]. Errors, before any I/O: a
// [*echomq.NameError] for a bad group or member name; an
// [*echomq.ArgumentError] for a nil config, a missing handler, a bad Start,
// Beat/LeaseTTL out of range, or a Consumer template the root package's
// consumer refuses (wrapped in an [*echomq.OpError]).
func (s *Stream) Member(cfg *MemberConfig) (*Member, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	m := &Member{
		s: s, cfg: r, id: r.Name + "/" + hex.EncodeToString(b[:]), conn: clientconn.Of(s.c),
		membersKey: keyspace.PartitionMembersKey(s.queue, s.name, r.Group),
		ownersKey:  keyspace.PartitionOwnersKey(s.queue, s.name, r.Group),
		margin:     r.LeaseTTL/10 + grace(r) + consumerBeat(r), grace: grace(r), t0: time.Now(), wake: make(chan struct{}, 1),
		slots: map[int]*slot{}, give: map[int]bool{},
	}
	m.watch = outage.New(r.Logger, "echomq: partition member", "group", r.Group, "member", m.id)
	if m.margin > r.LeaseTTL/2 {
		return nil, &echomq.ArgumentError{Name: "lease ttl", Reason: "must be at least 2 × (LeaseTTL/10 + the consumers' Grace + Beat): a member stops a partition's consumer that long before its lease could lapse"}
	}
	// The consumers are made when partitions are taken; their template is
	// checked now, so a bad one fails here rather than at every take.
	if _, err := newConsumer(s.c, m.consumerConfig(s.all[0], &slot{})); err != nil {
		return nil, err
	}
	return m, nil
}

// Group returns the name of the member's consumer group.
func (m *Member) Group() string { return m.cfg.Group }

// Stream returns the partitioned stream the member consumes.
func (m *Member) Stream() *Stream { return m.s }

// Name returns the member's name.
func (m *Member) Name() string { return m.cfg.Name }

func (m *Member) mono() time.Duration { return time.Since(m.t0) }

func (m *Member) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Run joins the group and handles the partitions the member is given until
// ctx ends (or [Member.Stop]); then it stops its consumers (running
// handlers finish within the consumer's Grace), gives its leases back and
// leaves the group, so the others take its partitions at their next beat,
// and returns nil. Engine outages are ridden out: a member that cannot
// renew a lease stops handling that partition before the lease could
// lapse, and takes part again when the engine answers. Errors:
// [echomq.ErrRunning] when the member is already running.
func (m *Member) Run(ctx context.Context) error { return m.svc.Run(ctx, m.run) }

// Start runs the member in a goroutine of its own until ctx ends or
// [Member.Stop]; it returns [echomq.ErrRunning] when it is running.
func (m *Member) Start(ctx context.Context) error { return m.svc.Start(ctx, m.run) }

// Stop stops the member as the end of Run's context does and waits until it
// has left the group, or until ctx ends.
func (m *Member) Stop(ctx context.Context) error { return m.svc.Stop(ctx) }

// Stopped returns a channel closed when the member's run has ended
// (already closed before the first run).
func (m *Member) Stopped() <-chan struct{} { return m.svc.Stopped() }

func (m *Member) run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			m.leave()
			return nil
		case <-t.C:
		case <-m.wake:
		}
		m.beat(ctx)
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(m.cfg.Beat)
	}
}

// beat renews the membership and the leases, takes the partitions this
// member should hold and gives back those it stopped.
func (m *Member) beat(ctx context.Context) {
	m.mu.Lock()
	now := m.mono()
	for _, sl := range m.slots {
		if !sl.stopping && now >= time.Duration(sl.validUntil.Load())-m.margin {
			m.stop(sl)
		}
	}
	m.reap()
	want := m.wanted()
	give := make([]int, 0, len(m.give))
	for k := range m.give {
		give = append(give, k)
	}
	first := m.members == nil
	m.mu.Unlock()

	sent := m.mono()
	bctx, cancel := context.WithTimeout(ctx, m.cfg.LeaseTTL/3)
	r, err := m.conn.PartitionBeat(bctx, m.membersKey, m.ownersKey, m.id, m.cfg.LeaseTTL, m.cfg.LeaseTTL, want, give)
	cancel()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		// The beat is retried at the member's own pace, not on a backoff:
		// its leases bound how long it may wait.
		switch {
		case ctx.Err() != nil: // stopping: not an outage
		case outage.Transient(err):
			m.watch.Failed("beat", err)
		case !m.refused:
			m.cfg.Logger.Error("echomq: partition member: beat refused; retrying", "group", m.cfg.Group, "member", m.id, "err", err)
			m.refused = true
		}
		return
	}
	m.watch.OK()
	m.refused = false
	for _, k := range give {
		delete(m.give, k)
	}
	m.members, m.owners = r.Members, owners(r.Leases, r.Now)
	slices.Sort(m.members) // the engine lists them by expiry
	for _, k := range want {
		tok, held := r.Held[k]
		sl := m.slots[k]
		switch {
		case held && sl == nil:
			m.start(ctx, k, tok, sent)
		case held && sl.token == tok:
			m.renew(sl, sent)
		case sl != nil && !sl.stopping:
			m.stop(sl) // lost (lapsed on the engine, or re-taken under a new token)
		}
	}
	desired := m.desired()
	for k, sl := range m.slots {
		if !desired[k] && !sl.stopping {
			m.stop(sl)
		}
	}
	if first {
		m.poke() // the membership is known now: take the partitions at once
	}
}

// desired returns the partitions the membership gives this member: k goes
// to the (k mod n)-th live member. Called with mu held.
func (m *Member) desired() map[int]bool {
	me := slices.Index(m.members, m.id)
	out := map[int]bool{}
	if me < 0 {
		return out
	}
	for k := range m.s.all {
		if k%len(m.members) == me {
			out[k] = true
		}
	}
	return out
}

// wanted lists the partitions to take or extend: those the last known
// membership gives this member and that are not being stopped. Before the
// membership is known it is none. Called with mu held.
func (m *Member) wanted() []int {
	var out []int
	for k := range m.desired() {
		if sl := m.slots[k]; sl != nil && sl.stopping {
			continue
		}
		delete(m.give, k)
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// reap moves the slots whose consumer has stopped to the give-back list.
// Called with mu held.
func (m *Member) reap() {
	for k, sl := range m.slots {
		if !sl.stopping {
			continue
		}
		select {
		case <-sl.done:
		default:
			continue
		}
		delete(m.slots, k)
		m.give[k] = true
		m.changed(sl, false)
	}
}

func (m *Member) changed(sl *slot, gained bool) {
	if m.cfg.OnChange != nil {
		m.cfg.OnChange(Change{Member: m.cfg.Name, Partition: sl.part, Token: sl.token, Gained: gained, At: time.Now()})
	}
}

// stop ends the consumer of a slot: it stops fetching, hands unstarted
// entries back and lets running handlers finish (the consumer's Grace);
// the lease is given back once it has returned. Called with mu held.
func (m *Member) stop(sl *slot) {
	sl.stopping = true
	sl.lapse.Stop()
	sl.cancel()
}

// renew records a renewal sent at sent and moves the slot's lapse timer:
// the consumer is stopped margin before the lease could lapse, so that
// even after its Beat (the blocking read it is in) and its Grace its
// running handlers' contexts end LeaseTTL/10 before it. Called with mu
// held.
func (m *Member) renew(sl *slot, sent time.Duration) {
	until := sent + m.cfg.LeaseTTL
	sl.validUntil.Store(int64(until))
	sl.lapse.Reset(until - m.margin - m.mono())
}

// defaultConsumerBeat is echomq.ConsumerConfig's default Beat.
const defaultConsumerBeat = time.Second

// consumerBeat is the per-partition consumers' Beat: how late a stopped
// consumer may notice the stop (its blocking read is not cut off).
func consumerBeat(cfg MemberConfig) time.Duration {
	if cfg.Consumer != nil && cfg.Consumer.Beat > 0 {
		return cfg.Consumer.Beat
	}
	return defaultConsumerBeat
}

// grace is the per-partition consumers' Grace: the template's, at most
// LeaseTTL/5 (the default).
func grace(cfg MemberConfig) time.Duration {
	g := cfg.LeaseTTL / 5
	if cfg.Consumer != nil && cfg.Consumer.Grace > 0 {
		g = min(g, cfg.Consumer.Grace)
	}
	return g
}

// start takes up partition k under lease token tok: it moves every entry
// still pending in the group on that partition (left by earlier holders)
// to this member, so its consumer handles them first, in entry order,
// before any new entry; then it runs the consumer. Called with mu held.
func (m *Member) start(ctx context.Context, k int, tok int64, sent time.Duration) {
	sctx, cancel := context.WithCancel(ctx)
	sl := &slot{part: k, token: tok, since: time.Now(), cancel: cancel, done: make(chan struct{})}
	sl.lapse = time.AfterFunc(time.Hour, func() {
		m.mu.Lock()
		if !sl.stopping {
			m.stop(sl)
		}
		m.mu.Unlock()
	})
	m.renew(sl, sent)
	m.slots[k] = sl
	m.changed(sl, true)
	p := m.s.all[k]
	cfg := m.consumerConfig(p, sl)
	m.wg.Go(func() {
		defer m.poke()
		defer close(sl.done)
		defer func() {
			m.mu.Lock()
			sl.stopping = true // a consumer that ended by itself gives its lease back too
			m.mu.Unlock()
		}()
		if err := m.adopt(sctx, p); err != nil && sctx.Err() == nil {
			m.cfg.Logger.Warn("echomq: partition member: moving earlier holders' pending entries failed", "partition", k, "err", err)
		}
		cons, err := newConsumer(m.s.c, cfg)
		if err == nil {
			err = cons.Run(sctx)
		}
		if err != nil {
			m.cfg.Logger.Error("echomq: partition member: consumer ended", "partition", k, "err", err)
			cancel()
		}
	})
}

// adopt claims every entry pending in the group on p under another
// consumer's name for this member, consumer by consumer (so every claim
// makes progress).
func (m *Member) adopt(ctx context.Context, p *echomq.Stream) error {
	const batch = 1000
	g := p.Group(m.cfg.Group)
	info, err := g.Info(ctx)
	if errors.Is(err, echomq.ErrGroupNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, c := range info.Consumers {
		if c.Name == m.cfg.Name || c.Pending == 0 {
			continue
		}
		for {
			moved, err := g.Claim(ctx, m.cfg.Name, &echomq.ClaimOpts{From: c.Name, Count: batch})
			if err != nil {
				return err
			}
			if len(moved) < batch {
				break
			}
		}
	}
	return nil
}

func (m *Member) consumerConfig(p *echomq.Stream, sl *slot) echomq.ConsumerConfig {
	var cfg echomq.ConsumerConfig
	if m.cfg.Consumer != nil {
		cfg = *m.cfg.Consumer
	}
	cfg.Grace = m.grace
	if cfg.Logger == nil {
		cfg.Logger = m.cfg.Logger
	}
	cfg.Queue, cfg.Stream, cfg.Group, cfg.Name, cfg.Start = p.Queue(), p.Name(), m.cfg.Group, m.cfg.Name, m.cfg.Start
	lease := Lease{Partition: sl.part, Token: sl.token, Member: m.cfg.Name}
	cfg.Handle = func(ctx context.Context, d echomq.Delivery) error {
		// No timer per delivery: the slot's lapse timer stops the consumer
		// margin before the lease could lapse, and the consumer cancels
		// running handlers' contexts when its grace (< margin) runs out.
		if m.mono() >= time.Duration(sl.validUntil.Load())-m.margin {
			return ErrLeaseLapsed
		}
		return m.cfg.Handle(context.WithValue(ctx, leaseKey{}, lease), d)
	}
	return cfg
}

// newConsumer is the only call of the root package's consumer constructor.
func newConsumer(c *echomq.Client, cfg echomq.ConsumerConfig) (*echomq.Consumer, error) {
	return c.Consumer(&cfg)
}

// leave stops every consumer, waits for them, gives every lease back and
// ends the membership.
func (m *Member) leave() {
	m.mu.Lock()
	for _, sl := range m.slots {
		if !sl.stopping {
			m.stop(sl)
		}
	}
	m.mu.Unlock()
	m.wg.Wait()
	m.mu.Lock()
	m.reap()
	give := make([]int, 0, len(m.give))
	for k := range m.give {
		give = append(give, k)
	}
	m.give = map[int]bool{}
	m.members = nil
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.LeaseTTL/3)
	defer cancel()
	if _, err := m.conn.PartitionBeat(ctx, m.membersKey, m.ownersKey, m.id, 0, m.cfg.LeaseTTL, nil, give); err != nil {
		m.cfg.Logger.Warn("echomq: partition member: leaving failed; the leases lapse by themselves", "group", m.cfg.Group, "member", m.id, "err", err)
	}
}

// owners decodes the lease table ("owner|expiry|token" per partition) into
// the holders of the leases unexpired at now (engine ms).
func owners(leases map[int]string, now int64) map[int]string {
	out := make(map[int]string, len(leases))
	for k, v := range leases {
		fs := strings.Split(v, "|")
		if len(fs) != 3 || fs[0] == "" {
			continue
		}
		if exp, err := strconv.ParseInt(fs[1], 10, 64); err == nil && exp > now {
			out[k] = fs[0]
		}
	}
	return out
}
