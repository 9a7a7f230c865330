package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

func TestDemoGolden(t *testing.T) {
	t.Parallel()
	b := setupEmbedded(t)
	b.queue = "" // the demo's own queue, "emq-demo"
	b.step("demo")
	b.golden("demo")
}

func TestDemoJSON(t *testing.T) {
	t.Parallel()
	b := setupEmbedded(t)
	b.queue = ""
	var doc struct {
		Queue    string `json:"queue"`
		Embedded bool   `json:"embedded"`
		Appended []struct {
			Stream string            `json:"stream"`
			ID     string            `json:"id"`
			Fields map[string]string `json:"fields"`
		} `json:"appended"`
		Window struct {
			Events []json.RawMessage `json:"events"`
		} `json:"window"`
		Players []playerTally `json:"players"`
		Rooms   []roomTally   `json:"rooms"`
		Settled []settlement  `json:"settled"`
	}
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "demo")), &doc))
	require.Equal(t, "emq-demo", doc.Queue)
	require.True(t, doc.Embedded)
	require.Len(t, doc.Appended, len(story))
	streams := map[string]int{}
	for _, a := range doc.Appended {
		streams[a.Stream]++
	}
	require.Equal(t, map[string]int{"room-opened": 2, "game-started": 2, "player-joined": 2, "guess-scored": 11, "game-settled": 2}, streams)
	require.Len(t, doc.Window.Events, 7)
	require.Equal(t, []string{"ada", "cy", "bo"}, []string{doc.Players[0].Name, doc.Players[1].Name, doc.Players[2].Name})
	require.Equal(t, 2400, doc.Players[0].Total)
	require.Len(t, doc.Rooms, 2)
	require.Len(t, doc.Settled, 2)
	for _, s := range doc.Settled {
		require.True(t, s.Agrees, s)
	}
}

// A second run on a server that keeps the first run's streams cannot stamp
// its story above them without running into the future: the demo's own
// queue moves on to the next free one and says so; a queue given with
// --queue is refused, naming when it can take a story again, and nothing
// is appended.
func TestDemoTwiceOnServer(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	b := setup(t)
	b.url, b.queue = srv.URL(), ""
	require.Contains(t, b.must("demo"), `queue "emq-demo":`)
	second := b.must("demo")
	require.Contains(t, second, `queue "emq-demo-2":`)
	require.Contains(t, second, `queue "emq-demo" holds the story of an earlier run`)

	b.queue = echomqtest.Queue(t)
	b.must("demo")
	_, stderr, code := b.run("demo")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "holds a story whose last event is at")
	require.Contains(t, stderr, "give another --queue")
	require.Contains(t, b.must("info", "guess-scored"), "length          11")
}

// The demo and its default queue leave queue "cm" (codemojex's) untouched.
func TestDemoLeavesCmUntouched(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	b := setup(t)
	b.url, b.queue = srv.URL(), ""
	out := b.must("demo")
	require.Contains(t, out, `queue "emq-demo"`)
	n, err := echomqtest.Atomic(srv.Addr(), []string{"KEYS", "emq:{cm}:*"})
	require.NoError(t, err)
	require.Empty(t, n[0], "no key of queue cm")
}
