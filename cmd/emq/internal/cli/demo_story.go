package cli

import (
	"strings"
	"time"

	"github.com/echomq/echomq"
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

var castBrands = map[string]string{
	"dogs": echomq.BrandRoom, "space": echomq.BrandRoom,
	"g1": echomq.BrandGame, "g2": echomq.BrandGame,
	"ada": echomq.BrandPlayer, "bo": echomq.BrandPlayer, "cy": echomq.BrandPlayer,
}

// story: two rooms, a classic game in each. In Dogs, ada's perfect 600 ends
// the game at once; in Space the timer ends it and cy's best 540 wins.
// Points follow the rules (100 − 20·distance per position, 0..600); the
// prize is the pool of fees paid for the game's guesses.
var story = []beat{
	{0, streamRoomOpened, []string{"room", "@dogs", "name", "Dogs", "emoji_set", "dogs-6x6", "fee", "10"}},
	{10 * time.Second, streamRoomOpened, []string{"room", "@space", "name", "Space", "emoji_set", "space-6x6", "fee", "20"}},
	{60 * time.Second, streamGameStarted, []string{"game", "@g1", "room", "@dogs", "timer", "360s"}},
	{60 * time.Second, streamPlayerJoined, []string{"game", "@g1", "room", "@dogs", "player", "@ada", "name", "ada"}},
	{90 * time.Second, streamPlayerJoined, []string{"game", "@g1", "room", "@dogs", "player", "@bo", "name", "bo"}},
	{120 * time.Second, streamGameStarted, []string{"game", "@g2", "room", "@space", "timer", "480s"}},
	{120 * time.Second, streamPlayerJoined, []string{"game", "@g2", "room", "@space", "player", "@cy", "name", "cy"}},
	{150 * time.Second, streamPlayerJoined, []string{"game", "@g2", "room", "@space", "player", "@ada", "name", "ada"}},
	{180 * time.Second, streamGuessScored, guess("g1", "dogs", "ada", "240")},
	{210 * time.Second, streamGuessScored, guess("g2", "space", "cy", "180")},
	{240 * time.Second, streamGuessScored, guess("g1", "dogs", "bo", "360")},
	{270 * time.Second, streamGuessScored, guess("g2", "space", "ada", "300")},
	{300 * time.Second, streamGuessScored, guess("g1", "dogs", "ada", "480")},
	{330 * time.Second, streamGuessScored, guess("g2", "space", "cy", "420")},
	{360 * time.Second, streamGuessScored, guess("g1", "dogs", "bo", "420")},
	{390 * time.Second, streamGuessScored, guess("g2", "space", "ada", "360")},
	{420 * time.Second, streamGuessScored, guess("g1", "dogs", "ada", "600")},
	{420 * time.Second, streamGameSettled, []string{"game", "@g1", "room", "@dogs", "winner", "@ada", "points", "600", "prize", "50"}},
	{480 * time.Second, streamGuessScored, guess("g2", "space", "ada", "420")},
	{540 * time.Second, streamGuessScored, guess("g2", "space", "cy", "540")},
	{600 * time.Second, streamGameSettled, []string{"game", "@g2", "room", "@space", "winner", "@cy", "points", "540", "prize", "120"}},
}

func guess(game, room, player, points string) []string {
	return []string{"game", "@" + game, "room", "@" + room, "player", "@" + player, "points", points}
}

// cast mints and remembers the story's ids.
type cast struct {
	m   *echomq.Minter
	ids map[string]echomq.ID
}

// fields resolves a beat's "@name" values to ids.
func (c *cast) fields(kv []string) echomq.Fields {
	f := make(echomq.Fields, len(kv))
	for i, v := range kv {
		name, ok := strings.CutPrefix(v, "@")
		if !ok || i%2 == 0 {
			f[i] = v
			continue
		}
		id, ok := c.ids[name]
		if !ok {
			id = c.m.NextID(castBrands[name])
			c.ids[name] = id
		}
		f[i] = id.String()
	}
	return f
}
