package views

import (
	"encoding/json"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/projection"
)

// num reads an integer field; a missing or malformed one reads 0 (a fold
// must not fail on one odd event: it would fail on every rebuild).
func num(ev projection.Event, name string) int64 {
	n, _ := strconv.ParseInt(ev.Fields.Value(name), 10, 64)
	return n
}

func inum(ev projection.Event, name string) int { return int(num(ev, name)) }

// snowflakeOf returns the snowflake of a branded id, 0 for a malformed one.
func snowflakeOf(id string) int64 {
	p, err := echomq.ParseID(id)
	if err != nil {
		return 0
	}
	return int64(p.Snowflake())
}

// payouts decodes the winners field of game-settled.
func payouts(ev projection.Event) []codemojex.Payout {
	var ps []codemojex.Payout
	_ = json.Unmarshal([]byte(ev.Fields.Value("winners")), &ps)
	return ps
}

// standings decodes the board field of game-revealed.
func standings(ev projection.Event) []codemojex.Standing {
	var b []codemojex.Standing
	_ = json.Unmarshal([]byte(ev.Fields.Value("board")), &b)
	return b
}

// insertSorted inserts item into s kept ascending by entry id and keeps the
// newest limit items, so the result does not depend on the order items
// arrive in.
func insertSorted[T any](s []T, item T, entry func(T) Entry, limit int) []T {
	e := entry(item)
	i := len(s)
	for i > 0 && entry(s[i-1]).Compare(e) > 0 {
		i--
	}
	s = append(s, item)
	copy(s[i+1:], s[i:])
	s[i] = item
	if limit > 0 && len(s) > limit {
		s = s[len(s)-limit:]
	}
	return s
}

// Entry is an entry id that encodes as its text "<ms>-<seq>" in views and
// snapshots.
type Entry echomq.EntryID

// MarshalText returns "<ms>-<seq>".
func (e Entry) MarshalText() ([]byte, error) { return []byte(echomq.EntryID(e).String()), nil }

// UnmarshalText parses "<ms>-<seq>".
func (e *Entry) UnmarshalText(b []byte) error {
	id, err := echomq.ParseEntryID(string(b))
	*e = Entry(id)
	return err
}

// Compare orders entries as entry ids.
func (e Entry) Compare(o Entry) int { return echomq.EntryID(e).Compare(echomq.EntryID(o)) }
