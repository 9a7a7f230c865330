package dashboard

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/echomq/echomq"
)

// counted is a count that may have stopped at Config.CountLimit, or be
// unknown.
type counted struct {
	N      int64
	Capped bool // the count reached the limit: at least N
	Known  bool
}

func exact(n int64) counted { return counted{N: n, Known: true} }

func (c counted) String() string {
	switch {
	case !c.Known:
		return "—"
	case c.Capped:
		return "≥ " + strconv.FormatInt(c.N, 10)
	default:
		return strconv.FormatInt(c.N, 10)
	}
}

// countRange counts the entries of s in r, reading at most limit of them
// (ids and fields come over the wire: the public API has no count verb),
// page by page so memory stays bounded.
func countRange(ctx context.Context, s *echomq.Stream, r echomq.Range, limit int) (counted, error) {
	c := counted{Known: true}
	page := min(limit, 1000)
	for _, err := range s.Scan(ctx, r, &echomq.ScanOpts{PageSize: page}) {
		if err != nil {
			return counted{}, err
		}
		c.N++
		if c.N >= int64(limit) {
			c.Capped = true
			break
		}
	}
	return c, nil
}

// Rate chart geometry: the last rateBuckets minutes, one bucket each.
const (
	rateBuckets = 15
	rateBucket  = time.Minute
)

// rate is the per-minute event counts of a stream over the last
// rateBuckets minutes, oldest first; the last bucket is the last minute.
type rate struct {
	Buckets [rateBuckets]int64
	Capped  bool // the scan stopped at the limit: older buckets undercount
	At      time.Time
}

// PerMinute is the events of the last minute.
func (r rate) PerMinute() counted {
	return counted{N: r.Buckets[rateBuckets-1], Known: true, Capped: r.Capped && r.Buckets[rateBuckets-1] > 0 && r.onlyLast()}
}

func (r rate) onlyLast() bool {
	for _, b := range r.Buckets[:rateBuckets-1] {
		if b != 0 {
			return false
		}
	}
	return true
}

// rateCache keeps each stream's rate, and its live row, for half a
// refresh interval, so that many open pages cost one scan (and one round
// of reads) per stream and interval.
type rateCache struct {
	mu   sync.Mutex
	byID map[string]rate
	rows map[string]cachedRow
}

type cachedRow struct {
	row streamRow
	at  time.Time
}

func newRateCache() *rateCache {
	return &rateCache{byID: map[string]rate{}, rows: map[string]cachedRow{}}
}

// cacheTTL is how long a cached rate or row is served.
func (h *Handler) cacheTTL() time.Duration { return max(h.cfg.Refresh/2, 500*time.Millisecond) }

// liveRow is streamRow through the cache: what every live update stream
// sends each tick.
func (h *Handler) liveRow(ctx context.Context, queue, name string) streamRow {
	key := queue + "/" + name
	now := time.Now()
	h.rates.mu.Lock()
	got, ok := h.rates.rows[key]
	h.rates.mu.Unlock()
	if ok && now.Sub(got.at) < h.cacheTTL() {
		return got.row
	}
	row := h.streamRow(ctx, queue, name)
	if row.Err == "" {
		h.rates.mu.Lock()
		h.rates.rows[key] = cachedRow{row: row, at: now}
		h.rates.mu.Unlock()
	}
	return row
}

// rate returns the rate of s, from the cache when it is fresher than ttl.
func (h *Handler) rate(ctx context.Context, s *echomq.Stream) (rate, error) {
	now := h.client.Now()
	ttl := h.cacheTTL()
	h.rates.mu.Lock()
	got, ok := h.rates.byID[s.Key()]
	h.rates.mu.Unlock()
	if ok && now.Sub(got.At) < ttl && now.Sub(got.At) >= 0 {
		return got, nil
	}
	r := rate{At: now}
	w := echomq.Window(now.Add(-rateBuckets*rateBucket), now)
	n := 0
	for ev, err := range s.Scan(ctx, w, &echomq.ScanOpts{PageSize: min(h.cfg.CountLimit, 1000), Reverse: true}) {
		if err != nil {
			return rate{}, err
		}
		i := rateBuckets - 1 - int(now.Sub(ev.Entry.Time())/rateBucket)
		if i >= 0 && i < rateBuckets {
			r.Buckets[i]++
		}
		if n++; n >= h.cfg.CountLimit {
			r.Capped = true
			break
		}
	}
	h.rates.mu.Lock()
	h.rates.byID[s.Key()] = r
	h.rates.mu.Unlock()
	return r, nil
}
