package echomq_test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/retention"
)

// tenantACL is the least-privilege rule of docs/tenants.md:
// user may reach the keys and channels of queue and nothing else; every
// command but the dangerous ones (INFO added back: Connect reads it).
func tenantACL(user, pass, queue string) []string {
	return []string{
		"ACL", "SETUSER", user, "reset", "on", ">" + pass,
		"resetkeys", "~emq:{" + queue + "}:*", "resetchannels", "&emq:{" + queue + "}:*",
		"+@all", "-@dangerous", "+info",
	}
}

// tenantURL is srv's URL with user's credentials.
func tenantURL(t *testing.T, srv *echomqtest.Server, user, pass string) string {
	t.Helper()
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	u.User = url.UserPassword(user, pass)
	return u.String()
}

// noLocker hides the Locker of the store it wraps (and keeps its Deleter),
// so the archiver guards the stream with its lease on the engine, a key of
// the tenant's queue.
type noLocker struct{ archive.Store }

func (s noLocker) Delete(ctx context.Context, name string) error {
	return s.Store.(archive.Deleter).Delete(ctx, name)
}

// TestTenantsConfinedByACL: two users by the documented rule, one queue
// each. Each connects and appends (with node ids leased in its queue),
// reads, creates a group and consumes it, enqueues, claims and completes a
// lane job and runs an archive cycle on its queue. Neither can read, write,
// trim or lease the other's keys (ErrPermission); and one tenant holding
// every node lease of its queue stops no other tenant from connecting and
// appending.
func TestTenantsConfinedByACL(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	admin := connect(t, echomq.Config{URL: srv.URL()})
	qa, qb := echomqtest.Queue(t)+"-a", echomqtest.Queue(t)+"-b"
	for _, tn := range []struct{ user, queue string }{{"tenant-a", qa}, {"tenant-b", qb}} {
		args := tenantACL(tn.user, "secret-"+tn.user, tn.queue)
		_, err := rawcmd.Do(ctx, admin, args...)
		require.NoError(t, err)
	}
	tenant := func(user string) *echomq.Client {
		return connect(t, echomq.Config{URL: tenantURL(t, srv, user, "secret-"+user), Notice: io.Discard})
	}
	a, b := tenant("tenant-a"), tenant("tenant-b")

	// Tenant a holds every node lease of its queue it can take: b is not
	// affected, and a itself still connects (leases are per queue).
	hog := []string{"MSET"}
	for n := range echomq.EngineNode {
		hog = append(hog, fmt.Sprintf("emq:{%s}:node:%d", qa, n), "hog")
	}
	_, err := rawcmd.Do(ctx, a, hog...)
	require.NoError(t, err)
	_ = tenant("tenant-a")
	_, err = a.Stream(qa, "events").Append(ctx, echomq.F("k", "v"), nil)
	require.ErrorIs(t, err, echomq.ErrNoFreeNode)
	del := []string{"DEL"}
	for i := 1; i < len(hog); i += 2 {
		del = append(del, hog[i])
	}
	_, err = rawcmd.Do(ctx, a, del...)
	require.NoError(t, err)

	for _, tn := range []struct {
		c     *echomq.Client
		queue string
	}{{a, qa}, {b, qb}} {
		exerciseTenant(t, tn.c, tn.queue)
	}

	// Neither reaches the other's queue: read, write, trim, lease, lanes.
	for _, tc := range []struct {
		c     *echomq.Client
		other string
	}{{a, qb}, {b, qa}} {
		s := tc.c.Stream(tc.other, "events")
		_, err := s.Append(ctx, echomq.F("k", "v"), nil)
		require.ErrorIs(t, err, echomq.ErrPermission, "append to another tenant's queue")
		_, err = s.Read(ctx, echomq.All, nil)
		require.ErrorIs(t, err, echomq.ErrPermission, "read another tenant's stream")
		_, err = s.Trim(ctx, echomq.MaxLen(0))
		require.ErrorIs(t, err, echomq.ErrPermission, "trim another tenant's stream")
		_, err = tc.c.MintID(ctx, tc.other, echomq.BrandEvent)
		require.ErrorIs(t, err, echomq.ErrPermission, "lease a node id in another tenant's queue")
		_, err = rawcmd.Do(ctx, tc.c, "SET", fmt.Sprintf("emq:{%s}:node:5", tc.other), "x")
		require.ErrorIs(t, err, echomq.ErrPermission)
		_, err = rawcmd.Do(ctx, tc.c, "SET", "{emq}:version", "x")
		require.ErrorIs(t, err, echomq.ErrPermission, "the cross-queue keys are no tenant's")
		lq, err := lanes.New(tc.c, tc.other, nil)
		require.NoError(t, err)
		_, err = lq.Enqueue(ctx, "PLR1", []byte("x"), nil)
		require.ErrorIs(t, err, echomq.ErrPermission, "enqueue on another tenant's lanes")
	}
	evs, err := b.Stream(qb, "events").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	for _, ev := range evs {
		_, ok := ev.Fields.Get("k")
		require.False(t, ok, "a's refused appends wrote nothing in b")
	}
}

// exerciseTenant runs every verb family on the tenant's own queue.
func exerciseTenant(t *testing.T, c *echomq.Client, q string) {
	t.Helper()
	s := c.Stream(q, "events")
	var ids []echomq.ID
	for i := range 20 {
		id, err := s.Append(ctx, echomq.F("i", itoa(i)), nil)
		require.NoError(t, err, "append")
		ids = append(ids, id)
	}
	got, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("i", "b0"), echomq.F("i", "b1")}, nil)
	require.NoError(t, err, "append batch")
	ids = append(ids, got...)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err, "read")
	require.Len(t, evs, len(ids))

	// A group, consumed to its end.
	var mu sync.Mutex
	seen := map[echomq.ID]bool{}
	done := make(chan struct{})
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "events", Group: "g", Start: echomq.StartHead,
		Beat: 100 * time.Millisecond, Handle: func(_ context.Context, d echomq.Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			seen[d.ID] = true
			if len(seen) == len(ids) {
				close(done)
			}
			return nil
		},
	})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- cons.Run(runCtx) }()
	select {
	case <-done:
	case err := <-stopped:
		t.Fatalf("consumer stopped: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the consumer did not handle every event within a minute")
	}
	cancel()
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the consumer did not stop")
	}

	// Lanes: enqueue, claim, complete.
	lq, err := lanes.New(c, q, nil)
	require.NoError(t, err)
	jid, err := lq.Enqueue(ctx, "PLR1", []byte("job"), nil)
	require.NoError(t, err, "enqueue")
	jobs, err := lq.Claim(ctx, 1, 30*time.Second)
	require.NoError(t, err, "claim")
	require.Len(t, jobs, 1)
	require.Equal(t, jid, jobs[0].ID)
	require.NoError(t, lq.Complete(ctx, jobs[0]), "complete")

	// An archive cycle, guarded by its lease on the engine.
	fs, err := fsstore.New(t.TempDir())
	require.NoError(t, err)
	arch, err := archive.New(c, noLocker{fs}, nil)
	require.NoError(t, err)
	res, err := arch.Cycle(ctx, archive.Policy{Queue: q, Stream: "events", Keep: retention.MaxLen(5)})
	require.NoError(t, err, "archive cycle")
	require.Equal(t, int64(len(ids)-5), res.Trimmed)
	merged, err := arch.Reader(q, "events").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, merged, len(ids))
}
