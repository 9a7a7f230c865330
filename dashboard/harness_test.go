package dashboard_test

import (
	"context"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/retention"
)

// token is the token of the test dashboards.
const token = "a-token-long-enough-for-tests"

var quiet = slog.New(slog.DiscardHandler)

// bundle is one test's engine, queue, archive store and served dashboard.
type bundle struct {
	ctx    context.Context
	client *echomq.Client
	queue  string
	store  archive.Store
	lanes  *lanes.Queue
	h      *dashboard.Handler
	srv    *httptest.Server
}

// setup connects to the shared server and serves a dashboard of a fresh
// queue (streams "orders" and "audit", lanes on, projection "counts",
// archive in a temporary directory); edit changes the config first.
func setup(t *testing.T, edit func(*dashboard.Config)) *bundle {
	t.Helper()
	return setupOn(t, echomqtest.Shared(t).URL(), edit)
}

// setupOn is setup on the engine at url.
func setupOn(t *testing.T, engine string, edit func(*dashboard.Config)) *bundle {
	t.Helper()
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: engine, NodeID: new(7), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	store, err := fsstore.New(t.TempDir())
	require.NoError(t, err)
	b := &bundle{ctx: t.Context(), client: client, queue: echomqtest.Queue(t), store: store}
	b.lanes, err = lanes.New(client, b.queue, nil)
	require.NoError(t, err)
	cfg := dashboard.Config{
		Queues:  []dashboard.Queue{{Name: b.queue, Streams: []string{"orders", "audit"}, Projections: []string{"counts"}, Lanes: true}},
		Archive: store, ArchivePolicies: []archive.Policy{{Queue: b.queue, Stream: "orders", Keep: retention.MaxLen(3)}},
		Token: token, Logger: quiet, Refresh: 100 * time.Millisecond,
	}
	if edit != nil {
		edit(&cfg)
	}
	b.h, err = dashboard.New(client, &cfg)
	require.NoError(t, err)
	b.srv = httptest.NewServer(b.h)
	t.Cleanup(func() { _ = b.h.Close(); b.srv.Close() })
	return b
}

func (b *bundle) stream(name string) *echomq.Stream { return b.client.Stream(b.queue, name) }

// appendN appends n events to stream name and returns their ids.
func (b *bundle) appendN(t *testing.T, name string, n int) []echomq.ID {
	t.Helper()
	recs := make([]echomq.Fields, n)
	for i := range recs {
		recs[i] = echomq.F("n", strings.Repeat("x", i%3)+string(rune('a'+i%26)), "seq", strconv.Itoa(i))
	}
	ids, err := b.stream(name).AppendBatch(b.ctx, recs, nil)
	require.NoError(t, err)
	return ids
}

// deadLetters makes n dead letters on stream name: a consumer whose
// handler fails every delivery of the events it is given, with one
// delivery allowed, runs until they are all dead.
func (b *bundle) deadLetters(t *testing.T, name string, n int) []echomq.DeadLetter {
	t.Helper()
	b.appendN(t, name, n)
	c, err := b.client.Consumer(&echomq.ConsumerConfig{
		Queue: b.queue, Stream: name, Group: "billing", Name: "c1",
		Start: echomq.StartHead, MaxDeliveries: 1, MinIdle: 50 * time.Millisecond, Beat: 20 * time.Millisecond, Logger: quiet,
		Handle: func(context.Context, echomq.Delivery) error { return errors.New("card declined") },
	})
	require.NoError(t, err)
	require.NoError(t, c.Start(b.ctx))
	dead := b.stream(name).DeadLetters()
	require.Eventually(t, func() bool { got, err := dead.Len(b.ctx); return err == nil && got == int64(n) },
		30*time.Second, 20*time.Millisecond, "dead-lettered")
	require.NoError(t, c.Stop(b.ctx))
	dls, err := dead.List(b.ctx, echomq.All, nil)
	require.NoError(t, err)
	return dls
}

// deadJob enqueues a job on lane and kills it.
func (b *bundle) deadJob(t *testing.T, lane string) echomq.ID {
	t.Helper()
	id, err := b.lanes.Enqueue(b.ctx, lane, []byte(`{"player":"`+lane+`"}`), nil)
	require.NoError(t, err)
	jobs, err := b.lanes.Claim(b.ctx, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.NoError(t, b.lanes.Kill(b.ctx, jobs[0], errors.New("scoring failed")))
	return id
}

// browser is an HTTP client with its own cookies that does not follow
// redirects, so tests see them.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (b *bundle) browser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, base: b.srv.URL, c: &http.Client{
		Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is a response, read whole; the body's HTML entities are unescaped
// so tests compare text.
type page struct {
	status int
	body   string
	header http.Header
}

func (br *browser) do(req *http.Request) page {
	br.t.Helper()
	resp, err := br.c.Do(req)
	require.NoError(br.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(br.t, err)
	return page{status: resp.StatusCode, body: html.UnescapeString(string(body)), header: resp.Header}
}

func (br *browser) get(path string) page {
	br.t.Helper()
	req, err := http.NewRequest(http.MethodGet, br.base+path, nil)
	require.NoError(br.t, err)
	return br.do(req)
}

// post sends a form; extra headers are pairs.
func (br *browser) post(path string, form url.Values, headers ...string) page {
	br.t.Helper()
	req, err := http.NewRequest(http.MethodPost, br.base+path, strings.NewReader(form.Encode()))
	require.NoError(br.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return br.do(req)
}

// signIn signs the browser in and returns the session's CSRF token.
func (br *browser) signIn() string {
	br.t.Helper()
	p := br.post("/login", url.Values{"token": {token}, "next": {"/"}})
	require.Equal(br.t, http.StatusSeeOther, p.status, p.body)
	return br.csrf("/")
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the CSRF token of the page at path.
func (br *browser) csrf(path string) string {
	br.t.Helper()
	p := br.get(path)
	require.Equal(br.t, http.StatusOK, p.status, p.body)
	m := csrfRE.FindStringSubmatch(p.body)
	require.NotNil(br.t, m, "no CSRF token on %s", path)
	return m[1]
}
