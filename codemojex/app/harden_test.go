package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// served is a codemojex server a test started.
type served struct {
	url   string
	queue string
	stop  context.CancelFunc
	done  chan error
	out   *bytes.Buffer
}

// startServe runs Serve on the shared engine with cfg (Addr, URL, Queue,
// Demo, DevSignIn filled in) and stops it when the test ends.
func startServe(t *testing.T, cfg ServeConfig) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{queue: echomqtest.Queue(t), stop: cancel, done: make(chan error, 1), out: &bytes.Buffer{}}
	cfg.Addr, cfg.URL, cfg.Queue, cfg.Demo, cfg.DevSignIn = "127.0.0.1:0", echomqtest.Shared(t).URL(), s.queue, true, true
	cfg.Logger, cfg.Out = quiet, s.out
	cfg.Workers = cmpOr(cfg.Workers, 2)
	cfg.StarterKeys, cfg.StarterClips = 1000, 1000
	ready := make(chan string, 1)
	cfg.Ready = func(u string) { ready <- u }
	go func() { s.done <- Serve(ctx, &cfg) }()
	s.url = serving(t, ready, s.done)
	t.Cleanup(func() {
		cancel()
		echomqtest.Recv(t, s.done, 30*time.Second, "the server to stop")
	})
	return s
}

// serveStart bounds a server's start: under -race on a loaded machine it
// can take long.
const serveStart = time.Minute

// serving waits for Serve to report its URL through ready and returns it;
// the test fails if Serve returns first (its error on exited) or is not
// ready within serveStart.
func serving(t *testing.T, ready <-chan string, exited <-chan error) string {
	t.Helper()
	select {
	case u := <-ready:
		return u
	case err := <-exited:
		t.Fatalf("serve returned before it was ready: %v", err)
	case <-time.After(serveStart):
		t.Fatalf("serve was not ready within %s", serveStart)
	}
	return ""
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// call sends a request and returns the status, headers and body.
func (s *served) call(t *testing.T, method, path, token string, body any) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, b
}

// player signs in, joins the first demo room and returns its token, game
// and keyboard.
func (s *served) player(t *testing.T, name string) (token, game string, keyboard []string) {
	t.Helper()
	code, _, b := s.call(t, "POST", "/api/auth/dev", "", map[string]string{"name": name})
	require.Equal(t, http.StatusOK, code, string(b))
	var in struct{ Token string }
	require.NoError(t, json.Unmarshal(b, &in))
	code, _, b = s.call(t, "GET", "/api/rooms", "", nil)
	require.Equal(t, http.StatusOK, code)
	var rooms struct {
		Rooms []struct {
			ID string `json:"room"`
		} `json:"rooms"`
	}
	require.NoError(t, json.Unmarshal(b, &rooms), string(b))
	require.NotEmpty(t, rooms.Rooms, string(b))
	code, _, b = s.call(t, "POST", "/api/rooms/"+rooms.Rooms[0].ID+"/join", in.Token, nil)
	require.Equal(t, http.StatusOK, code, string(b))
	var j struct {
		Game string `json:"game"`
		View struct {
			Keyboard []string `json:"keyboard"`
		} `json:"view"`
	}
	require.NoError(t, json.Unmarshal(b, &j))
	return in.Token, j.Game, j.View.Keyboard
}

// TestSecurityHeaders: every surface answers with a CSP, nosniff and a
// Referrer-Policy; the web app may be framed by Telegram only, the
// operator pages by nobody.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := startServe(t, ServeConfig{})
	for _, path := range []string{"/", "/web/results", "/web/static/common.js", "/favicon.ico", "/web/nowhere", "/api/health", "/api/rooms", "/api/nope", "/op/signin"} {
		_, h, _ := s.call(t, "GET", path, "", nil)
		require.NotEmpty(t, h.Get("Content-Security-Policy"), path)
		require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), path)
		require.NotEmpty(t, h.Get("Referrer-Policy"), path)
		csp := h.Get("Content-Security-Policy")
		if strings.HasPrefix(path, "/op/") {
			require.Contains(t, csp, "frame-ancestors 'none'", path)
		} else {
			require.Contains(t, csp, "frame-ancestors 'self' https://web.telegram.org", path)
			require.NotContains(t, csp, "unsafe-inline", path)
		}
	}
}

