package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDemoGolden(t *testing.T) {
	t.Parallel()
	b := setupEmbedded(t)
	b.queue = "" // the demo's own queue, "cm"
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
	require.Equal(t, "cm", doc.Queue)
	require.True(t, doc.Embedded)
	require.Len(t, doc.Appended, len(story))
	streams := map[string]int{}
	for _, a := range doc.Appended {
		streams[a.Stream]++
	}
	require.Equal(t, map[string]int{"room-opened": 2, "game-started": 2, "player-joined": 4, "guess-scored": 11, "game-settled": 2}, streams)
	require.Len(t, doc.Window.Events, 7)
	require.Equal(t, []string{"ada", "cy", "bo"}, []string{doc.Players[0].Name, doc.Players[1].Name, doc.Players[2].Name})
	require.Equal(t, 2400, doc.Players[0].Total)
	require.Len(t, doc.Rooms, 2)
	require.Len(t, doc.Settled, 2)
	for _, s := range doc.Settled {
		require.True(t, s.Agrees, s)
	}
}

// A second run on a server that keeps the first run's streams starts its
// story after the first one (appends with explicit ids must lie above the
// tops) and folds only its own span.
func TestDemoTwiceOnServer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.must("demo")
	require.NotContains(t, first, "already held")
	second := b.must("demo")
	require.Contains(t, second, "already held a later story")
	require.Contains(t, second, "Read them again with: emq read -q "+b.queue+" guess-scored")
	require.Equal(t, 2, strings.Count(second, " yes\n"), second)
	out := b.must("info", "guess-scored")
	require.Contains(t, out, "length          22")
}
