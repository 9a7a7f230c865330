package echomq

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/echomq/echomq/internal/keyspace"
)

// StreamSet is several streams of one queue read as one: a fixed list of
// names ([Client.Streams]) or every stream whose name starts with a prefix
// ([Client.StreamsPrefix]), streams created later included. All of a
// queue's keys share one hash tag, so a set is read in one round trip even
// on a cluster. A StreamSet is a cheap handle, safe for concurrent use.
//
// # Discovery
//
// A prefix set finds its streams with SCAN MATCH "emq:{q}:stream:<prefix>*"
// on the node that serves the queue's slot, in steps of 1000 keys,
// keeping the keys whose remainder is a stream name (so "…:dead",
// "…:archived" and idempotency keys, which hold a colon, are never taken for
// streams). The keyspace holds no registry of streams, so each discovery
// walks every key of that node: O(keys on the node) per walk, spread over
// round trips of discoverCount keys. Followers and consumers repeat it every
// Discover interval (1s by default); a set of named streams never scans.
type StreamSet struct {
	c      *Client
	queue  string
	names  []string
	prefix string
	byPref bool
	err    error
}

// discoverCount is the COUNT of one SCAN step of stream discovery.
const discoverCount = 1000

// Streams returns the set of the named streams of queue. Errors (reported
// by [StreamSet.Err] and every verb, before any I/O): a [*NameError] for a
// bad queue or stream name, an [*ArgumentError] for no names or a name
// given twice.
func (c *Client) Streams(queue string, names ...string) *StreamSet {
	set := &StreamSet{c: c, queue: queue, names: slices.Clone(names)}
	set.err = keyspace.Queue(queue)
	if set.err == nil && len(names) == 0 {
		set.err = &ArgumentError{Name: "streams", Reason: "name at least one stream (or use StreamsPrefix)"}
	}
	seen := map[string]bool{}
	for _, n := range names {
		if set.err != nil {
			break
		}
		if set.err = keyspace.Stream(n); set.err == nil && seen[n] {
			set.err = &ArgumentError{Name: "streams", Reason: fmt.Sprintf("stream %q given twice", n)}
		}
		seen[n] = true
	}
	sort.Strings(set.names)
	return set
}

// StreamsPrefix returns the set of every stream of queue whose name starts
// with prefix ("" means every stream of the queue), including streams
// created after a follower or consumer started. Errors: a [*NameError] for
// a bad queue, or a prefix holding a byte outside the name grammar.
func (c *Client) StreamsPrefix(queue, prefix string) *StreamSet {
	set := &StreamSet{c: c, queue: queue, prefix: prefix, byPref: true}
	set.err = keyspace.Queue(queue)
	if set.err == nil && prefix != "" {
		set.err = keyspace.Name("stream prefix", prefix)
	}
	return set
}

// Err returns the error every verb of a badly made set returns, or nil.
func (s *StreamSet) Err() error { return s.err }

// Queue returns the queue name.
func (s *StreamSet) Queue() string { return s.queue }

// String names the set for errors and logs: "q/a,b" or "q/prefix*".
func (s *StreamSet) String() string {
	if s.byPref {
		return s.queue + "/" + s.prefix + "*"
	}
	return s.queue + "/" + strings.Join(s.names, ",")
}

// Names returns the set's streams, sorted: the named ones, or those a
// discovery finds now. Errors: the set's own, then the engine's.
func (s *StreamSet) Names(ctx context.Context) ([]string, error) {
	if s.err != nil {
		return nil, opError("streams", s.String(), s.err)
	}
	if !s.byPref {
		return slices.Clone(s.names), nil
	}
	names, err := s.discover(ctx)
	return names, opError("streams", s.String(), err)
}

// discover walks the queue's node with SCAN and returns the names of the
// streams under the prefix, sorted.
func (s *StreamSet) discover(ctx context.Context) ([]string, error) {
	base := keyspace.StreamKey(s.queue, "")
	pattern := globEscape(base+s.prefix) + "*"
	seen := map[string]bool{}
	cursor := "0"
	for {
		next, keys, err := s.c.conn.ScanStep(ctx, base, cursor, pattern, discoverCount)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			name := strings.TrimPrefix(k, base)
			if keyspace.Stream(name) == nil && strings.HasPrefix(name, s.prefix) {
				seen[name] = true
			}
		}
		if next == "0" {
			break
		}
		cursor = next
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// globEscape escapes the glob metacharacters of a SCAN pattern; of them
// only the braces of the hash tag can appear in a key of ours.
func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}
