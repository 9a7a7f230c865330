package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// queryOut decodes the JSON of query and read (the fields as a map).
type queryOut struct {
	Next, Head uint64
	Count      int
	Events     []struct {
		Stream   string
		Position uint64
		Tags     []string
		Fields   map[string]string
	}
}

// Tagged appends get positions; query reads them across streams in
// position order (tables and JSON); read and tail show a tagged event's
// position and tags, and an untagged event as before.
func TestQueryTagged(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.must("append", "--tag", "game=GAM1", "game-opened", "room=dogs")
	b.must("append", "--tag", "game=GAM2", "--tag", "player=PLR2", "guessed", "word=owl")
	b.must("append", "--tag", "game=GAM1", "--tag", "player=PLR1", "guessed", "word=cat")
	b.must("append", "guessed", "word=untagged")

	out := b.must("query", "--tag", "game=GAM1")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	require.Regexp(t, `^STREAM\s+ID\s+ENTRY\s+TIME\s+FIELDS$`, lines[0])
	require.Regexp(t, `^game-opened\s+EVT\S+\s+\S+\s+\S+\s+@pos=1 @tags=game=GAM1 room=dogs$`, lines[1])
	require.Regexp(t, `^guessed\s+EVT\S+\s+\S+\s+\S+\s+@pos=3 @tags=game=GAM1,player=PLR1 word=cat$`, lines[2])

	var doc queryOut
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "query", "--type", "guessed", "--tag", "game=GAM1", "--item", "game=GAM2,player=PLR2")), &doc))
	require.Equal(t, uint64(3), doc.Next)
	require.Equal(t, uint64(3), doc.Head)
	require.Equal(t, 2, doc.Count)
	require.Equal(t, "guessed", doc.Events[0].Stream)
	require.Equal(t, uint64(2), doc.Events[0].Position)
	require.Equal(t, []string{"game=GAM2", "player=PLR2"}, doc.Events[0].Tags)
	require.Equal(t, uint64(3), doc.Events[1].Position)

	// --from and --limit page; the position to go on from is on stderr.
	stdout, stderr, code := b.run("query", "--tag", "game=GAM1", "--limit", "1")
	require.Equal(t, ExitOK, code, stderr)
	require.Contains(t, stdout, "@pos=1 ")
	require.Equal(t, "next 1 head 3; more after it: --from 1\n", stderr)
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "query", "--tag", "game=GAM1", "--from", "1")), &doc))
	require.Equal(t, 1, doc.Count)
	require.Equal(t, uint64(3), doc.Events[0].Position)

	// read shows the tagged events' @pos and @tags, the untagged as before.
	out = b.must("read", "guessed")
	require.Regexp(t, `@pos=2 @tags=game=GAM2,player=PLR2 word=owl\n`, out)
	require.Regexp(t, `  word=untagged\n`, out)
	var rd queryOut
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "read", "guessed")), &rd))
	require.Equal(t, uint64(3), rd.Events[1].Position)
	require.Equal(t, []string{"game=GAM1", "player=PLR1"}, rd.Events[1].Tags)
	raw := b.must("--json", "read", "guessed")
	require.Contains(t, raw, `"fields":{"word":"untagged"}`)
	require.NotContains(t, raw[strings.LastIndex(raw, `"entry"`):], `"position"`, "an untagged event has no position")
	require.Contains(t, b.must("tail", "game-opened"), "@pos=1 @tags=game=GAM1 room=dogs")

	// --key keeps a tagged append idempotent.
	first := b.must("append", "--tag", "game=GAM3", "--key", "k1", "guessed", "word=a")
	require.Equal(t, first, b.must("append", "--tag", "game=GAM3", "--key", "k1", "guessed", "word=a"))
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "query", "--tag", "game=GAM3")), &doc))
	require.Equal(t, 1, doc.Count)

	// A position beyond the head is refused, never read as nothing.
	_, stderr, code = b.run("query", "--tag", "game=GAM1", "--from", "99")
	require.Equal(t, ExitError, code)
	require.Contains(t, stderr, "above the queue's head")
}

// A conditional append writes only when nothing matching its --if-none
// items lies after --after; otherwise exit 4, nothing written.
func TestAppendIfNone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	claim := []string{"append", "--tag", "name=ada", "--if-none", "name-claimed:name=ada", "name-claimed", "player=PLR1"}
	b.must(claim...)
	stdout, stderr, code := b.run(claim...)
	require.Equal(t, ExitConflict, code, stderr)
	require.Empty(t, stdout)
	require.Regexp(t, `^emq: append: condition not met: name-claimed EVT\S+ at position 1 matches --if-none after position 0; nothing written\n$`, stderr)

	// A decision: read, then append after the position read.
	b.must("append", "--tag", "game=GAM1", "game-opened", "room=dogs")
	var doc queryOut
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "query", "--type", "game-opened", "--type", "game-closed", "--tag", "game=GAM1")), &doc))
	guess := []string{"--json", "append", "--tag", "game=GAM1", "--if-none", "game-closed:game=GAM1", "--after", "2", "guessed", "word=cat"}
	var ap appendDoc
	require.NoError(t, json.Unmarshal([]byte(b.must(guess...)), &ap))
	require.Equal(t, uint64(3), ap.Position)
	require.Equal(t, []string{"game=GAM1"}, ap.Tags)
	b.must("append", "--tag", "game=GAM1", "game-closed", "reason=timer")
	_, stderr, code = b.run(guess...)
	require.Equal(t, ExitConflict, code, stderr)
	require.Contains(t, stderr, "game-closed")
	require.Equal(t, 1, strings.Count(b.must("read", "guessed"), "word=cat"), "the refused append wrote nothing")

	// --after beyond the head exits 1.
	_, stderr, code = b.run("append", "--tag", "a=b", "--if-none", "a=b", "--after", "1000", "s", "k=v")
	require.Equal(t, ExitError, code, stderr)
}

// Bad tag, query and condition flags exit 2 before any I/O.
func TestQueryBadArguments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, args := range [][]string{
		{"query"},
		{"query", "--type", "s"},
		{"query", "--item", "s:"},
		{"query", "--item", "bad name:a=b"},
		{"query", "--tag", "no-equals"},
		{"query", "--tag", "a=b", "--limit", "-1"},
		{"query", "--tag", "a=b", "--limit", "10001"},
		{"query", "--tag", "a=b", "--from", "-1"},
		{"query", "--tag", "a=b", "extra"},
		{"append", "--tag", "bad tag", "s", "k=v"},
		{"append", "--tag", "a=b,c", "s", "k=v"},
		{"append", "--if-none", "s:a=b", "s", "k=v"},
		{"append", "--tag", "a=b", "--after", "3", "s", "k=v"},
		{"append", "--tag", "a=b", "--if-none", "s", "s", "k=v"},
		{"append", "--tag", "a=b", "--if-none", "s:a=b", "--key", "k", "s", "k=v"},
		{"append", "--tag", "a=b", "--id", "EVT0Ab3dE9xYz1", "s", "k=v"},
		{"append", "--tag", "a=b", "s", "@pos=1"},
	} {
		stdout, stderr, code := b.run(args...)
		require.Equal(t, ExitUsage, code, "emq %s: %s", strings.Join(args, " "), stderr)
		require.Empty(t, stdout, args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%v: %q", args, stderr)
	}
	var doc queryOut
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "query", "--tag", "a=b")), &doc))
	require.Zero(t, doc.Head, "nothing was written")
}
