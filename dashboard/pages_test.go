package dashboard_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/retention"
)

// archived appends n events to orders and archives all but the newest
// keep, returning the ids and W.
func (b *bundle) archived(t *testing.T, n, keep int) ([]echomq.ID, echomq.ID) {
	t.Helper()
	ids := b.appendN(t, "orders", n)
	a, err := archive.New(b.client, b.store, nil)
	require.NoError(t, err)
	res, err := a.Cycle(b.ctx, archive.Policy{Queue: b.queue, Stream: "orders", Keep: retention.MaxLen(int64(keep))})
	require.NoError(t, err)
	require.Equal(t, int64(n-keep), res.Folded)
	return ids, res.Watermark
}

var rowRE = regexp.MustCompile(`<tr class="(archived|livetail)">\s*<td><code>([^<]+)</code>`)

// rows returns the entry ids of a stream page's events and whether each
// came from the archive.
func rows(body string) (entries []string, archived []bool) {
	for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
		entries = append(entries, m[2])
		archived = append(archived, m[1] == "archived")
	}
	return entries, archived
}

// TestStreamBrowserAcrossSeam: the browser pages through archive and live
// tail as one log, marks the seam once, and pages back.
func TestStreamBrowserAcrossSeam(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ids, w := b.archived(t, 7, 3)
	require.Equal(t, ids[3], w)
	br := b.browser(t)
	br.signIn()
	base := "/q/" + b.queue + "/streams/orders"

	p := br.get(base + "?n=5")
	require.Equal(t, http.StatusOK, p.status, p.body)
	got, arch := rows(p.body)
	require.Equal(t, entries(ids[:5]), got)
	require.Equal(t, []bool{true, true, true, true, false}, arch)
	require.Equal(t, 1, strings.Count(p.body, `id="seam"`))
	require.Contains(t, p.body, "Archive seam")
	require.Contains(t, p.body, w.String(), "the watermark is shown")
	next := regexp.MustCompile(`href="(\?[^"]+)" id="next"`).FindStringSubmatch(p.body)
	require.NotNil(t, next, "a next page")

	p = br.get(base + next[1])
	got, arch = rows(p.body)
	require.Equal(t, entries(ids[5:]), got)
	require.Equal(t, []bool{false, false}, arch)
	require.NotContains(t, p.body, `id="next"`, "the last page")
	require.Contains(t, p.body, `id="prev"`)

	// Paging back from the first live entry returns the archived ones.
	p = br.get(base + "?n=3&before=" + ids[4].EntryID().String())
	got, _ = rows(p.body)
	require.Equal(t, entries(ids[1:4]), got)
	require.Contains(t, p.body, `id="prev"`)
	require.Contains(t, p.body, `id="next"`)

	// A time window across the seam: the mint instants of ids 2..5.
	p = br.get(base + "?" + url.Values{
		"from": {ids[2].Time().Format("2006-01-02T15:04:05.000Z07:00")},
		"to":   {ids[5].EntryID().String()},
	}.Encode())
	got, _ = rows(p.body)
	require.Subset(t, got, entries(ids[2:6]))
	for _, e := range got {
		pe, err := echomq.ParseEntryID(e)
		require.NoError(t, err)
		require.LessOrEqual(t, pe.Compare(ids[5].EntryID()), 0)
		require.False(t, pe.Time().Before(ids[2].Time().Truncate(1e6)))
	}
}

func entries(ids []echomq.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.EntryID().String()
	}
	return out
}

