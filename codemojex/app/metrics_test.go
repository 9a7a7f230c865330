package app

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scrape returns the samples of a /metrics body: "name{labels}" -> value.
func scrape(t *testing.T, body []byte) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		out[line[:i]] = v
	}
	return out
}

// TestServeMetrics: serve exposes /metrics to the operator token only; a
// scrape after two players' guesses holds the game's health (players
// active, guesses scored, no backlog, no dead job) beside EchoMQ's own
// metrics of the game's streams and guess queue, and the operator's
// health page shows the same numbers.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	s := startServe(t, ServeConfig{OperatorToken: "op-metrics"})
	code, h, _ := s.call(t, "GET", "/metrics", "", nil)
	require.Equal(t, http.StatusUnauthorized, code)
	require.Contains(t, h.Get("WWW-Authenticate"), "Bearer")
	code, _, _ = s.call(t, "GET", "/metrics", "wrong", nil)
	require.Equal(t, http.StatusUnauthorized, code)
	code, _, _ = s.call(t, "POST", "/metrics", "op-metrics", nil)
	require.Equal(t, http.StatusMethodNotAllowed, code)
	_, h, _ = s.call(t, "POST", "/metrics", "op-metrics", nil)
	require.Equal(t, "GET, HEAD", h.Get("Allow"))

	for i, name := range []string{"mia", "noa"} {
		token, game, kb := s.player(t, name)
		codes := append(append([]string{}, kb[i:]...), kb[:i]...)
		code, _, b := s.call(t, "POST", "/api/games/"+game+"/guess", token, map[string]any{"codes": codes[:6]})
		require.Equal(t, http.StatusAccepted, code, string(b))
	}
	var got map[string]float64
	completed := func() float64 {
		var n float64
		for k, v := range got {
			if strings.HasPrefix(k, "echomq_lanes_jobs_total{") && strings.Contains(k, `event="completed"`) {
				n += v
			}
		}
		return n
	}
	// The worker reports a job completed (its hook) after the job left the
	// queue, so the scrape may see the backlog empty a moment before.
	require.Eventually(t, func() bool {
		code, _, b := s.call(t, "GET", "/metrics", "op-metrics", nil)
		require.Equal(t, http.StatusOK, code, string(b))
		got = scrape(t, b)
		return got["codemojex_guesses_scored_last_minute"] == 2 && got["codemojex_scoring_backlog"] == 0 && completed() >= 2
	}, 30*time.Second, 50*time.Millisecond, "last scrape %v", got)
	require.InDelta(t, 2, got["codemojex_players_active"], 0)
	require.InDelta(t, 0, got["codemojex_scoring_dead_jobs"], 0)
	require.InDelta(t, 0, got["codemojex_health_errors"], 0)
	require.InDelta(t, 1, got["codemojex_health_exact"], 0)
	require.InDelta(t, 2, got["codemojex_scoring_seconds_count"], 0)
	require.Contains(t, got, "codemojex_live_feeds")
	q := s.queue
	require.InDelta(t, 2, got[`echomq_stream_length{queue="`+q+`",stream="guess-scored"}`], 0)
	require.InDelta(t, 0, got[`echomq_lanes_jobs{queue="`+q+`",state="waiting"}`], 0)

	// The operator's health page, signed in with the same token.
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar}
	page, err := c.Get(s.url + "/op/signin")
	require.NoError(t, err)
	body := readAll(t, page)
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	form := url.Values{"token": {"op-metrics"}}
	if csrf != nil {
		form.Set("csrf", csrf[1])
	}
	req, err := http.NewRequest(http.MethodPost, s.url+"/op/signin", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.url)
	res, err := c.Do(req)
	require.NoError(t, err)
	_ = readAll(t, res)
	res, err = c.Get(s.url + "/op/health")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	html := readAll(t, res)
	require.Regexp(t, `id="players-active">2<`, html)
	require.Regexp(t, `id="scored-last-minute">2<`, html)
	require.Regexp(t, `id="backlog">0<`, html)
	require.Regexp(t, `id="dead">0`, html)
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b bytes.Buffer
	_, err := b.ReadFrom(res.Body)
	require.NoError(t, err)
	return b.String()
}
