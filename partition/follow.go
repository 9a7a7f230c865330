package partition

import (
	"context"
	"errors"
	"iter"
	"sync"
	"time"

	"github.com/echomq/echomq"
)

// DefaultSettle is how long [Stream.Follow] waits on an idle partition
// before handing out a younger partition's event (echomq.DefaultSettle,
// the stream set's).
const DefaultSettle = echomq.DefaultSettle

// item is one result of one partition's follower.
type item struct {
	part int
	ev   echomq.Event
	err  error
}

// Follow yields the events of every partition as they are appended, merged
// in entry-id order, until ctx ends, the loop body stops, or a permanent
// error of one partition's follower (yielded once) ends it. opts apply to
// every partition's [echomq.Stream.Follow] (From replays each partition from
// the same bound). An outage (an error matching [echomq.ErrUnavailable]) is
// yielded and followed on, as a single stream's follower does.
//
// The merge hands out an event once every other partition has an event in
// hand or has moved past it, or once it is [DefaultSettle] old by the
// client's clock: an idle partition delays the others by the settle time
// at most, and an append that reaches a partition later than that with an
// older id is handed out late, out of id order (order across partitions is
// by id, not causal; see docs/partitions.md). Events of one partition (so
// of one partition key) always come in order.
func (s *Stream) Follow(ctx context.Context, opts *echomq.FollowOpts) iter.Seq2[echomq.Event, error] {
	return func(yield func(echomq.Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		ch := make(chan item, 64)
		for i, src := range s.srcs {
			wg.Go(func() {
				for ev, err := range src.Follow(ctx, opts) {
					select {
					case ch <- item{part: i, ev: ev, err: err}:
					case <-ctx.Done():
						return
					}
				}
			})
		}
		m := &followMerge{bufs: make([][]echomq.Event, len(s.srcs)), seen: make([]echomq.EntryID, len(s.srcs)), settle: DefaultSettle, now: s.c.Now}
		m.run(ctx, ch, yield)
	}
}

// followMerge holds what the partitions' followers delivered and not yet
// handed out.
type followMerge struct {
	bufs   [][]echomq.Event
	seen   []echomq.EntryID // the last entry each partition delivered
	settle time.Duration
	now    func() time.Time
}

func (m *followMerge) run(ctx context.Context, ch <-chan item, yield func(echomq.Event, error) bool) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		wait := time.Hour
		for {
			ev, due, ok := m.next()
			if !ok {
				if due > 0 {
					wait = due
				}
				break
			}
			if !yield(ev, nil) {
				return
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case it := <-ch:
			if it.err != nil {
				if !yield(echomq.Event{}, it.err) || !errors.Is(it.err, echomq.ErrUnavailable) {
					return
				}
				continue
			}
			m.bufs[it.part] = append(m.bufs[it.part], it.ev)
			if it.ev.Entry.Compare(m.seen[it.part]) > 0 {
				m.seen[it.part] = it.ev.Entry
			}
		}
	}
}

// next takes the smallest event in hand when it is due; otherwise it
// reports how long until it is (0: nothing in hand).
func (m *followMerge) next() (echomq.Event, time.Duration, bool) {
	head := -1
	for i, b := range m.bufs {
		if len(b) > 0 && (head < 0 || b[0].Entry.Compare(m.bufs[head][0].Entry) < 0) {
			head = i
		}
	}
	if head < 0 {
		return echomq.Event{}, 0, false
	}
	ev := m.bufs[head][0]
	due := true
	for i, b := range m.bufs {
		if len(b) == 0 && m.seen[i].Compare(ev.Entry) < 0 {
			due = false // partition i may still deliver an older event
			break
		}
	}
	if !due {
		left := time.UnixMilli(int64(ev.Entry.Ms)).Add(m.settle).Sub(m.now())
		if left > 0 {
			return echomq.Event{}, left, false
		}
	}
	m.bufs[head] = m.bufs[head][1:]
	return ev, 0, true
}
