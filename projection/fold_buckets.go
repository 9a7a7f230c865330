package projection

import (
	"slices"
	"time"
)

// Buckets is the state of [CountPer]: event counts per time bucket of the
// mint instant ("rooms opened per hour").
type Buckets struct {
	// Every is the bucket width.
	Every time.Duration `json:"every"`
	// Counts maps a bucket's start (Unix milliseconds) to its count.
	Counts map[int64]int64 `json:"counts"`
}

// CountPer counts the events per bucket of width every: time.Minute,
// time.Hour, 24*time.Hour (UTC days), or any whole number of milliseconds.
// Buckets are aligned on the Unix epoch, so hours and days start on the hour
// and at midnight UTC. A width below one millisecond or not a whole number
// of milliseconds is refused with an [*echomq.ArgumentError].
func CountPer(every time.Duration) Projection[*Buckets] {
	width := every.Milliseconds()
	p := Projection[*Buckets]{
		Name:    "buckets,every=" + every.String(),
		Version: 1,
		Init:    func() *Buckets { return &Buckets{Every: every, Counts: map[int64]int64{}} },
		Apply: func(b *Buckets, ev Event) *Buckets {
			if b.Counts == nil {
				b.Counts = map[int64]int64{}
			}
			ms := int64(ev.Entry.Ms)
			b.Counts[ms-ms%width]++
			return b
		},
	}
	if width <= 0 || time.Duration(width)*time.Millisecond != every {
		p.err = argError("bucket width", every.String()+" is not a positive whole number of milliseconds")
	}
	return p
}

// Series returns the buckets in time order (empty buckets left out).
func (b *Buckets) Series() []Bucket {
	starts := make([]int64, 0, len(b.Counts))
	for s := range b.Counts {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	out := make([]Bucket, len(starts))
	for i, s := range starts {
		out[i] = Bucket{Start: time.UnixMilli(s).UTC(), Count: b.Counts[s]}
	}
	return out
}

// Bucket is one bucket of [Buckets.Series].
type Bucket struct {
	Start time.Time
	Count int64
}

// Columns returns ["start", "count"].
func (b *Buckets) Columns() []string { return []string{"start", "count"} }

// Rows returns one row per non-empty bucket in time order, the start in
// RFC 3339 (UTC).
func (b *Buckets) Rows() [][]string {
	series := b.Series()
	rows := make([][]string, len(series))
	for i, s := range series {
		rows[i] = []string{s.Start.Format(time.RFC3339), formatInt(s.Count)}
	}
	return rows
}
