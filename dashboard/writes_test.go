package dashboard_test

import (
	"maps"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dashboard"
)

// writeState is what every write could change: checked before and after
// a refused one.
type writeState struct {
	dead, deadJobs, orders int64
	paused                 bool
	lanePaused             bool
}

func (b *bundle) state(t *testing.T) writeState {
	t.Helper()
	n, err := b.stream("orders").DeadLetters().Len(b.ctx)
	require.NoError(t, err)
	st, err := b.lanes.Stats(b.ctx)
	require.NoError(t, err)
	info, err := b.stream("orders").Info(b.ctx)
	require.NoError(t, err)
	li, err := b.lanes.Lane(b.ctx, "PLR-ada")
	require.NoError(t, err)
	return writeState{dead: n, deadJobs: st.Dead, orders: info.Length, paused: st.Paused, lanePaused: li.Paused}
}

// writes are every write of the dashboard with a valid form (less the
// CSRF token) for the bundle's data.
func writes(b *bundle, dl echomq.DeadLetter, job echomq.ID) []struct {
	name, path string
	form       url.Values
} {
	q := "/q/" + b.queue
	return []struct {
		name, path string
		form       url.Values
	}{
		{"replay", q + "/streams/orders/dead/replay", url.Values{"id": {dl.ID.String()}}},
		{"replay all", q + "/streams/orders/dead/replay", url.Values{"all": {"yes"}}},
		{"purge", q + "/streams/orders/dead/purge", url.Values{"id": {dl.ID.String()}}},
		{"purge all", q + "/streams/orders/dead/purge", url.Values{"all": {"yes"}}},
		{"retry", q + "/lanes/retry", url.Values{"id": {job.String()}}},
		{"pause queue", q + "/lanes/pause", url.Values{}},
		{"pause lane", q + "/lanes/pause", url.Values{"lane": {"PLR-ada"}}},
		{"resume queue", q + "/lanes/resume", url.Values{}},
	}
}

// TestWritesRefused: every write is refused, and writes nothing, without
// a session, without or with a wrong CSRF token, cross-origin, in
// read-only mode and without a token configured.
func TestWritesRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		edit   func(*dashboard.Config)
		signIn bool
		csrf   func(good string) string
		header []string
		status int
		says   string
	}{
		{name: "no session", status: http.StatusUnauthorized, says: "sign in"},
		{name: "no csrf token", signIn: true, csrf: func(string) string { return "" }, status: http.StatusForbidden, says: "CSRF"},
		{name: "wrong csrf token", signIn: true, csrf: func(g string) string { return g[:len(g)-2] + "xx" }, status: http.StatusForbidden, says: "CSRF"},
		{name: "cross origin", signIn: true, header: []string{"Sec-Fetch-Site", "cross-site"}, status: http.StatusForbidden, says: "cross-origin"},
		{name: "read only", edit: func(c *dashboard.Config) { c.ReadOnly = true }, signIn: true, status: http.StatusForbidden, says: "read-only"},
		{name: "no token", edit: func(c *dashboard.Config) { c.Token = "" }, status: http.StatusForbidden, says: "no token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tc.edit)
			dl := b.deadLetters(t, "orders", 1)[0]
			job := b.deadJob(t, "PLR-ada")
			before := b.state(t)
			br := b.browser(t)
			good := ""
			if tc.signIn {
				good = br.signIn()
			}
			for _, w := range writes(b, dl, job) {
				form := url.Values{}
				maps.Copy(form, w.form)
				switch {
				case tc.csrf != nil:
					form.Set("csrf", tc.csrf(good))
				case good != "":
					form.Set("csrf", good)
				}
				p := br.post(w.path, form, tc.header...)
				require.Equal(t, tc.status, p.status, "%s: %s", w.name, p.body)
				require.Contains(t, p.body, tc.says, w.name)
				require.Equal(t, before, b.state(t), "%s wrote something", w.name)
			}
		})
	}
}

