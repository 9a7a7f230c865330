package projection

import (
	"context"
	"iter"
	"time"

	"github.com/echomq/echomq"
)

// Source is one stream a projection reads: the live stream itself
// (*echomq.Stream satisfies it as is) or any reader with the same two reads,
// such as a merged archive + live reader, so a projection reads archived
// history without changing its code.
//
// Scan must yield the events of a range in ascending entry id order, page by
// page; Follow must replay from FollowOpts.From and then yield new events as
// they are appended, in ascending order, without a gap. Key names the stream
// uniquely: checkpoints and snapshots are keyed by it.
//
// A source that also has a Name() string method (as *echomq.Stream does)
// reports that name in [Event.Stream]; one with an Err() error method (as
// *echomq.Stream does) is checked with it before any I/O.
type Source interface {
	Key() string
	Scan(ctx context.Context, r echomq.Range, opts *echomq.ScanOpts) iter.Seq2[echomq.Event, error]
	Follow(ctx context.Context, opts *echomq.FollowOpts) iter.Seq2[echomq.Event, error]
}

var _ Source = (*echomq.Stream)(nil)

// Event is one event as a projection sees it: the stored event and the name
// of the stream it came from (the source's Name when it has one, else its
// Key), so a fold over several streams can tell them apart.
type Event struct {
	echomq.Event
	Stream string

	src int // index of the source, for checkpoints
}

// sources is a validated list of sources with their names.
type sources struct {
	list  []Source
	names []string
	keys  []string
}

// checkSources refuses an empty list, a nil source, a source whose handle
// was made from a bad name, and the same stream twice (its checkpoint would
// be ambiguous); all before any I/O.
func checkSources(list []Source) (sources, error) {
	if len(list) == 0 {
		return sources{}, argError("sources", "at least one stream is needed")
	}
	s := sources{list: list, names: make([]string, len(list)), keys: make([]string, len(list))}
	seen := make(map[string]int, len(list))
	for i, src := range list {
		if src == nil {
			return sources{}, argError("sources", "source "+itoa(i)+" is nil")
		}
		if e, ok := src.(interface{ Err() error }); ok {
			if err := e.Err(); err != nil {
				return sources{}, err
			}
		}
		key := src.Key()
		if key == "" {
			return sources{}, argError("sources", "source "+itoa(i)+" has no key")
		}
		if j, dup := seen[key]; dup {
			return sources{}, argError("sources", "stream "+key+" given twice (sources "+itoa(j)+" and "+itoa(i)+")")
		}
		seen[key] = i
		s.keys[i] = key
		s.names[i] = key
		if n, ok := src.(interface{ Name() string }); ok && n.Name() != "" {
			s.names[i] = n.Name()
		}
	}
	return s, nil
}

// clockOf returns the clock of the first source that carries one: a Now
// method, or the client of an *echomq.Stream (whose Config.Clock is the
// time source of windows relative to now). It falls back to time.Now.
func clockOf(list []Source) echomq.Clock {
	for _, src := range list {
		switch c := src.(type) {
		case interface{ Now() time.Time }:
			return c.Now
		case interface{ Client() *echomq.Client }:
			if cl := c.Client(); cl != nil {
				return cl.Now
			}
		}
	}
	return time.Now
}
