package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// deadIDs returns the ids of the stream's dead letters, oldest first.
func (b *bundle) deadIDs(stream string) []string {
	b.t.Helper()
	var doc struct {
		Dead []struct {
			ID string `json:"id"`
		} `json:"dead"`
	}
	require.NoError(b.t, json.Unmarshal([]byte(b.must("--json", "dead", "list", stream)), &doc))
	ids := make([]string, len(doc.Dead))
	for i, d := range doc.Dead {
		ids[i] = d.ID
	}
	return ids
}

func TestDeadGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	origin := b.seed("poison", 0, 2)
	b.note("every delivery fails; the second is the last: both entries die")
	b.note("(the consumers mint the dead letters' ids as node 9, the appends as node 7)")
	b.stepConsume("--node", "9", "consume", "poison", "g", "--start", "head", "--name", "c1", "--fail", "--max-deliveries", "2",
		"--min-idle", "1s", "--beat", "20ms", "--max", "4")
	b.step("dead", "list", "poison")
	b.step("--json", "dead", "list", "poison")
	dead := b.deadIDs("poison")
	require.Len(t, dead, 2)
	b.step("dead", "show", "poison", dead[0])
	b.step("--json", "dead", "show", "poison", dead[1])
	b.step("dead", "list", "poison", "--reverse", "-n", "1")
	b.note("an id that is no dead letter exits 3; replay then replays nothing")
	b.step("dead", "show", "poison", origin[0])
	b.step("dead", "replay", "poison", dead[0], origin[0])
	b.note("replay appends the payload as a new event and deletes the dead letter")
	b.at(10 * time.Second)
	b.step("dead", "replay", "poison", dead[0])
	b.step("--json", "dead", "replay", "poison", "--all")
	b.step("dead", "replay", "poison", dead[0])
	b.step("read", "poison")
	b.step("dead", "list", "poison")
	b.note("the group delivers replayed events like any other")
	b.stepConsume("consume", "poison", "g", "--name", "c1", "--max", "2", "--beat", "20ms")
	b.note("purge by id or all")
	b.at(20*time.Second).must("append", "poison", "n=3")
	// A millisecond later: a second process minting at the same instant
	// would be refused and the engine would choose an id at its own clock.
	b.at(20*time.Second+time.Millisecond).must("append", "poison", "n=4")
	b.stepConsume("--node", "9", "consume", "poison", "g", "--name", "c1", "--fail", "--max-deliveries", "1", "--max", "2", "--beat", "20ms")
	dead = b.deadIDs("poison")
	require.Len(t, dead, 2)
	b.step("--json", "dead", "purge", "poison", dead[0], origin[0])
	b.step("dead", "purge", "poison", "--all")
	b.step("dead", "purge", "poison", "--all")
	b.step("--json", "dead", "list", "poison")
	b.golden("dead")
}

func TestDeadBadArguments(t *testing.T) {
	t.Parallel()
	const id = "EVT0DqulWYZktk"
	requireUsage(t, setup(t), []usageCase{
		{"unknown subcommand", []string{"dead", "drop", "s"}},
		{"list without stream", []string{"dead", "list"}},
		{"list bad stream", []string{"dead", "list", "a b"}},
		{"list bad bound", []string{"dead", "list", "s", "--from", "yesterday"}},
		{"list negative count", []string{"dead", "list", "s", "-n", "-1"}},
		{"list inverted range", []string{"dead", "list", "s", "--from", "+5m", "--to", "-5m"}},
		{"show without id", []string{"dead", "show", "s"}},
		{"show bad id", []string{"dead", "show", "s", "EVT123"}},
		{"show id of another brand", []string{"dead", "show", "s", "JOB0KHTOWnGLuC"}},
		{"show entry id", []string{"dead", "show", "s", "1748779200000-28672"}},
		{"replay without ids", []string{"dead", "replay", "s"}},
		{"replay ids and all", []string{"dead", "replay", "s", id, "--all"}},
		{"replay id twice", []string{"dead", "replay", "s", id, id}},
		{"replay bad id", []string{"dead", "replay", "s", id, "nope"}},
		{"purge without ids", []string{"dead", "purge", "s"}},
		{"purge ids and all", []string{"dead", "purge", "s", id, "--all"}},
		{"purge bad id", []string{"dead", "purge", "s", "nope"}},
		{"purge bad stream", []string{"dead", "purge", "a:b", "--all"}},
	})
}
