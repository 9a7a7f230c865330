package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

const uiToken = "a-ui-token-for-the-tests"

// startUI runs emq ui with args until the test ends and returns its base
// URL (the dashboard's address, with the prefix) and output.
func startUI(t *testing.T, b *bundle, args ...string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		_, code := b.runCtx(ctx, out, append([]string{"ui", "--addr", "127.0.0.1:0"}, args...)...)
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		require.Equal(t, ExitOK, echomqtest.Recv(t, done, 30*time.Second, "ui to exit when interrupted"), "ui exits 0 when interrupted")
	})
	re := regexp.MustCompile(`dashboard  (http://\S+)/  `)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "writes") }, 20*time.Second, 10*time.Millisecond, "ui started")
	m := re.FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	return m[1], out
}

func noFollow(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{
		Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func fetch(t *testing.T, c *http.Client, method, u string, form url.Values) (int, string) {
	t.Helper()
	var resp *http.Response
	var err error
	if method == http.MethodPost {
		resp, err = c.PostForm(u, form)
	} else {
		resp, err = c.Get(u)
	}
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// TestUIServes: emq ui serves the dashboard of --queue with sign-in and
// writes, and /metrics; it says where and that writes are on.
func TestUIServes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.must("append", "orders", "customer=ada")
	b.env = map[string]string{"EMQ_UI_TOKEN": uiToken}
	base, out := startUI(t, b, "--stream", "orders", "--lanes")
	require.Contains(t, out.String(), "(queue "+b.queue+")\n")
	require.Contains(t, out.String(), "metrics    "+base+"/metrics\n")
	require.Contains(t, out.String(), "writes     on (sign in with the token)\n")

	c := noFollow(t)
	code, body := fetch(t, c, http.MethodGet, base+"/metrics", nil)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "go_goroutines")
	require.Contains(t, body, `echomq_stream_length{queue="`+b.queue+`",stream="orders"} 1`+"\n")
	require.Contains(t, body, `echomq_lanes_jobs{queue="`+b.queue+`",state="waiting"} 0`+"\n")
	code, _ = fetch(t, c, http.MethodGet, base+"/", nil)
	require.Equal(t, http.StatusSeeOther, code, "sign in first")
	code, _ = fetch(t, c, http.MethodPost, base+"/login", url.Values{"token": {uiToken}})
	require.Equal(t, http.StatusSeeOther, code)
	code, body = fetch(t, c, http.MethodGet, base+"/", nil)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `/streams/orders">orders</a>`)
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	require.NotNil(t, csrf)

	code, _ = fetch(t, c, http.MethodPost, base+"/q/"+b.queue+"/lanes/pause", url.Values{})
	require.Equal(t, http.StatusForbidden, code, "no CSRF token")
	require.Contains(t, b.must("lanes", "stats"), "paused      false")
	code, _ = fetch(t, c, http.MethodPost, base+"/q/"+b.queue+"/lanes/pause", url.Values{"csrf": {csrf[1]}})
	require.Equal(t, http.StatusSeeOther, code)
	require.Contains(t, b.must("--json", "lanes", "stats"), `"paused":true`)
}

// TestUIWritesOff: without a token, and with --read-only, ui says writes
// are off and refuses them; --prefix mounts the dashboard under a path.
func TestUIWritesOff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	base, out := startUI(t, b, "--stream", "orders", "--lanes", "--prefix", "/ops")
	require.True(t, strings.HasSuffix(base, "/ops"), base)
	require.Contains(t, out.String(), "writes     off (no token: set $EMQ_UI_TOKEN or --token)\n")
	c := noFollow(t)
	code, body := fetch(t, c, http.MethodGet, base+"/", nil)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `href="/ops/q/`+b.queue+`/streams/orders"`)
	code, _ = fetch(t, c, http.MethodPost, base+"/q/"+b.queue+"/lanes/pause", url.Values{})
	require.Equal(t, http.StatusForbidden, code)

	ro := setup(t)
	ro.env = map[string]string{"EMQ_UI_TOKEN": uiToken}
	_, out = startUI(t, ro, "--read-only", "--stream", "orders")
	require.Contains(t, out.String(), "writes     off (--read-only)\n")
}

func TestUIBadArguments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	requireUsage(t, b, []usageCase{
		{"short token", []string{"ui", "--token", "short"}},
		{"bad addr", []string{"ui", "--addr", "nowhere"}},
		{"bad prefix", []string{"ui", "--prefix", "ops"}},
		{"prefix with slash", []string{"ui", "--prefix", "/ops/"}},
		{"prefix metrics", []string{"ui", "--prefix", "/metrics"}},
		{"bad stream", []string{"ui", "--stream", "a:b"}},
		{"bad projection", []string{"ui", "--projection", "{p}"}},
		{"policy without store", []string{"ui", "--policy", "orders maxlen 1"}},
		{"bad policy", []string{"ui", "--store", dir, "--policy", "orders maxlen x"}},
		{"store and s3", []string{"ui", "--store", dir, "--s3", "http://127.0.0.1:1/b"}},
		{"an argument", []string{"ui", "extra"}},
		{"fixed with nothing named", []string{"ui", "--fixed"}},
	})
}

// TestUIDiscovers: without --stream the dashboard and /metrics show the
// queue's streams and its lanes, found in the engine; the default address
// is not codemojex's.
func TestUIDiscovers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.must("append", "orders", "customer=ada")
	b.must("lanes", "enqueue", "PLR-ada", `{}`)
	base, _ := startUI(t, b)
	c := noFollow(t)
	code, body := fetch(t, c, http.MethodGet, base+"/", nil)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `/streams/orders">orders</a>`)
	require.Contains(t, body, "Lanes of "+b.queue)
	b.must("append", "refunds", "n=1")
	_, body = fetch(t, c, http.MethodGet, base+"/metrics", nil)
	require.Contains(t, body, `echomq_stream_length{queue="`+b.queue+`",stream="orders"} 1`+"\n")
	require.Contains(t, body, `echomq_stream_length{queue="`+b.queue+`",stream="refunds"} 1`+"\n", "found at the scrape")
	require.Contains(t, body, `echomq_lanes_jobs{queue="`+b.queue+`",state="waiting"} 1`+"\n")
	help := b.must("ui", "--help")
	require.Regexp(t, `--addr string +address to listen on \(host:port; :0 picks a free port\) \(default "127\.0\.0\.1:7070"\)`, help)
}

// TestUIAddressTaken: an address in use is a runtime error that names
// --addr.
func TestUIAddressTaken(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	b := setup(t)
	_, stderr, code := b.run("ui", "--addr", ln.Addr().String())
	require.Equal(t, ExitError, code, stderr)
	require.Contains(t, stderr, "cannot listen on "+ln.Addr().String()+" (give another address with --addr)")
	require.Contains(t, stderr, "address already in use")
}
