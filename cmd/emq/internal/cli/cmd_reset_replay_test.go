package cli

import (
	"testing"
)

func TestGroupResetGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed("orders", 0, 4)
	b.step("group", "create", "orders", "billing", "--start", "head")
	b.stepConsume("consume", "orders", "billing", "--name", "c1", "--max", "4", "--beat", "20ms")
	b.note("the dry run counts; the reset that follows moves the position and redelivers as many")
	b.step("group", "reset", "orders", "billing", "--to-id", ids[1], "--dry-run")
	b.step("--json", "group", "reset", "orders", "billing", "--to-id", ids[1], "--dry-run")
	b.step("group", "reset", "orders", "billing", "--to-id", ids[1])
	b.stepConsume("consume", "orders", "billing", "--name", "c1", "--max", "3", "--beat", "20ms")
	b.step("group", "reset", "orders", "billing", "--by-duration", "24h", "--dry-run")
	b.note("a missing group exits 3")
	b.step("group", "reset", "orders", "nope", "--by-duration", "1h")
	b.golden("group_reset")
}

func TestReplayGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed("orders", 0, 5)
	b.step("replay", "orders", "--into", "orders-again", "--from", ids[1], "--to", ids[3])
	b.note("a second run appends nothing twice")
	b.step("--json", "replay", "orders", "--into", "orders-again", "--from", ids[1], "--to", ids[3])
	b.step("read", "orders-again")
	b.golden("replay")
}

func TestResetReplayBadArguments(t *testing.T) {
	t.Parallel()
	requireUsage(t, setup(t), []usageCase{
		{"reset without target", []string{"group", "reset", "s", "g"}},
		{"reset two targets", []string{"group", "reset", "s", "g", "--to-id", "1-0", "--by-duration", "1h"}},
		{"reset bad id", []string{"group", "reset", "s", "g", "--to-id", "soon"}},
		{"reset bad time", []string{"group", "reset", "s", "g", "--to-time", "yesterday"}},
		{"reset zero duration", []string{"group", "reset", "s", "g", "--by-duration", "0s"}},
		{"reset negative duration", []string{"group", "reset", "s", "g", "--by-duration=-1h"}},
		{"reset bad group", []string{"group", "reset", "s", "a b", "--by-duration", "1h"}},
		{"reset one argument", []string{"group", "reset", "s", "--by-duration", "1h"}},
		{"replay without into", []string{"replay", "s"}},
		{"replay into itself", []string{"replay", "s", "--into", "s"}},
		{"replay bad target", []string{"replay", "s", "--into", "a:b"}},
		{"replay bad bound", []string{"replay", "s", "--into", "t", "--from", "soon"}},
		{"replay inverted", []string{"replay", "s", "--into", "t", "--from", "2024-06-02", "--to", "2024-06-01"}},
		{"replay store without merged", []string{"replay", "s", "--into", "t", "--store", "x"}},
	})
}

func TestFollowGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seedGame()
	b.note("the game's streams as one log, oldest first, in entry-id order")
	b.stepConsume("follow", "guess-scored", "game-settled", "--head", "--max", "5")
	b.stepConsume("--json", "follow", "--prefix", "game-", "--head", "--max", "2")
	b.golden("follow")
}

func TestFollowBadArguments(t *testing.T) {
	t.Parallel()
	requireUsage(t, setup(t), []usageCase{
		{"nothing to follow", []string{"follow"}},
		{"names and prefix", []string{"follow", "s", "--prefix", "g"}},
		{"bad stream", []string{"follow", "a:b"}},
		{"bad prefix", []string{"follow", "--prefix", "a b"}},
		{"bad checkpoint", []string{"follow", "s", "--from", "s"}},
		{"negative max", []string{"follow", "s", "--max=-1"}},
	})
}
