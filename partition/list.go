package partition

import (
	"context"
	"sort"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
)

// listCount is the COUNT of one SCAN step of [List].
const listCount = 1000

// List returns the names of the partitioned streams recorded in queue (by
// [Create]), sorted. It finds them with SCAN MATCH
// "emq:{queue}:partitions:*" on the node that serves the queue's slot, in
// steps of 1000 keys, keeping the keys whose remainder is a stream name (a
// group's members and leases, "…:<name>:group:<g>:…", hold a colon and are
// never taken for streams). The keyspace holds no registry of partitioned
// streams, so a listing walks every key of that node, as stream discovery
// does ([echomq.Client.StreamsPrefix]).
//
// Errors: a [*echomq.NameError] for a bad queue before any I/O, an
// [*echomq.ArgumentError] for a nil client; then the engine's.
func List(ctx context.Context, c *echomq.Client, queue string) ([]string, error) {
	if c == nil {
		return nil, &echomq.ArgumentError{Name: "client", Reason: "must not be nil"}
	}
	if err := keyspace.PartitionedQueue(queue); err != nil {
		return nil, err
	}
	base := keyspace.PartitionsKey(queue, "")
	pattern := globEscape(base) + "*"
	seen := map[string]bool{}
	cursor := "0"
	for {
		next, keys, err := clientconn.Of(c).ScanStep(ctx, base, cursor, pattern, listCount)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if name := strings.TrimPrefix(k, base); keyspace.Stream(name) == nil {
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

// globEscape escapes the glob metacharacters of a SCAN pattern, so the
// pattern matches the queue's name literally.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}
