package lanes

import (
	"math/rand/v2"
	"time"
)

// Backoff says how long a job's lane is held after its attempt-th attempt
// failed (attempt counts from 1). It must be safe for concurrent use.
type Backoff func(attempt int) time.Duration

// Fixed holds the lane for d after every failure.
func Fixed(d time.Duration) Backoff {
	return func(int) time.Duration { return max(d, 0) }
}

// Exponential holds the lane for base·2^(attempt−1), capped at limit.
func Exponential(base, limit time.Duration) Backoff {
	return func(attempt int) time.Duration {
		if base <= 0 {
			return 0
		}
		d := base
		for i := 1; i < attempt && d < limit; i++ {
			d *= 2
		}
		return min(d, limit)
	}
}

// Jitter spreads b's delays over [d/2, d] ("equal jitter"), so jobs that
// failed together do not all come back together, while none comes back
// much sooner than b says.
func Jitter(b Backoff) Backoff {
	return func(attempt int) time.Duration {
		d := b(attempt)
		if d <= 1 {
			return d
		}
		half := d / 2
		return half + rand.N(d-half+1)
	}
}

// DefaultBackoff is the worker's backoff unless configured: exponential from
// 1 s, capped at 10 min, with jitter.
func DefaultBackoff() Backoff { return Jitter(Exponential(time.Second, 10*time.Minute)) }
