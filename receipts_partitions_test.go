package echomq_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/keyspace"
)

// TestReceiptsUniqueAcrossPartitionWriters: writer processes that lease
// their node ids (none configured) — on time serially and from 64
// goroutines, 6 ms ahead, 50 ms behind, and batches of 16 from 16
// goroutines — append round robin to the 4 partitions' queues of one
// stream. Leases are taken in the logical queue and the engine's ids of a
// partition come from its own share of the sequences, so no receipt is
// handed out twice across the partitions; every receipt is stored once,
// and each partition is in id order.
func TestReceiptsUniqueAcrossPartitionWriters(t *testing.T) {
	srv := echomqtest.Start(t) // a private engine: the writers load it fully
	q := echomqtest.Queue(t)
	var parts []string
	for i := range 4 {
		parts = append(parts, keyspace.PartitionQueue(q, i, 4)+"/orders")
	}
	writers := []receiptWriter{
		{node: -1, mode: "serial"},
		{node: -2, mode: "serial", offset: 6 * time.Millisecond},
		{node: -3, mode: "serial", offset: -50 * time.Millisecond},
		{node: -4, mode: "batch"},
		{node: -5, mode: "pipe"},
	}
	runs := runReceiptWriters(t, srv.URL(), q, parts, writers, receiptSeconds(t))
	reader := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(0)})
	handed := map[string][]echomq.ID{}
	var all []echomq.ID
	for _, r := range runs {
		n := 0
		for spec, ids := range r.receipts {
			handed[spec] = append(handed[spec], ids...)
			all = append(all, ids...)
			n += len(ids)
		}
		require.Positive(t, n, "writer %d appended nothing", r.w.node)
	}
	checkUniqueReceipts(t, all)
	engine := 0
	for spec, ids := range handed {
		pq, name, _ := strings.Cut(spec, "/")
		evs, err := reader.Stream(pq, name).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		require.Len(t, evs, len(ids), "%s: every receipt is stored, nothing else is", spec)
		for i, ev := range evs {
			require.Equal(t, ev.ID.EntryID(), ev.Entry, "%s: the receipt is the entry id's EVT id", spec)
			if i > 0 {
				require.Equal(t, 1, ev.ID.Compare(evs[i-1].ID), "%s: stream order is id order", spec)
			}
			if ev.ID.Snowflake().Node() == 1023 {
				engine++
			}
		}
	}
	t.Logf("%d receipts over %d partitions, none twice; %d chosen by the engine", len(all), len(handed), engine)
}
