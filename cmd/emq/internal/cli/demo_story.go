package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// The demo's streams, one per event type, as codemojex names them.
const (
	streamRoomOpened   = "room-opened"
	streamGameStarted  = "game-started"
	streamPlayerJoined = "player-joined"
	streamGuessScored  = "guess-scored"
	streamGameSettled  = "game-settled"
)

var demoStreams = []string{streamRoomOpened, streamGameStarted, streamPlayerJoined, streamGuessScored, streamGameSettled}

// demoQueue is the demo's queue unless --queue is given: a queue of its
// own, so the demo never writes into a real program's queue (codemojex
// uses "cm").
const demoQueue = "emq-demo"

// storySpan is how long the story lasts; it is stamped so that it ends now.
const storySpan = 10 * time.Minute

// The window step reads the guesses scored from 4 to 7 minutes in.
const windowFrom, windowTo = 4 * time.Minute, 7 * time.Minute

// beat is one domain event of the story, at an offset from its start. A
// value "@name" is the id of a member of the cast, minted (with the brand
// castBrands gives) the first time the story mentions it.
type beat struct {
	at     time.Duration
	stream string
	kv     []string
}

// brandOf is the brand of a cast member's id: its name says what it is
// ("room-dogs", "game-1", "player-ada", "guess-3", "job-3"), the brands
// codemojex mints.
func brandOf(name string) string {
	kind, _, _ := strings.Cut(name, "-")
	switch kind {
	case "room":
		return "ROM"
	case "game":
		return "GAM"
	case "player":
		return "PLR"
	case "guess":
		return "GES"
	default:
		return lanes.BrandJob
	}
}

// story: two rooms, a classic game in each, with the fields codemojex writes
// (docs/codemojex.md, "Events"). In Dogs, ada's perfect 600 cracks the code
// and ends the game at once; in Space the timer ends it and cy's best 540
// wins. Points follow the rules (100 − 20·distance per position, 0..600);
// the prize is the room's prize plus the fees paid for the game's guesses.
// The first join starts a game (game-started names that player); later
// joins are player-joined.
var story = []beat{
	{0, streamRoomOpened, room("dogs", "Dogs", "10", "20", "360000")},
	{10 * time.Second, streamRoomOpened, room("space", "Space", "20", "40", "480000")},
	{60 * time.Second, streamGameStarted, started(1, "dogs", "ada", "20", "10", 60*time.Second, 360*time.Second)},
	{90 * time.Second, streamPlayerJoined, []string{"game", "@game-1", "room", "@room-dogs", "player", "@player-bo", "name", "bo"}},
	{120 * time.Second, streamGameStarted, started(2, "space", "cy", "40", "20", 120*time.Second, 480*time.Second)},
	{150 * time.Second, streamPlayerJoined, []string{"game", "@game-2", "room", "@room-space", "player", "@player-ada", "name", "ada"}},
	{180 * time.Second, streamGuessScored, guess(1, 1, "ada", 1, 240, 240)},
	{210 * time.Second, streamGuessScored, guess(2, 2, "cy", 1, 180, 180)},
	{240 * time.Second, streamGuessScored, guess(3, 1, "bo", 1, 360, 360)},
	{270 * time.Second, streamGuessScored, guess(4, 2, "ada", 1, 300, 300)},
	{300 * time.Second, streamGuessScored, guess(5, 1, "ada", 2, 480, 480)},
	{330 * time.Second, streamGuessScored, guess(6, 2, "cy", 2, 420, 420)},
	{360 * time.Second, streamGuessScored, guess(7, 1, "bo", 2, 420, 420)},
	{390 * time.Second, streamGuessScored, guess(8, 2, "ada", 2, 360, 360)},
	{420 * time.Second, streamGuessScored, guess(9, 1, "ada", 3, 600, 600)},
	{420 * time.Second, streamGameSettled, settled(1, "dogs", "crack", "70", "ada", "2", "5", "600", 60*time.Second, 420*time.Second)},
	{480 * time.Second, streamGuessScored, guess(10, 2, "ada", 3, 420, 420)},
	{540 * time.Second, streamGuessScored, guess(11, 2, "cy", 3, 540, 540)},
	{600 * time.Second, streamGameSettled, settled(2, "space", "timer", "160", "cy", "2", "6", "540", 120*time.Second, 600*time.Second)},
}

