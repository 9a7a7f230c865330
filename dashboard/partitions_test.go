package dashboard_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

// partitioned makes the partitioned stream name of 4 partitions in the
// bundle's queue, appends 40 events to it, and starts a group "billing" of
// two members whose handlers block until the test ends; it returns the
// members' ids once each holds two partitions.
func (b *bundle) partitioned(t *testing.T, name string) []string {
	t.Helper()
	s, err := partition.Create(b.ctx, b.client, b.queue, name, 4)
	require.NoError(t, err)
	for i := range 40 {
		_, err := s.Append(b.ctx, "k"+strconv.Itoa(i), echomq.F("n", strconv.Itoa(i)), nil)
		require.NoError(t, err)
	}
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	var ids []string
	for _, name := range []string{"a", "b"} {
		m, err := s.Member(&partition.MemberConfig{
			Group: "billing", Name: name, Start: echomq.StartHead, Logger: quiet,
			Beat: 50 * time.Millisecond, LeaseTTL: time.Second,
			Consumer: &echomq.ConsumerConfig{Count: 1, Beat: 100 * time.Millisecond},
			Handle: func(hctx context.Context, _ echomq.Delivery) error {
				select {
				case <-block:
				case <-hctx.Done():
				}
				return hctx.Err()
			},
		})
		require.NoError(t, err)
		require.NoError(t, m.Start(b.ctx))
		t.Cleanup(func() { require.NoError(t, m.Stop(context.Background())) })
		echomqtest.WaitFor(t, 30*time.Second, "the member to hold a partition", func() bool { return len(m.Assignment().Held) > 0 })
		ids = append(ids, m.Assignment().Member)
	}
	echomqtest.WaitFor(t, 30*time.Second, "two partitions each", func() bool {
		st, err := s.GroupState(b.ctx, "billing")
		require.NoError(t, err)
		return len(st.Members) == 2 && len(st.Held(st.Members[0])) == 2
	})
	return ids
}

// TestPartitionsPage: a partitioned stream of the dashboard's queue shows
// its four partitions with their lengths, and a group of two members shows
// both, the partitions each holds, and each partition's holder and lag.
func TestPartitionsPage(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ids := b.partitioned(t, "orders-p")

	br := b.browser(t)
	br.signIn()
	p := br.get("/q/" + b.queue + "/partitioned/orders-p")
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Equal(t, 4, strings.Count(p.body, `<tr class="partition">`))
	require.Equal(t, 2, strings.Count(p.body, `<tr class="member">`))
	require.Contains(t, p.body, "Group billing")
	for _, id := range ids {
		require.Contains(t, p.body, id)
	}
	q0, err := partition.QueueOf(b.queue, 0, 4)
	require.NoError(t, err)
	require.Contains(t, p.body, q0)

	// The overview lists the partitioned stream with its count and links
	// to its page; a plain stream's name is not taken for one.
	o := br.get("/")
	require.Equal(t, http.StatusOK, o.status, o.body)
	require.Equal(t, 1, strings.Count(o.body, `<tr class="partitioned">`))
	require.Contains(t, o.body, `<a href="/q/`+b.queue+`/partitioned/orders-p" aria-label="Partitions of orders-p">orders-p</a>`)
	require.Contains(t, o.body, `<td class="num" data-label="Partitions">4</td>`)

	for _, path := range []string{"/q/" + b.queue + "/partitioned/orders", "/q/" + b.queue + "/partitioned/a:b", "/q/nope/partitioned/orders-p"} {
		require.Equal(t, http.StatusNotFound, br.get(path).status, path)
	}
}

// TestOverviewPartitionedFixed: a queue shown with Queue.Fixed lists no
// partitioned stream (nothing is discovered), and a queue without one
// shows no partitioned table.
func TestOverviewPartitionedFixed(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *dashboard.Config) { c.Queues[0].Fixed = true })
	br := b.browser(t)
	br.signIn()
	o := br.get("/")
	require.Equal(t, http.StatusOK, o.status, o.body)
	require.NotContains(t, o.body, "Partitioned streams")
	_, err := partition.Create(b.ctx, b.client, b.queue, "orders-p", 2)
	require.NoError(t, err)
	o = br.get("/")
	require.Equal(t, http.StatusOK, o.status, o.body)
	require.NotContains(t, o.body, "Partitioned streams")
	require.Equal(t, http.StatusOK, br.get("/q/"+b.queue+"/partitioned/orders-p").status, "the page itself is there")
}
