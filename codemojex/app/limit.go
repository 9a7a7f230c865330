package app

import (
	"math"
	"sync"
	"time"
)

// Rate is a token bucket's refill rate and burst: Burst requests at once,
// then PerSecond a second.
type Rate struct {
	PerSecond float64
	Burst     int
}

// limiter is a token bucket per key. Memory is bounded: past maxKeys keys
// the buckets that have refilled completely (their keys are idle) are
// dropped, and when none has, the whole table is reset rather than grown.
type limiter struct {
	mu      sync.Mutex
	rate    Rate
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

const maxKeys = 100_000

func newLimiter(r Rate, now func() time.Time) *limiter {
	return &limiter{rate: r, buckets: map[string]*bucket{}, now: now}
}

// allow takes a token of key's bucket; when there is none it says how long
// until there is one.
func (l *limiter) allow(key string) (bool, time.Duration) {
	if l.rate.PerSecond <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxKeys {
			l.prune(now)
		}
		b = &bucket{tokens: float64(l.rate.Burst), last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(float64(l.rate.Burst), b.tokens+now.Sub(b.last).Seconds()*l.rate.PerSecond)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate.PerSecond * float64(time.Second))
	return false, wait
}

func (l *limiter) prune(now time.Time) {
	full := float64(l.rate.Burst) / l.rate.PerSecond
	for k, b := range l.buckets {
		if now.Sub(b.last).Seconds() >= full {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= maxKeys {
		clear(l.buckets)
	}
}