// The story's games and their rooms, for the beats that name both.
var gameRoom = map[int]string{1: "dogs", 2: "space"}

// storyMS is a story offset as the "…_ms" fields carry it: milliseconds
// since the story's start, resolved to Unix milliseconds when it is played
// (a value "~<offset>").
func storyMS(at time.Duration) string { return "~" + at.String() }

func room(name, title, fee, prize, durationMS string) []string {
	return []string{
		"room", "@room-" + name, "name", title, "set", "animals", "mode", "classic", "free", "false",
		"fee", fee, "currency", "diamonds", "prize", prize, "duration_ms", durationMS, "cells", "6",
	}
}

func started(game int, room, player, prize, fee string, at, length time.Duration) []string {
	return []string{
		"game", "@game-" + strconv.Itoa(game), "room", "@room-" + room, "player", "@player-" + player,
		"name", player, "mode", "classic", "set", "animals", "keyboard", "1f436,1f431,1f42d,1f439,1f430,1f98a,1f43b,1f43c",
		"prize", prize, "fee", fee, "currency", "diamonds", "started_ms", storyMS(at), "ends_ms", storyMS(at + length),
	}
}

func guess(n, game int, player string, attempt, points, best int) []string {
	return []string{
		"game", "@game-" + strconv.Itoa(game), "room", "@room-" + gameRoom[game], "player", "@player-" + player,
		"guess", "@guess-" + strconv.Itoa(n), "job", "@job-" + strconv.Itoa(n), "attempt", strconv.Itoa(attempt),
		"points", strconv.Itoa(points), "pct", strconv.Itoa(points * 100 / 600), "best", strconv.Itoa(best),
	}
}

func settled(game int, room, reason, prize, winner, players, guesses, best string, started, at time.Duration) []string {
	return []string{
		"game", "@game-" + strconv.Itoa(game), "room", "@room-" + room, "mode", "classic", "reason", reason,
		"prize", prize, "paid", prize, "winners", `[{"player":"@player-` + winner + `","amount":` + prize + `}]`,
		"players", players, "guesses", guesses, "best", best, "started_ms", storyMS(started), "settled_ms", storyMS(at),
	}
}

// cast mints and remembers the story's ids.
type cast struct {
	m   *echomq.Minter
	ids map[string]echomq.ID
}

// fields resolves a beat's values: "@name" to the member's id (also inside
// the JSON of "winners"), "~offset" to the Unix milliseconds of the story
// instant start+offset.
func (c *cast) fields(kv []string, start time.Time) echomq.Fields {
	f := make(echomq.Fields, len(kv))
	for i, v := range kv {
		if i%2 == 0 {
			f[i] = v
			continue
		}
		if off, ok := strings.CutPrefix(v, "~"); ok {
			d, _ := time.ParseDuration(off) // written by storyMS
			f[i] = strconv.FormatInt(start.Add(d).UnixMilli(), 10)
			continue
		}
		f[i] = c.resolve(v)
	}
	return f
}

// resolve replaces every "@name" in v (a whole value, or a quoted one in
// JSON) with the member's id, minted on first mention.
func (c *cast) resolve(v string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(v, '@')
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		v = v[i+1:]
		j := strings.IndexAny(v, `"`)
		if j < 0 {
			j = len(v)
		}
		name := v[:j]
		id, ok := c.ids[name]
		if !ok {
			id = c.m.NextID(brandOf(name))
			c.ids[name] = id
		}
		b.WriteString(id.String())
		v = v[j:]
	}
}
