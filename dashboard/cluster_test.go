package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// TestCluster: on a three-master cluster, with two queues (so on two
// slots, usually on two nodes), every page renders without an error and
// the writes work: the dashboard speaks to one queue at a time.
func TestCluster(t *testing.T) {
	t.Parallel()
	cl := echomqtest.StartCluster(t)
	var other string
	b := setupOn(t, cl.URL(), func(c *dashboard.Config) {
		other = c.Queues[0].Name + "-b"
		c.Queues = append(c.Queues, dashboard.Queue{Name: other, Streams: []string{"orders"}, Lanes: true})
	})
	_, w := b.archived(t, 6, 2)
	dl := b.deadLetters(t, "audit", 1)[0]
	job := b.deadJob(t, "PLR-ada")
	_, err := b.client.Stream(other, "orders").Append(b.ctx, []string{"n", "1"}, nil)
	require.NoError(t, err)
	lq, err := lanes.New(b.client, other, nil)
	require.NoError(t, err)
	_, err = lq.Enqueue(b.ctx, "PLR-bob", []byte("{}"), nil)
	require.NoError(t, err)

	br := b.browser(t)
	csrf := br.signIn()
	for _, path := range []string{
		"/", "/q/" + b.queue + "/streams/orders?n=3", "/q/" + b.queue + "/streams/orders/groups",
		"/q/" + b.queue + "/streams/audit/groups", "/q/" + b.queue + "/streams/audit/dead", "/q/" + b.queue + "/streams/audit/dead/" + dl.ID.String(),
		"/q/" + b.queue + "/lanes", "/q/" + other + "/lanes", "/q/" + other + "/streams/orders", "/archive",
		"/archive/" + b.queue + "/orders/verify", "/projections",
	} {
		p := br.get(path)
		require.Equal(t, http.StatusOK, p.status, "%s: %s", path, p.body)
		require.NotContains(t, p.body, `class="error"`, path)
	}
	for _, q := range []string{"n=5", "n=4", "n=2&after=" + w.EntryID().String()} {
		require.Contains(t, br.get("/q/"+b.queue+"/streams/orders?"+q).body, `id="seam"`, "the seam is marked at a page's edge too: %s", q)
	}
	require.NotContains(t, br.get("/q/"+b.queue+"/streams/orders?n=3").body, `id="seam"`)
	for _, w := range []struct {
		path string
		form url.Values
	}{
		{"/q/" + b.queue + "/streams/audit/dead/replay", url.Values{"id": {dl.ID.String()}}},
		{"/q/" + b.queue + "/lanes/retry", url.Values{"id": {job.String()}}},
		{"/q/" + other + "/lanes/pause", url.Values{"lane": {"PLR-bob"}}},
	} {
		w.form.Set("csrf", csrf)
		p := br.post(w.path, w.form)
		require.Equal(t, http.StatusSeeOther, p.status, "%s: %s", w.path, p.body)
		require.NotContains(t, br.get(p.header.Get("Location")).body, `class="error"`)
	}
	li, err := lq.Lane(b.ctx, "PLR-bob")
	require.NoError(t, err)
	require.True(t, li.Paused)
}
