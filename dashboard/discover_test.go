package dashboard_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/echomqtest"
)

// Without Queue.Streams the overview finds the queue's streams, their
// groups and its lanes itself; Fixed turns that off.
func TestOverviewDiscovers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fixed bool
	}{{"discovered", false}, {"fixed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(c *dashboard.Config) {
				c.Queues = []dashboard.Queue{{Name: c.Queues[0].Name, Fixed: tc.fixed}}
				c.Archive, c.ArchivePolicies = nil, nil
			})
			b.appendN(t, "payments", 3)
			b.appendN(t, "refunds", 2)
			_, err := b.client.Group(b.queue, "payments", "billing").Create(b.ctx, echomq.StartHead)
			require.NoError(t, err)
			_, err = b.lanes.Enqueue(b.ctx, "PLR-ada", []byte("{}"), nil)
			require.NoError(t, err)
			br := b.browser(t)
			br.signIn()
			p := br.get("/")
			require.Equal(t, http.StatusOK, p.status, p.body)
			if tc.fixed {
				require.NotContains(t, p.body, "payments")
				require.NotContains(t, p.body, "Lanes of "+b.queue)
				require.Contains(t, p.body, `id="nostreams"`)
				require.Equal(t, http.StatusNotFound, br.get("/q/"+b.queue+"/streams/payments").status)
				return
			}
			require.Regexp(t, `data-live="`+b.queue+`/payments" data-field="length">3<`, p.body)
			require.Regexp(t, `data-live="`+b.queue+`/refunds" data-field="length">2<`, p.body)
			require.Contains(t, p.body, `aria-label="Consumer groups of payments">1<`)
			require.Contains(t, p.body, "Lanes of "+b.queue)
			require.Contains(t, p.body, "<dt>Events</dt><dd>5</dd>")
			require.Equal(t, http.StatusOK, br.get("/q/"+b.queue+"/streams/refunds").status)
			require.Equal(t, http.StatusOK, br.get("/q/"+b.queue+"/streams/payments/groups").status)
		})
	}
}

// During an engine outage every page answers fast with one notice that the
// engine is unreachable (503, and the page reloads itself), never rows of
// zeros beside errors; when the engine is back the pages are whole again.
func TestPagesDuringOutage(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	b := setupOn(t, srv.URL(), nil)
	b.appendN(t, "orders", 2)
	br := b.browser(t)
	br.signIn()
	require.Equal(t, http.StatusOK, br.get("/").status)
	require.NoError(t, srv.Kill())
	for _, path := range []string{
		"/", "/q/" + b.queue + "/streams/orders", "/q/" + b.queue + "/streams/orders/groups",
		"/q/" + b.queue + "/streams/orders/dead", "/q/" + b.queue + "/lanes", "/projections",
	} {
		start := time.Now()
		p := br.get(path)
		took := time.Since(start)
		require.Equal(t, http.StatusServiceUnavailable, p.status, path)
		require.Contains(t, p.body, `id="engine-down"`, path)
		require.Contains(t, p.body, `data-retry="5"`, path)
		require.NotContains(t, p.body, `data-field="length"`, path)
		t.Logf("%s during the outage: %d in %v", path, p.status, took.Round(time.Millisecond))
		require.Less(t, took, 5*time.Second, "%s took %v", path, took) // the probe's bound is 2s
	}
	srv.Restart(t)
	require.Eventually(t, func() bool { return br.get("/").status == http.StatusOK }, 30*time.Second, 200*time.Millisecond)
	require.Regexp(t, `data-live="`+b.queue+`/orders" data-field="length">2<`, br.get("/").body)

	// A hung engine (it keeps its connections and answers nothing): the
	// page waits out the probe's bound once, not a call timeout per read.
	require.NoError(t, srv.Pause())
	start := time.Now()
	p := br.get("/")
	took := time.Since(start)
	require.NoError(t, srv.Resume())
	t.Logf("/ with the engine hung: %d in %v", p.status, took.Round(time.Millisecond))
	require.Equal(t, http.StatusServiceUnavailable, p.status)
	require.Contains(t, p.body, `id="engine-down"`)
	require.Less(t, took, 8*time.Second)
	require.Eventually(t, func() bool { return br.get("/").status == http.StatusOK }, 30*time.Second, 200*time.Millisecond)
}

// The stream browser's form shows the window the page was asked for.
func TestStreamFormEchoesTheWindow(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.appendN(t, "orders", 2)
	br := b.browser(t)
	br.signIn()
	p := br.get("/q/" + b.queue + "/streams/orders?from=-1h&to=now&n=5")
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Contains(t, p.body, `id="from" name="from" value="-1h"`)
	require.Contains(t, p.body, `id="to" name="to" value="now"`)
	require.Contains(t, p.body, `id="n" name="n" value="5"`)
}
