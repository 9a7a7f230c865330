package echomq_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// A durable append on a master with a live replica returns once the
// replica has it: reading the replica right after finds the event.
func TestDurableAppendReachesReplica(t *testing.T) {
	t.Parallel()
	master := echomqtest.Start(t)
	replica := echomqtest.StartReplica(t, master, "--appendonly", "yes") // WAITAOF counts replicas with an append-only file
	c := faultClient(t, master.URL(), echomq.Config{})
	rc := faultClient(t, replica.URL(), echomq.Config{NodeID: new(8)})
	q := echomqtest.Queue(t)
	for _, d := range []echomq.Durability{{Replicas: 1}, {Replicas: 1, Fsync: true, Timeout: 2 * time.Second}} {
		id, err := c.Stream(q, "orders").Append(ctx, echomq.F("n", "1"), &echomq.AppendOpts{Durable: d})
		require.NoError(t, err, "%+v", d)
		got, err := rc.Stream(q, "orders").Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		require.Equal(t, id, got[len(got)-1].ID, "the replica holds the acknowledged event")
	}
	ids, err := c.Stream(q, "batch").AppendBatch(ctx, []echomq.Fields{echomq.F("n", "1"), echomq.F("n", "2")},
		&echomq.AppendOpts{Durable: echomq.Durability{Replicas: 1}})
	require.NoError(t, err)
	got, err := rc.Stream(q, "batch").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, ids[1], got[1].ID)
}

// Fewer replicas than asked: the append is written, its receipt comes
// back with a *DurabilityError (ErrNotDurable, ErrUnavailable), and a retry
// with the same key once the replica answers writes nothing more.
func TestDurableAppendShortOfReplicas(t *testing.T) {
	t.Parallel()
	master := echomqtest.Start(t)
	replica := echomqtest.StartReplica(t, master)
	c := faultClient(t, master.URL(), echomq.Config{})
	s := c.Stream(echomqtest.Queue(t), "orders")
	opts := &echomq.AppendOpts{Key: "order-1", Durable: echomq.Durability{Replicas: 1, Timeout: 300 * time.Millisecond}}

	require.NoError(t, replica.Pause())
	id, err := s.Append(ctx, echomq.F("n", "1"), opts)
	var de *echomq.DurabilityError
	require.ErrorAs(t, err, &de)
	require.ErrorIs(t, err, echomq.ErrNotDurable)
	require.ErrorIs(t, err, echomq.ErrUnavailable)
	require.False(t, id.IsZero(), "the receipt of the written event")
	require.Equal(t, []echomq.ID{id}, de.Receipts)
	require.Equal(t, 1, de.Want)
	require.Zero(t, de.Acked)
	require.Equal(t, "WAIT", de.Cmd)
	require.Equal(t, 300*time.Millisecond, de.Timeout)
	require.Contains(t, err.Error(), "retrying with the same idempotency key is safe")

	require.NoError(t, replica.Resume())
	// The replica acknowledges within a second or so of resuming (its
	// replication cron); until then each retry is short again.
	var again echomq.ID
	deadline := time.Now().Add(15 * time.Second)
	for {
		again, err = s.Append(ctx, echomq.F("n", "1"), opts)
		if !errors.Is(err, echomq.ErrNotDurable) || time.Now().After(deadline) {
			break
		}
	}
	require.NoError(t, err)
	require.Equal(t, id, again)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, info.Length, "written once")

	// Two replicas asked of one: short, whatever the wait.
	_, err = s.Append(ctx, echomq.F("n", "2"), &echomq.AppendOpts{Durable: echomq.Durability{Replicas: 2, Timeout: 100 * time.Millisecond}})
	require.ErrorAs(t, err, &de)
	require.Equal(t, 1, de.Acked)
}

