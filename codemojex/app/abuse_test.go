package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/web"
)

// TestAbuse runs codemojex serve on loopback under abuse for a few
// seconds — 1,000 sign-ins a second, slow-body and idle connections, 5,000
// live-feed attempts — while a real player keeps playing, and reports the
// player's guess latency (submit to scored, through the long-poll). The
// figures are logged (docs/codemojex.md records them); the assertions are
// about outcomes, never times.
func TestAbuse(t *testing.T) {
	if testing.Short() {
		t.Skip("abuse test: seconds of load")
	}
	t.Parallel()
	s := startServe(t, ServeConfig{ReadTimeout: 2 * time.Second, IdleTimeout: 2 * time.Second, Workers: 8})
	token, game, kb := s.player(t, "real")
	addr := strings.TrimPrefix(s.url, "http://")
	const abuseFor = 5 * time.Second
	stop := make(chan struct{})
	stopAll := sync.OnceFunc(func() { close(stop) })
	defer stopAll() // on a failed check too: the abusers end
	var wg sync.WaitGroup
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	// 1,000 sign-ins a second.
	var signOK, signThrottled, signOther atomic.Int64
	jobs := make(chan int, 1000)
	for range 16 {
		wg.Go(func() {
			for i := range jobs { // bounded: the offering goroutine closes jobs once stop closes, on every path (stopAll)
				resp, err := hc.Post(s.url+"/api/auth/dev", "application/json", strings.NewReader(fmt.Sprintf(`{"name":"bot%d"}`, i)))
				if err != nil {
					signOther.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					signOK.Add(1)
				case http.StatusTooManyRequests:
					signThrottled.Add(1)
				default:
					signOther.Add(1)
				}
			}
		})
	}
	// Offered in bursts of 12 every 10 ms (1,200 a second: a ticker of 1 ms
	// loses ticks on a loaded machine and offers less than 1,000).
	var offered atomic.Int64
	wg.Go(func() {
		defer close(jobs)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; {
			select {
			case <-stop:
				return
			case <-tick.C:
				for range 12 {
					select {
					case jobs <- i:
						offered.Add(1)
						i++
					default: // the workers are behind: the offered rate is what it is
					}
				}
			}
		}
	})
	// Slow bodies and idle connections: the timeouts must close them.
	var slowClosed, idleClosed atomic.Int64
	for i := range 40 {
		wg.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer c.Close()
			if i%2 == 0 {
				fmt.Fprintf(c, "POST /api/auth/dev HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
			}
			_ = c.SetReadDeadline(time.Now().Add(abuseFor + 10*time.Second))
			buf := make([]byte, 512)
			for {
				if i%2 == 0 {
					_, _ = c.Write([]byte(" "))
				}
				_ = c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
				_, err := c.Read(buf)
				if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
					select {
					case <-stop:
						return
					default:
						continue
					}
				}
				if err != nil { // closed by the server
					if i%2 == 0 {
						slowClosed.Add(1)
					} else {
						idleClosed.Add(1)
					}
					return
				}
			}
		})
	}
	// 5,000 live-feed attempts.
	var feedOK, feedRefused atomic.Int64
	var feeds []*http.Response
	var feedsMu sync.Mutex
	wg.Go(func() {
		fc := &http.Client{Transport: tr} // no timeout: a served feed stays open to the end
		for range 5000 {
			resp, err := fc.Get(s.url + "/web/events")
			if err != nil {
				continue
			}
			if resp.StatusCode == http.StatusOK {
				feedOK.Add(1)
				feedsMu.Lock()
				feeds = append(feeds, resp)
				feedsMu.Unlock()
				continue
			}
			feedRefused.Add(1)
			resp.Body.Close()
		}
	})

	// The real player: a guess every 200ms, each awaited until scored.
	var lat []time.Duration
	deadline := time.Now().Add(abuseFor)
	for time.Now().Before(deadline) {
		codes := slices.Clone(kb)
		rand.Shuffle(len(codes), func(i, j int) { codes[i], codes[j] = codes[j], codes[i] })
		start := time.Now()
		code, _, b := s.call(t, "POST", "/api/games/"+game+"/guess", token, map[string]any{"codes": codes[:6]})
		require.Equal(t, http.StatusAccepted, code, string(b))
		var rc struct {
			Receipt struct{ Guess string } `json:"receipt"`
		}
		require.NoError(t, json.Unmarshal(b, &rc))
		code, _, b = s.call(t, "GET", "/api/guesses/"+rc.Receipt.Guess+"?wait=10s", token, nil)
		require.Equal(t, http.StatusOK, code, string(b))
		require.False(t, bytes.Contains(b, []byte(`"status":"queued"`)), "scored within the wait: %s", b)
		lat = append(lat, time.Since(start))
		time.Sleep(200 * time.Millisecond) // sleep: the real player's pace
	}
	stopAll()
	wg.Wait()
	for _, f := range feeds {
		f.Body.Close()
	}
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	t.Logf("sign-ins offered over %v: %d (%.0f/s): %d ok, %d throttled (429), %d other", abuseFor, offered.Load(),
		float64(offered.Load())/abuseFor.Seconds(), signOK.Load(), signThrottled.Load(), signOther.Load())
	t.Logf("slow bodies closed by the server: %d/20; idle connections closed: %d/20", slowClosed.Load(), idleClosed.Load())
	t.Logf("live feeds: %d served, %d refused of 5000 attempts", feedOK.Load(), feedRefused.Load())
	t.Logf("real player: %d guesses, latency submit→scored p50 %v, p99 %v, max %v", len(lat), p(0.50).Round(time.Millisecond), p(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	require.Greater(t, signThrottled.Load(), 10*signOK.Load(), "sign-ins are throttled")
	require.EqualValues(t, 20, slowClosed.Load(), "every slow body is cut off")
	require.EqualValues(t, 20, idleClosed.Load(), "every idle connection is closed")
	require.LessOrEqual(t, feedOK.Load(), int64(web.DefaultMaxStreamsPerClient), "one address holds at most its cap")
	require.EqualValues(t, 5000, feedOK.Load()+feedRefused.Load())
	require.NotEmpty(t, lat)
}