// TestReadBadInput: a page with bad parameters says which and why (400).
func TestReadBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.appendN(t, "orders", 2)
	br := b.browser(t)
	br.signIn()
	base := "/q/" + b.queue + "/streams/orders"
	for _, tc := range []struct {
		query, says string
	}{
		{"from=yesterday", `from "yesterday": want a time`},
		{"to=-1x", `to "-1x": want a duration before now`},
		{"from=now%2Bx", `want "now" or "now-<duration>"`},
		{"from=1969-01-01", "before 1970"},
		{"n=0", `n "0": want a whole number from 1 to 1000`},
		{"n=1001", "want a whole number"},
		{"after=zz", `after "zz": want an entry id`},
		{"after=1-0&before=2-0", "exclude each other"},
		{"from=now&to=-1h", "the window ends before it starts"},
	} {
		p := br.get(base + "?" + tc.query)
		require.Equal(t, http.StatusBadRequest, p.status, tc.query)
		require.Contains(t, p.body, tc.says, tc.query)
	}
	for path, says := range map[string]string{
		base + "/dead?n=x":                     `n "x"`,
		base + "/dead?before=x":                `before "x"`,
		base + "/dead/EVTxx":                   "want an EVT id",
		"/q/" + b.queue + "/streams/nosuch":    "not on this dashboard",
		"/q/nosuch/lanes":                      "not on this dashboard",
		"/nosuch":                              "no such page",
		"/archive/" + b.queue + "/nope/verify": "not on this dashboard",
	} {
		p := br.get(path)
		require.Contains(t, []int{400, 404}, p.status, path)
		require.Contains(t, p.body, says, path)
	}
}

// TestGroupsLagAfterDeletion: once an entry above a group's position is
// deleted the engine no longer knows the group's lag; the page shows the
// count EchoMQ makes, with the oldest pending entries and the consumers.
func TestGroupsLagAfterDeletion(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ids := b.appendN(t, "orders", 6)
	s := b.stream("orders")
	_, err := s.Group("scoring").Create(b.ctx, echomq.StartHead)
	require.NoError(t, err)
	_, err = rawcmd.Do(b.ctx, b.client, "XREADGROUP", "GROUP", "scoring", "c1", "COUNT", "2", "STREAMS", s.Key(), ">")
	require.NoError(t, err)
	_, err = rawcmd.Do(b.ctx, b.client, "XDEL", s.Key(), ids[4].EntryID().String())
	require.NoError(t, err)
	gi, err := s.Group("scoring").Info(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(-1), gi.Lag, "the engine lost the lag")

	br := b.browser(t)
	br.signIn()
	p := br.get("/q/" + b.queue + "/streams/orders/groups")
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Regexp(t, `<dd class="lag">3 <span class="muted">\(counted by EchoMQ`, p.body, "entries 3, 4 and 6 are left")
	require.Regexp(t, `<dd class="pending">2</dd>`, p.body)
	require.Contains(t, p.body, "<th scope=\"row\">c1</th>")
	require.Contains(t, p.body, ids[0].EntryID().String(), "the oldest pending entry")
}

// TestArchivePage: segments, watermark, lag behind the policy, and verify.
func TestArchivePage(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	_, w := b.archived(t, 7, 3)
	b.appendN(t, "orders", 2) // 5 live now, the policy keeps 3: a lag of 2
	br := b.browser(t)
	br.signIn()
	p := br.get("/archive")
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Contains(t, p.body, w.String())
	require.Contains(t, p.body, "keeps maxlen 3")
	require.Regexp(t, `<dd class="lag">2 live entries past the policy`, p.body)
	require.Contains(t, p.body, "Newest segments of orders")
	p = br.get("/archive/" + b.queue + "/orders/verify")
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Regexp(t, `id="verdict" class="ok"`, p.body)
	require.Contains(t, p.body, "1 segments, 4 entries")

	nostore := setup(t, func(c *dashboard.Config) { c.Archive, c.ArchivePolicies = nil, nil })
	nb := nostore.browser(t)
	nb.signIn()
	require.Contains(t, nb.get("/archive").body, "No archive store is configured")
	require.Equal(t, http.StatusNotFound, nb.get("/archive/"+nostore.queue+"/orders/verify").status)
}

