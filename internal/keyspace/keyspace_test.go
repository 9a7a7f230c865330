package keyspace_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/internal/keyspace"
)

func TestKeys(t *testing.T) {
	t.Parallel()
	require.Equal(t, "emq:{q1}:pending", keyspace.QueueKey("q1", "pending"))
	require.Equal(t, "emq:{cm}:stream:room-opened", keyspace.StreamKey("cm", "room-opened"))
	require.Equal(t, "emq:{cm}:stream:room-opened:archived", keyspace.ArchivedKey("cm", "room-opened"))
	require.Equal(t, "emq:{cm}:stream:room-opened:dead", keyspace.DeadKey("cm", "room-opened"))
	require.Equal(t, "{emq}:version", keyspace.VersionKey())
	require.Equal(t, "emq:{q1}:node:17", keyspace.NodeKey("q1", 17))
}

func TestSlot(t *testing.T) {
	t.Parallel()
	require.Equal(t, 12739, keyspace.Slot("123456789"))
	require.Equal(t, "emq:{}:pending", keyspace.HashTag("emq:{}:pending"))
	require.Equal(t, "plain", keyspace.HashTag("plain"))
	require.Equal(t, "q", keyspace.HashTag("emq:{q}:x{y}"))
	require.Equal(t, "emq:{q", keyspace.HashTag("emq:{q"))
	// Every key of one queue lands on one slot.
	want := keyspace.Slot(keyspace.StreamKey("cm", "a"))
	for _, k := range []string{keyspace.StreamKey("cm", "b"), keyspace.ArchivedKey("cm", "a"), keyspace.DeadKey("cm", "zz"), keyspace.QueueKey("cm", "lane:x")} {
		require.Equal(t, want, keyspace.Slot(k), k)
	}
	require.Equal(t, keyspace.Slot(keyspace.StreamKey("q1", "s")), keyspace.Slot(keyspace.NodeKey("q1", 3)))
}

func TestNames(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"a", "room-opened", "guess_scored", "v1.2", strings.Repeat("x", 128), "EMQ", "emq2"} {
		require.NoError(t, keyspace.Queue(ok), ok)
		require.NoError(t, keyspace.Stream(ok), ok)
	}
	for _, tc := range []struct{ name, in, reason string }{
		{"empty", "", "empty"},
		{"too long", strings.Repeat("x", 129), "longer than 128"},
		{"colon", "x:archived", `":"`},
		{"brace", "a{b}", `"{"`},
		{"space", "a b", `" "`},
		{"control", "a\nb", `"\n"`},
		{"star", "a*", `"*"`},
		{"unicode", "é", `"\xc3"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, check := range []func(string) error{keyspace.Queue, keyspace.Stream} {
				err := check(tc.in)
				require.ErrorIs(t, err, keyspace.ErrInvalidName)
				var ne *keyspace.NameError
				require.ErrorAs(t, err, &ne)
				require.Contains(t, ne.Reason, tc.reason)
			}
		})
	}
	err := keyspace.Queue("emq")
	require.ErrorIs(t, err, keyspace.ErrInvalidName)
	require.Contains(t, err.Error(), "reserved")
	require.NoError(t, keyspace.Stream("emq"), "a stream may be named emq; only the queue is the hash tag")
}

func FuzzName(f *testing.F) {
	for _, s := range []string{"room-opened", "x:archived", "{q}", "", "emq", "a.b_c-d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if keyspace.Stream(s) != nil {
			return
		}
		// A valid name can never reach a reserved suffix or move the slot.
		key := keyspace.StreamKey("q", s)
		if strings.ContainsAny(s, ":{} ") || keyspace.HashTag(key) != "q" {
			t.Fatalf("valid name %q escapes its key %q", s, key)
		}
		if key == keyspace.ArchivedKey("q", strings.TrimSuffix(s, ":archived")) && strings.HasSuffix(s, ":archived") {
			t.Fatalf("name %q collides with a watermark key", s)
		}
	})
}

func TestLogicalQueue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"orders", "orders"},
		{keyspace.PartitionQueue("orders", 3, 8), "orders"},
		{keyspace.PartitionQueue("a.b", 0, 1), "a.b"},
		{"a.emq-x", "a.emq-x"},
	} {
		if got := keyspace.LogicalQueue(tc.in); got != tc.want {
			t.Errorf("LogicalQueue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
