package watermill

import (
	"context"
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"

	"github.com/echomq/echomq"
)

// fanOutStart fixes where a fan-out subscription begins, before Subscribe
// returns: the stream's head, or just after its current top.
func (sub *subscription) fanOutStart(ctx context.Context) error {
	if sub.s.cfg.Start == echomq.StartHead {
		sub.from = echomq.Inclusive(echomq.EntryID{})
		return nil
	}
	var info echomq.StreamInfo
	err := retry(ctx, func(ctx context.Context) (err error) {
		info, err = sub.stream.Info(ctx)
		return err
	})
	if err != nil {
		return err
	}
	sub.from = echomq.Inclusive(echomq.EntryID{})
	if info.Exists {
		sub.from = echomq.Exclusive(info.LastGenerated)
	}
	return nil
}

// fanOut follows the stream from sub.from until the subscription stops;
// a failed read (the engine restarting) is logged and the follow resumes
// after the last entry delivered, one Beat later.
func (sub *subscription) fanOut() {
	cfg := &sub.s.cfg
	opts := &echomq.FollowOpts{Block: cfg.Beat, Count: cfg.Prefetch}
	for sub.ctx.Err() == nil {
		opts.From = sub.from
		for ev, err := range sub.stream.Follow(sub.ctx, opts) {
			if err != nil {
				sub.log().Error("follow failed; resuming", err, wmill.LogFields{"in": cfg.Beat})
				break
			}
			if !sub.deliverFanOut(ev) {
				return
			}
			sub.from = echomq.Exclusive(ev.Entry)
		}
		t := time.NewTimer(cfg.Beat)
		select {
		case <-t.C:
		case <-sub.ctx.Done():
		}
		t.Stop()
	}
}

// deliverFanOut offers one event until it is acknowledged, redelivering at
// once after each Nack up to MaxDeliveries. It returns false when the
// subscription stopped.
func (sub *subscription) deliverFanOut(ev echomq.Event) bool {
	cfg := &sub.s.cfg
	hold, cancel := graceAfter(sub.ctx, cfg.CloseGrace)
	defer cancel()
	for attempts := int64(1); ; attempts++ {
		msg, err := sub.newMessage(ev, attempts)
		if err != nil {
			sub.log().Error("undecodable entry skipped", err, wmill.LogFields{"entry": ev.Entry.String()})
			return true
		}
		switch sub.offer(msg, hold) {
		case acked:
			return true
		case stopped:
			return false
		case nacked:
			if limit := int64(cfg.MaxDeliveries); limit > 0 && attempts >= limit {
				sub.log().Error("message nacked on its last delivery; skipped", &NackedError{UUID: msg.UUID, Attempts: attempts, Max: limit},
					wmill.LogFields{"entry": ev.Entry.String()})
				return true
			}
		}
	}
}