// TestTimeouts: a body trickled in is cut off by the read timeout, and an
// idle keep-alive connection is closed by the idle timeout.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	s := startServe(t, ServeConfig{ReadTimeout: time.Second, IdleTimeout: time.Second})
	addr := strings.TrimPrefix(s.url, "http://")

	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/auth/dev HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	go func() { // keep trickling: one byte every 300ms
		for range 60 {
			time.Sleep(300 * time.Millisecond) // sleep: the slow client's pace
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	_, err = io.ReadAll(conn) // the server answers (or not) and closes
	var ne net.Error
	require.False(t, err != nil && errorAs(err, &ne) && ne.Timeout(), "the slow body was not cut off: %v", err)
	t.Logf("slow body cut off after %v", time.Since(start).Round(time.Millisecond))

	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	_, err = fmt.Fprintf(idle, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.NoError(t, idle.SetReadDeadline(time.Now().Add(20*time.Second)))
	_, err = br.ReadByte()
	require.ErrorIs(t, err, io.EOF, "the idle keep-alive connection was closed by the server")
}

func errorAs(err error, target *net.Error) bool {
	var ne net.Error
	ok := errors.As(err, &ne)
	if ok {
		*target = ne
	}
	return ok
}

// sse opens the live feed and returns the response (nil body on refusal).
func sse(t *testing.T, url string, local string) *http.Response {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Get(url + "/web/events")
	require.NoError(t, err)
	return resp
}

// TestStreamCaps: the live feed holds at most MaxStreamsPerClient streams
// per address (429 past it) and MaxStreams in all (503), each with
// Retry-After; 5,000 attempts are refused past the caps.
func TestStreamCaps(t *testing.T) {
	t.Parallel()
	s := startServe(t, ServeConfig{MaxStreams: 6, MaxStreamsPerClient: 3})
	var open []*http.Response
	defer func() {
		for _, r := range open {
			r.Body.Close()
		}
	}()
	for range 3 {
		r := sse(t, s.url, "127.0.0.1")
		require.Equal(t, http.StatusOK, r.StatusCode)
		open = append(open, r)
	}
	r := sse(t, s.url, "127.0.0.1")
	require.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	r.Body.Close()
	for range 3 {
		r := sse(t, s.url, "127.0.0.2")
		require.Equal(t, http.StatusOK, r.StatusCode)
		open = append(open, r)
	}
	refused := 0
	for range 5000 {
		r := sse(t, s.url, "127.0.0.3")
		if r.StatusCode == http.StatusServiceUnavailable && r.Header.Get("Retry-After") != "" {
			refused++
		}
		r.Body.Close()
	}
	require.Equal(t, 5000, refused, "every attempt past the global cap is refused")
}

// TestRateLimits: sign-ins, operator sign-ins and guesses past their rates
// get 429 with Retry-After.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	s := startServe(t, ServeConfig{
		SignInRate: Rate{PerSecond: 1, Burst: 3}, OperatorSignInRate: Rate{PerSecond: 1, Burst: 2},
		GuessRate: Rate{PerSecond: 1, Burst: 2}, OperatorToken: "op-secret",
	})
	token, game, kb := s.player(t, "ann") // one sign-in of the burst
	limited := func(method, path, tok string, body any, n int) (ok, throttled int) {
		for range n {
			code, h, _ := s.call(t, method, path, tok, body)
			if code == http.StatusTooManyRequests {
				require.NotEmpty(t, h.Get("Retry-After"))
				throttled++
			} else {
				ok++
			}
		}
		return ok, throttled
	}
	ok, thr := limited("POST", "/api/auth/dev", "", map[string]string{"name": "bob"}, 20)
	require.LessOrEqual(t, ok, 2+5, "about the burst passes") // burst left 2, plus what refilled
	require.Positive(t, thr)
	ok, thr = limited("POST", "/op/signin", "", nil, 20)
	require.Positive(t, thr)
	require.LessOrEqual(t, ok, 2+5)
	ok, thr = limited("POST", "/api/games/"+game+"/guess", token, map[string]any{"codes": kb[:6]}, 20)
	require.Positive(t, thr)
	require.LessOrEqual(t, ok, 2+5)
}

