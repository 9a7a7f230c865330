package echomq_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/rawcmd"
)

// groupRawEntry is one entry of a raw XREADGROUP reply.
type groupRawEntry struct {
	id     string
	fields []string
}

// rawReadGroup runs a raw XREADGROUP (as redis-cli would) and decodes the
// one stream's entries from the RESP3 map or RESP2 array reply.
func rawReadGroup(t *testing.T, e *groupEnv, group, consumer string, count int, id string) []groupRawEntry {
	t.Helper()
	v, err := rawcmd.Do(ctx, e.c, "XREADGROUP", "GROUP", group, consumer, "COUNT", itoa(count), "STREAMS", e.stream.Key(), id)
	require.NoError(t, err)
	var list []any
	switch r := v.(type) {
	case nil:
		return nil
	case map[string]any:
		list, _ = r[e.stream.Key()].([]any)
	case []any:
		list, _ = r[0].([]any)[1].([]any)
	}
	var out []groupRawEntry
	for _, item := range list {
		pair := item.([]any)
		re := groupRawEntry{id: pair[0].(string)}
		if fs, ok := pair[1].([]any); ok {
			for _, f := range fs {
				re.fields = append(re.fields, f.(string))
			}
		}
		out = append(out, re)
	}
	return out
}

func (e *groupEnv) create(t *testing.T, group string) {
	t.Helper()
	_, err := e.stream.Group(group).Create(ctx, echomq.StartHead)
	require.NoError(t, err)
}

// TestConsumerPolyglot: raw XREADGROUP/XACK on the same group see the same
// ids and settle the same pending list as the consumer.
func TestConsumerPolyglot(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.create(t, "g")
	first := e.append(t, 1)[0]

	raw := rawReadGroup(t, e, "g", "raw", 1, ">")
	require.Len(t, raw, 1)
	require.Equal(t, first.EntryID().String(), raw[0].id)
	require.Equal(t, []string{"id", first.String(), "n", "0"}, raw[0].fields, "the receipt rides in the id field")
	require.Equal(t, int64(1), e.pending(t, "g"))
	n, err := rawcmd.Do(ctx, e.c, "XACK", e.stream.Key(), "g", raw[0].id)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.Equal(t, int64(0), e.pending(t, "g"), "a raw XACK settles the group's pending list")

	// A raw reader takes one more entry and never acks; a foreign writer
	// appends one without an id field.
	held := e.append(t, 1)[0]
	require.Len(t, rawReadGroup(t, e, "g", "raw", 1, ">"), 1)
	foreign, err := rawcmd.Do(ctx, e.c, "XADD", e.stream.Key(), "*", "kind", "raw")
	require.NoError(t, err)

	rec := &deliveryLog{}
	cfg := e.cfg("g", "go", rec.handle)
	cfg.MinIdle = 100 * time.Millisecond
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "raw-held and foreign entries handled", func() bool { return len(rec.deliveries()) == 2 })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	r.halt(t)

	byEntry := map[string]echomq.Delivery{}
	for _, d := range rec.deliveries() {
		byEntry[d.Entry.String()] = d
	}
	require.NotContains(t, byEntry, first.EntryID().String(), "the raw-acked entry is never delivered")
	require.Equal(t, held, byEntry[held.EntryID().String()].ID, "the raw reader's pending entry is reclaimed")
	require.Equal(t, int64(2), byEntry[held.EntryID().String()].Attempts)
	f := byEntry[foreign.(string)]
	require.True(t, f.ID.IsZero(), "a foreign entry has no branded id")
	require.Equal(t, foreign, f.Key(), "its key is its entry id")
	require.Equal(t, echomq.F("kind", "raw"), f.Fields)
}

// TestConsumerTrimmedWhilePending: entries trimmed while pending neither
// stall the drain of the consumer's own pending list nor the reclaim of a
// dead peer's; they are acknowledged and counted.
func TestConsumerTrimmedWhilePending(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		reader   string // the raw reader that leaves entries pending
		consumer string // the consumer that must get past them
	}{
		{name: "Drain", reader: "me", consumer: "me"},
		{name: "Reclaim", reader: "gone", consumer: "me"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newGroupEnv(t)
			e.create(t, "g")
			ids := e.append(t, 4)
			require.Len(t, rawReadGroup(t, e, "g", tc.reader, 4, ">"), 4)
			_, err := rawcmd.Do(ctx, e.c, "XTRIM", e.stream.Key(), "MAXLEN", "1")
			require.NoError(t, err)
			if tc.name == "Drain" {
				got := rawReadGroup(t, e, "g", tc.reader, 10, "0")
				require.Nil(t, got[0].fields, "a history read returns trimmed entries without data")
			}

			rec := &deliveryLog{}
			cfg := e.cfg("g", tc.consumer, rec.handle)
			cfg.MinIdle = 50 * time.Millisecond
			r := startConsumer(t, e.c, cfg)
			waitFor(t, "survivor handled", func() bool { return len(rec.of(ids[3])) == 1 })
			fresh := e.append(t, 1)[0]
			waitFor(t, "new entries flow", func() bool { return len(rec.of(fresh)) == 1 })
			waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
			st := r.halt(t)
			require.Equal(t, int64(3), st.Trimmed)
			require.Len(t, rec.deliveries(), 2, "trimmed entries are never handed to the handler")
		})
	}
}