// A lone engine has no replica: a durable append is written and reported
// short; with Fsync it waits with WAITAOF where the engine has it (Redis
// 7.2 and later, every Valkey) and falls back to WAIT where it does not.
func TestDurableAppendWithoutReplicas(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Shared(t)
	v, err := srv.Version()
	require.NoError(t, err)
	fsyncCmd := "WAIT"
	if v.RedisAtLeast(7, 2) {
		fsyncCmd = "WAITAOF"
	}
	c := faultClient(t, srv.URL(), echomq.Config{})
	s := c.Stream(echomqtest.Queue(t), "orders")
	for _, fsync := range []bool{false, true} {
		_, err := s.Append(ctx, echomq.F("n", "1"), &echomq.AppendOpts{Durable: echomq.Durability{Replicas: 1, Timeout: 50 * time.Millisecond, Fsync: fsync}})
		var de *echomq.DurabilityError
		require.ErrorAs(t, err, &de)
		require.Zero(t, de.Acked)
		want := "WAIT"
		if fsync {
			want = fsyncCmd
		}
		require.Equal(t, want, de.Cmd, "fsync %v on %s", fsync, v)
	}
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, info.Length)
}

// Bad durability options are refused before any I/O: nothing is written.
func TestDurableAppendBadInput(t *testing.T) {
	t.Parallel()
	c := faultClient(t, echomqtest.Shared(t).URL(), echomq.Config{})
	s := c.Stream(echomqtest.Queue(t), "orders")
	for _, tc := range []struct {
		name string
		d    echomq.Durability
	}{
		{"negative replicas", echomq.Durability{Replicas: -1}},
		{"too many replicas", echomq.Durability{Replicas: 65}},
		{"negative timeout", echomq.Durability{Replicas: 1, Timeout: -time.Second}},
		{"timeout without replicas", echomq.Durability{Timeout: time.Second}},
		{"fsync without replicas", echomq.Durability{Fsync: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(ctx, echomq.F("n", "1"), &echomq.AppendOpts{Durable: tc.d})
			var ae *echomq.ArgumentError
			require.ErrorAs(t, err, &ae)
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
			_, err = s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "1")}, &echomq.AppendOpts{Durable: tc.d})
			require.ErrorAs(t, err, &ae)
			require.NotErrorIs(t, err, echomq.ErrUnavailable)
		})
	}
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.False(t, info.Exists, "nothing written")
}

// A wait the engine ends with an error after the write (UNBLOCKED, as a
// master turning replica in a failover does) is a *DurabilityError carrying
// that error: the append is written, its durability unknown.
func TestDurableAppendWaitCutShort(t *testing.T) {
	t.Parallel()
	master := echomqtest.Start(t)
	replica := echomqtest.StartReplica(t, master)
	c := faultClient(t, master.URL(), echomq.Config{})
	admin := faultClient(t, master.URL(), echomq.Config{NodeID: new(9)})
	s := c.Stream(echomqtest.Queue(t), "orders")
	require.NoError(t, replica.Pause())
	defer func() { require.NoError(t, replica.Resume()) }()

	type result struct {
		id  echomq.ID
		err error
	}
	done := make(chan result, 1)
	go func() {
		id, err := s.Append(ctx, echomq.F("n", "1"), &echomq.AppendOpts{Durable: echomq.Durability{Replicas: 1, Timeout: 20 * time.Second}})
		done <- result{id, err}
	}()
	// Find the connection blocked in WAIT and end its wait with an error.
	require.Eventually(t, func() bool {
		list, err := rawcmd.Do(ctx, admin, "CLIENT", "LIST")
		require.NoError(t, err)
		for line := range strings.SplitSeq(list.(string), "\n") {
			if !strings.Contains(line, " cmd=wait ") {
				continue
			}
			for f := range strings.FieldsSeq(line) {
				if id, ok := strings.CutPrefix(f, "id="); ok {
					_, err := rawcmd.Do(ctx, admin, "CLIENT", "UNBLOCK", id, "ERROR")
					require.NoError(t, err)
					return true
				}
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond)
	r := echomqtest.Recv(t, done, 30*time.Second, "the unblocked durable append")
	var de *echomq.DurabilityError
	require.ErrorAs(t, r.err, &de)
	var se *echomq.ServerError
	require.ErrorAs(t, r.err, &se, "the engine's refusal is the cause")
	require.Equal(t, "UNBLOCKED", se.Prefix)
	require.Equal(t, []echomq.ID{r.id}, de.Receipts)
	require.Contains(t, r.err.Error(), "wait for 1 replicas (WAIT) failed")
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, info.Length, "the append is written")
}