// TestOperatorTokenNotPrinted: a configured token never reaches the
// banner; a generated one is printed once, as the only way to know it.
func TestOperatorTokenNotPrinted(t *testing.T) {
	t.Parallel()
	s := startServe(t, ServeConfig{OperatorToken: "s3cr3t-token"})
	require.NotContains(t, s.out.String(), "s3cr3t-token")
	require.Contains(t, s.out.String(), "operator token: the configured one (not shown)")
	g := startServe(t, ServeConfig{})
	require.Contains(t, g.out.String(), "generated for this run")
}

// TestSecureCookies: behind a TLS proxy the operator cookie is Secure.
func TestSecureCookies(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		s := startServe(t, ServeConfig{OperatorToken: "op", SecureCookies: secure})
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.PostForm(s.url+"/op/signin", map[string][]string{"token": {"op"}})
		require.NoError(t, err)
		resp.Body.Close()
		cookies := resp.Cookies()
		require.NotEmpty(t, cookies, "status %d", resp.StatusCode)
		for _, ck := range cookies {
			require.Equal(t, secure, ck.Secure, ck.Name)
		}
	}
}

// TestShutdownAnswersWaits: a stop with a long-poll and a live feed open
// answers the long-poll at once (200, the guess still queued) and ends the
// feed with a shutdown event; Serve returns nil soon after.
func TestShutdownAnswersWaits(t *testing.T) {
	t.Parallel()
	s := startServe(t, ServeConfig{})
	token, game, kb := s.player(t, "cid")
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	defer c.Close()
	q, err := lanes.New(c, s.queue, nil)
	require.NoError(t, err)
	_, err = q.Pause(context.Background()) // the guess stays queued: the long-poll waits
	require.NoError(t, err)
	code, _, b := s.call(t, "POST", "/api/games/"+game+"/guess", token, map[string]any{"codes": kb[:6]})
	require.Equal(t, http.StatusAccepted, code, string(b))
	var rc struct {
		Receipt struct{ Guess string } `json:"receipt"`
	}
	require.NoError(t, json.Unmarshal(b, &rc))

	feed := sse(t, s.url, "127.0.0.1")
	defer feed.Body.Close()
	require.Equal(t, http.StatusOK, feed.StatusCode)
	polled := make(chan []byte, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, s.url+"/api/guesses/"+rc.Receipt.Guess+"?wait=30s", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			polled <- []byte(err.Error())
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		polled <- append([]byte(fmt.Sprintf("%d ", resp.StatusCode)), b...)
	}()
	time.Sleep(300 * time.Millisecond) // sleep: the long-poll is waiting (nothing can wake it: lanes paused); no signal comes out of the server's wait
	start := time.Now()
	s.stop()
	var answer []byte
	select {
	case answer = <-polled:
	case <-time.After(8 * time.Second):
		t.Fatal("the long-poll was not answered at shutdown")
	}
	answered := time.Since(start)
	require.True(t, bytes.HasPrefix(answer, []byte("200 ")), string(answer))
	require.Contains(t, string(answer), `"status":"queued"`)
	body, _ := io.ReadAll(feed.Body)
	require.Contains(t, string(body), "event: shutdown")
	select {
	case err := <-s.done:
		require.NoError(t, err)
		s.done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	t.Logf("long-poll answered %v after the stop; Serve returned %v after it", answered.Round(time.Millisecond), (time.Since(start) - answered).Round(time.Millisecond))
	_, err = q.Resume(context.Background())
	require.NoError(t, err)
}
