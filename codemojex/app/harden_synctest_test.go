package app

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRateLimitSchedule: in a testing/synctest bubble (the hardening
// handler in memory, no server: its buckets read the bubble's fake clock),
// the default limits let exactly their burst through at once, then one
// request per 1/PerSecond, per client address or per session, and each
// refusal's Retry-After is the wait until the next token, rounded up to
// whole seconds.
func TestRateLimitSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newHarden(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }), ServeConfig{
			SignInRate: DefaultSignInRate, OperatorSignInRate: DefaultOperatorSignInRate, GuessRate: DefaultGuessRate,
		})
		// send makes one request and returns its status and Retry-After.
		send := func(method, path, addr, token string) (int, string) {
			r := httptest.NewRequest(method, path, nil)
			r.RemoteAddr = addr + ":4711"
			if token != "" {
				r.Header.Set("Authorization", "Bearer "+token)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Code, w.Header().Get("Retry-After")
		}
		type answer struct {
			code       int
			retryAfter string
		}
		ok, no := answer{http.StatusNoContent, ""}, func(s string) answer { return answer{http.StatusTooManyRequests, s} }
		burst := func(n int, method, path, addr, token string) []answer {
			out := make([]answer, n)
			for i := range out {
				code, ra := send(method, path, addr, token)
				out[i] = answer{code, ra}
			}
			return out
		}

		// Operator sign-in: 0.5/s, burst 5.
		require.Equal(t, []answer{ok, ok, ok, ok, ok, no("2")}, burst(6, "POST", "/op/signin", "10.0.0.1", ""))
		require.Equal(t, []answer{ok}, burst(1, "POST", "/op/signin", "10.0.0.2", ""), "another address has a bucket of its own")
		require.Equal(t, []answer{ok}, burst(1, "GET", "/op/signin", "10.0.0.1", ""), "only POSTs are limited")
		time.Sleep(time.Second) // sleep: the bubble's clock: half a token back
		require.Equal(t, []answer{no("1")}, burst(1, "POST", "/op/signin", "10.0.0.1", ""))
		time.Sleep(time.Second - time.Millisecond) // sleep: the bubble's clock: a millisecond short of a token
		require.Equal(t, []answer{no("1")}, burst(1, "POST", "/op/signin", "10.0.0.1", ""), "a wait under a second rounds up to 1")
		time.Sleep(time.Millisecond) // sleep: the bubble's clock: 2s since the bucket ran dry: one token
		require.Equal(t, []answer{ok, no("2")}, burst(2, "POST", "/op/signin", "10.0.0.1", ""))

		// Sign-in: 2/s, burst 10, the two paths sharing the address's bucket.
		require.Equal(t, []answer{ok, ok, ok, ok, ok}, burst(5, "POST", "/api/auth/dev", "10.0.0.3", ""))
		require.Equal(t, []answer{ok, ok, ok, ok, ok, no("1")}, burst(6, "POST", "/web/auth/telegram", "10.0.0.3", ""))
		time.Sleep(500 * time.Millisecond) // sleep: the bubble's clock: one token at 2/s
		require.Equal(t, []answer{ok, no("1")}, burst(2, "POST", "/api/auth/dev", "10.0.0.3", ""))

		// Guesses: 10/s, burst 20, per session whatever the address.
		want := make([]answer, 21)
		for i := range 20 {
			want[i] = ok
		}
		want[20] = no("1")
		require.Equal(t, want, burst(21, "POST", "/api/games/g1/guess", "10.0.0.4", "tok-ann"))
		require.Equal(t, []answer{no("1")}, burst(1, "POST", "/api/games/g2/guess", "10.0.0.5", "tok-ann"), "the session's bucket, from any address")
		require.Equal(t, []answer{ok}, burst(1, "POST", "/api/games/g1/guess", "10.0.0.4", "tok-bob"))
		time.Sleep(100 * time.Millisecond) // sleep: the bubble's clock: one token at 10/s
		require.Equal(t, []answer{ok, no("1")}, burst(2, "POST", "/api/games/g1/guess", "10.0.0.4", "tok-ann"))
	})
}
