package bot_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
)

// helperEnv makes the test binary a bot process running Serve (the
// senders and the notifiers) against the engine at BOT_TEST_URL, queue
// BOT_TEST_QUEUE, and the Bot API at BOT_TEST_API, until it is killed.
const helperEnv = "BOT_TEST_HELPER"

func helperMain() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "helper:", err); return 3 }
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: os.Getenv("BOT_TEST_URL"), Notice: io.Discard, Logger: quiet})
	if err != nil {
		return fail(err)
	}
	e, err := codemojex.New(client, &codemojex.Config{Queue: os.Getenv("BOT_TEST_QUEUE"), Logger: quiet})
	if err != nil {
		return fail(err)
	}
	b, err := bot.New(e, crashConfig(os.Getenv("BOT_TEST_API")))
	if err != nil {
		return fail(err)
	}
	return fail(b.Serve(context.Background()))
}

func crashConfig(api string) *bot.Config {
	return &bot.Config{
		Token: "123:abc", ServerURL: api, GlobalRate: 1000, ChatRate: 1000, ChatBurst: 100, Senders: 8,
		Backoff: 10 * time.Millisecond, Lease: 300 * time.Millisecond, Redelivery: time.Second, Logger: quiet,
	}
}

// TestNotificationsSurviveKills: bot processes are killed with SIGKILL at
// random moments while guesses are scored; after a last process catches
// up, every score has reached its player, and a copy sent twice is rare
// (only a message Telegram took just before the kill, and before its
// notice was marked, goes out again).
func TestNotificationsSurviveKills(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{Senders: 1, Lease: 300 * time.Millisecond, Redelivery: time.Second})
	// The harness's own bot serves too: its senders and notifiers are one
	// more peer the children share the work with, and it is never killed.
	ctx := context.Background()
	room, err := h.e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Zoo", Cells: 8})
	require.NoError(t, err)
	// BOT_CRASH_ROUNDS runs more rounds by hand (each player needs a key
	// per guess, so more keys are granted).
	const players = 12
	guesses := 6
	if n, err := strconv.Atoi(os.Getenv("BOT_CRASH_ROUNDS")); err == nil && n > 0 {
		guesses = n
	}
	var ids []string
	for u := int64(1); u <= players; u++ {
		h.text(700+u, "/start")
		ids = append(ids, h.player(700+u))
		_, err := h.e.Grant(ctx, ids[len(ids)-1], codemojex.Keys, int64(guesses))
		require.NoError(t, err)
	}
	var game string
	for _, p := range ids {
		j, err := h.e.Join(ctx, p, room.ID)
		require.NoError(t, err)
		game = j.Game
	}
	g, err := h.e.Game(ctx, game)
	require.NoError(t, err)
	secret := h.secret(game)

	start := func() (kill func()) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=1", "BOT_TEST_URL="+h.url, "BOT_TEST_QUEUE="+h.e.Queue(), "BOT_TEST_API="+h.api.srv.URL)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		return func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	}
	kills := 0
	kill := start()
	rng := rand.New(rand.NewPCG(1, 2))
	for range guesses {
		for _, p := range ids {
			codes := slices.Clone(g.Keyboard[:6])
			shuffle := func() { rng.Shuffle(len(codes), func(a, b int) { codes[a], codes[b] = codes[b], codes[a] }) }
			for shuffle(); slices.Equal(codes, secret); shuffle() {
			}
			_, err := h.e.Submit(ctx, p, game, codes)
			require.NoError(t, err)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond) // sleep: a random moment to crash at
		kill()
		kills++
		kill = start()
	}
	defer kill()

	// Every score notified: wait until each player has their count.
	short := func() int {
		n := 0
		for u := int64(1); u <= players; u++ {
			if len(h.api.to("sendMessage", 700+u, "🎯")) < guesses {
				n++
			}
		}
		return n
	}
	h.api.until(t, 60*time.Second, func() bool { return short() == 0 }, func() string {
		return fmt.Sprintf("%d players still miss notifications after 60s", short())
	})
	h.awaitOutboxIdle()
	dups := 0
	for u := int64(1); u <= players; u++ {
		dups += len(h.api.to("sendMessage", 700+u, "🎯")) - guesses
	}
	t.Logf("%d scores notified through %d SIGKILLs; %d sent twice", players*guesses, kills, dups)
	require.LessOrEqual(t, dups, kills*8, "a copy only for a message in flight at a kill")
}
