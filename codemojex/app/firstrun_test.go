package app

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/echomqtest"
)

// The first run explains itself: the banner says how sign-in stands and how
// to pick an address, and its curl session works exactly as printed (run
// by bash, with curl and jq) against the server that printed it.
func TestBannerCurlWorksAsPrinted(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the banner's curl session needs it", tool)
		}
	}
	t.Setenv("EMQ_URL", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errw lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error"}, &out, &errw)
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Or let simulated") }, 60*time.Second, 20*time.Millisecond, errw.String())
	banner := out.String()
	require.Contains(t, banner, "sign-in: on, by name")
	require.Contains(t, banner, "--addr HOST:PORT")
	require.NotContains(t, banner, "nothing persists", "the notice goes to stderr")
	require.Contains(t, errw.String(), "nothing persists")

	_, session, ok := strings.Cut(banner, "Play with curl (needs jq):\n")
	require.True(t, ok, banner)
	session, _, _ = strings.Cut(session, "Or let simulated")
	cctx, ccancel := context.WithTimeout(ctx, time.Minute)
	defer ccancel()
	cmd := exec.CommandContext(cctx, "bash", "-euo", "pipefail", "-c", session)
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", session, got)
	for _, want := range []string{`"glyph"`, `"status": "scored"`, `"points"`, `"leaderboard"`} {
		require.Contains(t, string(got), want, "%s", got)
	}
	cancel()
	require.Equal(t, 0, echomqtest.Recv(t, done, 30*time.Second, "the server to exit"), errw.String())
}

// Without any sign-in the banner says so and says how to turn one on.
func TestBannerSaysSignInIsOff(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	banner(&b, "http://127.0.0.1:1", false, ServeConfig{URL: "redis://u:secret@127.0.0.1:6390/0"}, nil, false)
	s := b.String()
	require.Contains(t, s, "sign-in: OFF")
	require.Contains(t, s, "CODEMOJEX_TELEGRAM_BOT_TOKEN")
	require.Contains(t, s, "--dev-signin=true")
	require.NotContains(t, s, "secret", "the engine URL's password is not printed")
	require.NotContains(t, s, "curl", "no session to show without a sign-in")
}

// A taken address names --addr: emq ui and codemojex both like 8080.
func TestAddressInUseNamesAddr(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var out, errw lockedBuffer
	code := Execute(t.Context(), []string{"serve", "--addr", ln.Addr().String(), "--log-level", "error"}, &out, &errw)
	require.Equal(t, 1, code)
	require.Contains(t, errw.String(), "codemojex: listen on "+ln.Addr().String()+": the address is already in use")
	require.Contains(t, errw.String(), "pick another with --addr HOST:PORT")
	require.NotContains(t, errw.String(), "codemojex: codemojex:") //nolint:dupword // the doubled prefix is what must not appear
}

// The demo's rooms open with a quick game, and the banner lists each room
// with the length of its games.
func TestBannerListsTheQuickGame(t *testing.T) {
	t.Parallel()
	var rooms []codemojex.Room
	for _, s := range DemoRooms() {
		rooms = append(rooms, codemojex.Room{Name: s.Name, DurationMS: s.Duration.Milliseconds(), Free: s.Free})
	}
	var b strings.Builder
	banner(&b, "http://127.0.0.1:1", true, ServeConfig{DevSignIn: true, OperatorToken: "tok"}, rooms, true)
	s := b.String()
	require.Contains(t, s, "room: Quick game (3 min), 3-minute games, free: the quickest way to see a game end\n")
	require.Contains(t, s, "room: Animal Farm, 1-hour games\n")
	require.Contains(t, s, "room: Snack Bar (free), 15-minute games, free\n")
	require.Contains(t, s, "CODEMOJEX_OPERATOR_TOKEN=tok go run ./codemojex/cmd/codemojex sim --url $B --players 50")
}