// TestProjectionsPage: a saved live projection shows its checkpoint and
// how many events it is behind.
func TestProjectionsPage(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.appendN(t, "orders", 4)
	l, err := projection.NewLive(projection.Count(), &projection.LiveConfig{Store: projection.EngineStore(b.client, b.queue, "counts")}, b.stream("orders"))
	require.NoError(t, err)
	_, err = l.CatchUp(b.ctx)
	require.NoError(t, err)
	require.NoError(t, l.Save(b.ctx))
	b.appendN(t, "orders", 3)

	br := b.browser(t)
	br.signIn()
	p := br.get("/projections")
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Contains(t, p.body, "<dt>Events folded</dt><dd>4</dd>")
	require.Regexp(t, `<td class="num lag">3</td>`, p.body)
	require.Contains(t, p.body, `<th scope="row">orders</th>`, "the stream by name")
}

// TestDeadLetterPage: one dead letter with its payload, and the list.
func TestDeadLetterPage(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	dl := b.deadLetters(t, "orders", 1)[0]
	br := b.browser(t)
	csrf := br.signIn()
	p := br.get("/q/" + b.queue + "/streams/orders/dead/" + dl.ID.String())
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Contains(t, p.body, "card declined")
	require.Contains(t, p.body, `<tr><th scope="row">n</th><td><pre>a</pre></td></tr>`)
	require.Contains(t, p.body, dl.Origin.String())
	require.Contains(t, p.body, `value="`+csrf+`"`)
	p = br.get("/q/" + b.queue + "/streams/orders/dead")
	require.Contains(t, p.body, `aria-label="Replay dead letter `+dl.ID.String()+`"`)
	require.Contains(t, p.body, "billing")
	gone := br.get("/q/" + b.queue + "/streams/orders/dead/" + dl.Origin.String())
	require.Equal(t, http.StatusNotFound, gone.status)
}

// TestOverview: every configured stream with its numbers and chart.
func TestOverview(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.appendN(t, "orders", 5)
	br := b.browser(t)
	br.signIn()
	p := br.get("/")
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Regexp(t, `data-live="`+b.queue+`/orders" data-field="length">5<`, p.body)
	require.Regexp(t, `data-live="`+b.queue+`/orders" data-field="rate">5<`, p.body, "five in the last minute")
	require.Contains(t, p.body, `aria-label="Events per minute over the last 15 minutes, oldest first: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5"`)
	require.Contains(t, p.body, "Lanes of "+b.queue)
	require.Regexp(t, `Engine: (redis|valkey) \d+\.\d+[^<]* · maxmemory-policy noeviction · memory `, p.body)
	require.Contains(t, p.header.Get("Content-Security-Policy"), "default-src 'none'")
	for _, sheet := range []string{"/static/base.css", "/static/style.css"} {
		css := br.get(sheet)
		require.Equal(t, http.StatusOK, css.status, sheet)
		require.Contains(t, css.header.Get("Content-Type"), "text/css", sheet)
	}
}

// brokenStore is an archive store that is down.
type brokenStore struct{}

var errStoreDown = errors.New("store down")

func (brokenStore) Put(context.Context, string, []byte, *archive.PutOpts) error { return errStoreDown }

func (brokenStore) Get(context.Context, string) ([]byte, error) { return nil, errStoreDown }

func (brokenStore) List(context.Context, string) ([]archive.Object, error) { return nil, errStoreDown }

// TestArchiveStoreDown: with the archive store down the pages say so and
// still show the live streams; nothing fails as a whole.
func TestArchiveStoreDown(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *dashboard.Config) { c.Archive = brokenStore{} })
	b.appendN(t, "orders", 2)
	br := b.browser(t)
	br.signIn()
	p := br.get("/")
	require.Equal(t, http.StatusOK, p.status)
	require.Contains(t, p.body, "archive store: ")
	require.Contains(t, p.body, "store down")
	require.Regexp(t, `data-field="length">2<`, p.body)
	p = br.get("/q/" + b.queue + "/streams/orders")
	require.Equal(t, http.StatusOK, p.status)
	require.Contains(t, p.body, `class="error" role="alert">`, "the merged read failed, and says so")
	require.Equal(t, http.StatusOK, br.get("/archive").status)
	require.Equal(t, http.StatusBadGateway, br.get("/q/"+b.queue+"/streams/other").status, "an unlisted stream needs the store")
}
