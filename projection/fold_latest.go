package projection

import (
	"slices"
	"strings"

	"github.com/echomq/echomq"
)

// Changelog is the state of [Latest]: the newest event per value of a key
// field, a changelog view ("each room's latest status").
type Changelog struct {
	// Key is the key field.
	Key string `json:"key"`
	// Latest maps a key value to its newest event.
	Latest map[string]Change `json:"latest"`
	// Missing counts the events without the key field.
	Missing int64 `json:"missing"`
}

// Change is one entry of a [Changelog].
type Change struct {
	ID     string         `json:"id"` // the branded id ("" for a foreign entry)
	Entry  echomq.EntryID `json:"entry"`
	Stream string         `json:"stream"`
	Fields echomq.Fields  `json:"fields"`
}

// newer orders changes by entry id, then by stream name, so the newest
// wins whatever order two streams were folded in.
func (c Change) newer(o Change) bool {
	if d := c.Entry.Compare(o.Entry); d != 0 {
		return d > 0
	}
	return c.Stream > o.Stream
}

// Latest keeps, per value of the field key, the event with the highest
// entry id (ties across streams go to the greater stream name): the same
// answer in whatever order the events are folded.
func Latest(key string) Projection[*Changelog] {
	p := Projection[*Changelog]{
		Name:    "latest,by=" + key,
		Version: 1,
		Init:    func() *Changelog { return &Changelog{Key: key, Latest: map[string]Change{}} },
		Apply: func(c *Changelog, ev Event) *Changelog {
			k, ok := ev.Fields.Get(key)
			if !ok {
				c.Missing++
				return c
			}
			ch := Change{ID: ev.ID.String(), Entry: ev.Entry, Stream: ev.Stream, Fields: ev.Fields}
			if c.Latest == nil {
				c.Latest = map[string]Change{}
			}
			if old, ok := c.Latest[k]; !ok || ch.newer(old) {
				c.Latest[k] = ch
			}
			return c
		},
	}
	if key == "" {
		p.err = argError("latest", "the key field name must not be empty")
	}
	return p
}

// Columns returns [key, "id", "time", "fields"].
func (c *Changelog) Columns() []string { return []string{c.Key, "id", "time", "fields"} }

// Rows returns one row per key value in value order; fields render as
// name=value pairs.
func (c *Changelog) Rows() [][]string {
	keys := make([]string, 0, len(c.Latest))
	for k := range c.Latest {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([][]string, len(keys))
	for i, k := range keys {
		ch := c.Latest[k]
		var sb strings.Builder
		for j := 0; j+1 < len(ch.Fields); j += 2 {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(ch.Fields[j] + "=" + ch.Fields[j+1])
		}
		rows[i] = []string{k, ch.ID, ch.Entry.Time().Format("2006-01-02T15:04:05.000Z07:00"), sb.String()}
	}
	return rows
}
