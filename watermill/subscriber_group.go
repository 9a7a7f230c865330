package watermill

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq"
)

// ErrNacked is matched by the error a group records for a message whose
// last delivery was nacked: the dead letter's "error" field carries it.
var ErrNacked = errors.New("echomq/watermill: message nacked")

// NackedError is a message nacked on its last delivery.
type NackedError struct {
	UUID          string
	Attempts, Max int64
}

func (e *NackedError) Error() string {
	return fmt.Sprintf("echomq/watermill: message %s nacked on delivery %d of %d", e.UUID, e.Attempts, e.Max)
}

// Is reports whether target is [ErrNacked].
func (e *NackedError) Is(target error) bool { return target == ErrNacked }

// minGrace is the shortest grace a group member gets at Close: enough for
// idle handler goroutines to notice the stop, so the consumer only warns
// about (and cancels) deliveries really held at Close.
const minGrace = 20 * time.Millisecond

// joinGroup creates the group when missing and prepares the consumer under
// the next free name.
func (sub *subscription) joinGroup(ctx context.Context) error {
	cfg := &sub.s.cfg
	if err := sub.s.createGroup(ctx, sub.stream); err != nil {
		return err
	}
	slotKey := fmt.Sprintf("%p\x00%s\x00%s", cfg.Client, sub.stream.Key(), cfg.ConsumerGroup)
	n := names.take(slotKey)
	grace := max(cfg.CloseGrace, minGrace)
	deliveries := cfg.MaxDeliveries
	if deliveries < 0 {
		deliveries = -1
	}
	c, err := cfg.Client.Consumer(&echomq.ConsumerConfig{
		Queue: sub.stream.Queue(), Stream: sub.stream.Name(), Group: cfg.ConsumerGroup,
		Name:  cfg.Consumer + "-" + strconv.Itoa(n),
		Start: cfg.Start, Handle: sub.handle,
		Count: cfg.Prefetch, Beat: cfg.Beat, MinIdle: cfg.AckDeadline,
		Concurrency: 1, MaxDeliveries: deliveries, Grace: grace, AckInterval: min(5*time.Millisecond, cfg.AckDeadline/4),
	})
	if err != nil {
		names.free(slotKey, n)
		return err
	}
	sub.consumer = c
	sub.release = func() { names.free(slotKey, n) }
	return nil
}

// handle is the consumer's handler: it offers the delivery to the channel
// until it is acknowledged, redelivering at once after each Nack. It
// returns nil on Ack (the consumer acknowledges the entry); an error when
// the deliveries are used up or the deadline passed (the entry stays
// pending: the consumer dead-letters it on its last delivery, or it is
// redelivered once idle for AckDeadline); the context's error when the
// subscription stops (the consumer hands the entry back).
func (sub *subscription) handle(ctx context.Context, d echomq.Delivery) error {
	limit := int64(sub.s.cfg.MaxDeliveries)
	spentKey := func() string { return sub.stream.Key() + "\x00" + d.Group + "\x00" + d.Entry.String() }
	if sub.s.spent.has(spentKey) {
		// Nacked through all its deliveries earlier, and back because
		// the consumer could not dead-letter it then (see spentSet).
		if d.Attempts >= limit {
			sub.s.spent.drop(spentKey())
		}
		return &NackedError{UUID: d.Key(), Attempts: d.Attempts, Max: limit}
	}
	// The consumer cancels ctx when the grace after a stop is over, and
	// at the ack deadline.
	for n := int64(0); ; n++ {
		attempts := d.Attempts + n
		msg, err := sub.newMessage(d.Event, attempts)
		if err != nil {
			sub.log().Error("undecodable entry", err, map[string]any{"entry": d.Entry.String()})
			sub.s.spent.add(spentKey())
			return fmt.Errorf("echomq/watermill: unmarshal: %w", err)
		}
		switch sub.offer(msg, ctx) {
		case acked:
			return nil
		case stopped:
			if err := ctx.Err(); err != nil {
				return err
			}
			// Withdrawn unread because the subscription stops: the
			// consumer stops too and, once its grace is over, cancels
			// ctx; wait for that so the entry is handed back rather
			// than counted as failed.
			<-ctx.Done()
			return ctx.Err()
		case nacked:
			if limit > 0 && attempts >= limit {
				if d.Attempts < limit {
					sub.s.spent.add(spentKey())
				}
				return &NackedError{UUID: msg.UUID, Attempts: attempts, Max: limit}
			}
		}
	}
}

// spentCap bounds the entries a subscriber remembers as spent.
const spentCap = 1 << 14

// spentSet remembers the group entries whose deliveries were used up by
// immediate redeliveries after Nack before the engine's own count reached
// MaxDeliveries. The EchoMQ consumer dead-letters by the engine's count,
// so such an entry stays pending; each time the engine delivers it again
// (after AckDeadline) it is failed at once, without reaching the channel,
// until the engine's count reaches the limit and the consumer moves it to
// the dead letters. The set is per process and bounded: an entry forgotten
// (or delivered to another process) is offered again, at most
// MaxDeliveries times per engine delivery.
type spentSet struct {
	n     atomic.Int64 // len(keys), read without the lock on every delivery
	mu    sync.Mutex
	cap   int
	keys  map[string]struct{}
	order []string // insertion order, for eviction
}

func newSpentSet(n int) *spentSet { return &spentSet{cap: n, keys: make(map[string]struct{})} }

func (s *spentSet) add(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[k]; ok {
		return
	}
	for len(s.order) >= s.cap {
		delete(s.keys, s.order[0])
		s.order = s.order[1:]
		s.n.Store(int64(len(s.keys)))
	}
	s.keys[k] = struct{}{}
	s.order = append(s.order, k)
	s.n.Store(int64(len(s.keys)))
}

// has reports whether the key is in the set; key is built only when the
// set is not empty, so the common delivery costs one atomic load.
func (s *spentSet) has(key func() string) bool {
	if s.n.Load() == 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.keys[key()]
	return ok
}

func (s *spentSet) drop(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[k]; !ok {
		return
	}
	delete(s.keys, k)
	s.n.Store(int64(len(s.keys)))
	if i := slices.Index(s.order, k); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
}

// nameSlots hands out the consumer-name numbers of one process: the
// smallest number not in use for a stream and group.
type nameSlots struct {
	mu   sync.Mutex
	used map[string]map[int]struct{}
}

var names = &nameSlots{used: make(map[string]map[int]struct{})}

func (ns *nameSlots) take(key string) int {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	u := ns.used[key]
	if u == nil {
		u = make(map[int]struct{})
		ns.used[key] = u
	}
	n := 1
	for ; ; n++ {
		if _, ok := u[n]; !ok {
			break
		}
	}
	u[n] = struct{}{}
	return n
}

func (ns *nameSlots) free(key string, n int) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	delete(ns.used[key], n)
	if len(ns.used[key]) == 0 {
		delete(ns.used, key)
	}
}
