package partition

import (
	"strconv"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
)

// MaxPartitions is the largest partition count of one stream.
const MaxPartitions = keyspace.MaxPartitions

// Route returns the partition of key among p partitions: FNV-1a (64-bit)
// of the key's bytes modulo p. The function is part of the format: it
// never changes, so every writer, in any language, routes a key to the same
// partition (docs/partitions.md). p must lie in [1, MaxPartitions].
func Route(key string, p int) int {
	h := uint64(fnvOffset)
	for i := range len(key) {
		h ^= uint64(key[i])
		h *= fnvPrime
	}
	return int(h % uint64(p))
}

// FNV-1a 64 (hash/fnv's, inlined: no allocation per append).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// QueueOf returns the queue that holds partition i of p of a partitioned
// stream in queue q: "<q>.emq-p<i>of<p>-<salt>", the salt being the
// smallest that puts the name's cluster slot in the i-th of p equal arcs of
// the slot space. The same q, i and p always give the same name.
func QueueOf(q string, i, p int) (string, error) {
	if err := keyspace.PartitionedQueue(q); err != nil {
		return "", err
	}
	if err := checkCount(p); err != nil {
		return "", err
	}
	if i < 0 || i >= p {
		return "", &echomq.ArgumentError{Name: "partition", Reason: "must lie in [0, " + strconv.Itoa(p) + ")"}
	}
	return keyspace.PartitionQueue(q, i, p), nil
}

func checkCount(p int) error {
	if p < 1 || p > MaxPartitions {
		return &echomq.ArgumentError{Name: "partitions", Reason: "must lie in [1, " + strconv.Itoa(MaxPartitions) + "]"}
	}
	return nil
}

// formatCounts and parseCounts are the recorded form of a stream's
// partition counts, oldest first: "4,8".
func formatCounts(counts []int) string {
	parts := make([]string, len(counts))
	for i, p := range counts {
		parts[i] = strconv.Itoa(p)
	}
	return strings.Join(parts, ",")
}

func parseCounts(s string) ([]int, bool) {
	if s == "" {
		return nil, false
	}
	fs := strings.Split(s, ",")
	out := make([]int, len(fs))
	for i, f := range fs {
		p, err := strconv.Atoi(f)
		if err != nil || checkCount(p) != nil {
			return nil, false
		}
		out[i] = p
	}
	return out, true
}