// TestWritesBadInput: a write with bad input is refused with 400 (or 404
// for what is not on the dashboard) and a message naming the field, and
// writes nothing.
func TestWritesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dl := b.deadLetters(t, "orders", 1)[0]
	job := b.deadJob(t, "PLR-ada")
	br := b.browser(t)
	csrf := br.signIn()
	before := b.state(t)
	q := "/q/" + b.queue
	for _, tc := range []struct {
		name, path string
		form       url.Values
		status     int
		says       string
	}{
		{"replay without id", q + "/streams/orders/dead/replay", url.Values{}, 400, "id: missing"},
		{"replay malformed id", q + "/streams/orders/dead/replay", url.Values{"id": {"EVT!"}}, 400, "want an EVT id"},
		{"replay a job id", q + "/streams/orders/dead/replay", url.Values{"id": {job.String()}}, 400, "want an EVT id"},
		{"replay an unknown dead letter", q + "/streams/orders/dead/replay", url.Values{"id": {dl.Origin.String()}}, 404, "not found"},
		{"replay all=maybe", q + "/streams/orders/dead/replay", url.Values{"all": {"maybe"}}, 400, `want "yes", without id`},
		{"replay all and id", q + "/streams/orders/dead/replay", url.Values{"all": {"yes"}, "id": {dl.ID.String()}}, 400, `want "yes", without id`},
		{"purge nothing", q + "/streams/orders/dead/purge", url.Values{}, 400, "name at least one dead letter"},
		{"purge all=maybe", q + "/streams/orders/dead/purge", url.Values{"all": {"maybe"}}, 400, `want "yes"`},
		{"purge all and id", q + "/streams/orders/dead/purge", url.Values{"all": {"yes"}, "id": {dl.ID.String()}}, 400, "exclude each other"},
		{"purge a bad id among good", q + "/streams/orders/dead/purge", url.Values{"id": {dl.ID.String(), "nope"}}, 400, "want an EVT id"},
		{"retry without id", q + "/lanes/retry", url.Values{}, 400, "want a JOB id"},
		{"retry an EVT id", q + "/lanes/retry", url.Values{"id": {dl.ID.String()}}, 400, "want a JOB id"},
		{"retry a job that is not dead", q + "/lanes/retry", url.Values{"id": {echomq.MustID("JOB", job.Snowflake()+1).String()}}, 404, "not found"},
		{"pause an empty lane name", q + "/lanes/pause", url.Values{"lane": {""}}, 400, "lane"},
		{"pause two lanes", q + "/lanes/pause", url.Values{"lane": {"a", "b"}}, 400, "want one lane name"},
		{"pause a lane with a control byte", q + "/lanes/pause", url.Values{"lane": {"a\x01"}}, 400, "lane"},
		{"unknown queue", "/q/nosuchqueue/lanes/pause", url.Values{}, 404, "not on this dashboard"},
		{"unknown stream", q + "/streams/nosuch/dead/replay", url.Values{"id": {dl.ID.String()}}, 404, "not on this dashboard"},
	} {
		form := url.Values{"csrf": {csrf}}
		maps.Copy(form, tc.form)
		p := br.post(tc.path, form)
		require.Equal(t, tc.status, p.status, "%s: %s", tc.name, p.body)
		require.Contains(t, p.body, tc.says, tc.name)
		require.Equal(t, before, b.state(t), "%s wrote something", tc.name)
	}
}

// TestWrites: each write does what it says and redirects back with a
// message.
func TestWrites(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dls := b.deadLetters(t, "orders", 3)
	job := b.deadJob(t, "PLR-ada")
	br := b.browser(t)
	csrf := br.signIn()
	q := "/q/" + b.queue
	post := func(path string, form url.Values) page {
		t.Helper()
		form.Set("csrf", csrf)
		p := br.post(path, form)
		require.Equal(t, http.StatusSeeOther, p.status, "%s: %s", path, p.body)
		return p
	}

	p := post(q+"/streams/orders/dead/replay", url.Values{"id": {dls[0].ID.String()}})
	after := br.get(p.header.Get("Location"))
	require.Contains(t, after.body, "Replayed "+dls[0].ID.String()+" as EVT")
	_, err := b.stream("orders").DeadLetters().Get(b.ctx, dls[0].ID)
	require.ErrorIs(t, err, echomq.ErrDeadLetterNotFound)
	last, err := b.stream("orders").Read(b.ctx, echomq.All, &echomq.ReadOpts{Count: 1, Reverse: true})
	require.NoError(t, err)
	require.Equal(t, dls[0].Payload, last[0].Fields, "the payload is back on the stream")

	post(q+"/streams/orders/dead/purge", url.Values{"id": {dls[1].ID.String()}})
	n, err := b.stream("orders").DeadLetters().Len(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	lengthBefore, err := b.stream("orders").Info(b.ctx)
	require.NoError(t, err)
	p = post(q+"/streams/orders/dead/replay", url.Values{"all": {"yes"}})
	require.Contains(t, br.get(p.header.Get("Location")).body, "Replayed 1 dead letters, oldest first.")
	n, err = b.stream("orders").DeadLetters().Len(b.ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	lengthAfter, err := b.stream("orders").Info(b.ctx)
	require.NoError(t, err)
	require.Equal(t, lengthBefore.Length+1, lengthAfter.Length, "the payload is back on the stream")
	post(q+"/streams/orders/dead/purge", url.Values{"all": {"yes"}})
	n, err = b.stream("orders").DeadLetters().Len(b.ctx)
	require.NoError(t, err)
	require.Zero(t, n)

	post(q+"/lanes/retry", url.Values{"id": {job.String()}})
	info, err := b.lanes.Job(b.ctx, job)
	require.NoError(t, err)
	require.Equal(t, "waiting", string(info.State))

	post(q+"/lanes/pause", url.Values{"lane": {"PLR-ada"}})
	li, err := b.lanes.Lane(b.ctx, "PLR-ada")
	require.NoError(t, err)
	require.True(t, li.Paused)
	p = post(q+"/lanes/pause", url.Values{"lane": {"PLR-ada"}})
	require.Contains(t, br.get(p.header.Get("Location")).body, "lane PLR-ada was already in that state")
	post(q+"/lanes/resume", url.Values{"lane": {"PLR-ada"}})
	li, err = b.lanes.Lane(b.ctx, "PLR-ada")
	require.NoError(t, err)
	require.False(t, li.Paused)

	post(q+"/lanes/pause", url.Values{})
	st, err := b.lanes.Stats(b.ctx)
	require.NoError(t, err)
	require.True(t, st.Paused)
	require.Contains(t, br.get(q+"/lanes").body, "Resume queue "+b.queue)
	post(q+"/lanes/resume", url.Values{})
	st, err = b.lanes.Stats(b.ctx)
	require.NoError(t, err)
	require.False(t, st.Paused)
}
