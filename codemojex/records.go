package codemojex

import (
	"github.com/echomq/echomq/codemojex/rules"
)

// Room is a room's record: the template each of its games snapshots, and
// the game running in it. Nothing in it is secret.
type Room struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Set is the emoji set's name.
	Set  string     `json:"set"`
	Mode rules.Mode `json:"mode"`
	// DurationMS is how long a game runs, from its first join.
	DurationMS int64 `json:"duration_ms"`
	// Prize is the diamonds a game of the room pays its winners.
	Prize int64 `json:"prize"`
	// Fee is the price of one guess, in keys (clips in a free room).
	Fee  int64 `json:"fee"`
	Free bool  `json:"free"`
	// Cells is the size of each game's reduced keyboard; 0 plays the whole
	// set.
	Cells  int    `json:"cells,omitempty"`
	Status string `json:"status"`
	// Game is the running game; "" while the room waits.
	Game string `json:"game,omitempty"`
	// Games counts the games started in the room.
	Games     int   `json:"games"`
	CreatedMS int64 `json:"created_ms"`
}

// Currency returns what a guess in the room costs.
func (r Room) Currency() Currency {
	if r.Free {
		return Clips
	}
	return Keys
}

// gameRecord is a game's record. It holds the secret (and a blind game's
// salt), so it never leaves the engine as is: [Game] is its public view.
type gameRecord struct {
	ID         string     `json:"id"`
	Room       string     `json:"room"`
	Set        string     `json:"set"`
	Mode       rules.Mode `json:"mode"`
	Keyboard   string     `json:"keyboard"`
	Secret     string     `json:"secret"`
	Salt       string     `json:"salt,omitempty"`
	Commitment string     `json:"commitment,omitempty"`
	Prize      int64      `json:"prize"`
	Fee        int64      `json:"fee"`
	Free       bool       `json:"free"`
	StartedMS  int64      `json:"started_ms"`
	EndsMS     int64      `json:"ends_ms"`
	Status     string     `json:"status"`
	Reason     string     `json:"reason,omitempty"`
	ClosedMS   int64      `json:"closed_ms,omitempty"`
	SettledMS  int64      `json:"settled_ms,omitempty"`
	Payouts    []Payout   `json:"payouts,omitempty"`
	// Remote names the winners whose wallets live in another shard (player
	// → home shard): their prizes are credited there, keyed by game and
	// player.
	Remote  map[string]int `json:"remote,omitempty"`
	Board   []Standing     `json:"board,omitempty"`
	Players int            `json:"players,omitempty"`
	Guesses int            `json:"guesses,omitempty"`
	// Started is the entry id of the game-started event, where a scan for
	// the game's joins starts.
	Started string `json:"started"`
}

func (g gameRecord) currency() Currency {
	if g.Free {
		return Clips
	}
	return Keys
}

// Standing is a player's place on a game's board: their best total and the
// guess that first reached it.
type Standing struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Best   int    `json:"best"`
	// At is the snowflake of the guess that first scored Best (earlier
	// wins a tie for the remainder of a split).
	At int64 `json:"at"`
}

// Payout is what a winner received, in diamonds.
type Payout struct {
	Player string `json:"player"`
	Amount int64  `json:"amount"`
}

// member is a player's record in one game.
type member struct {
	Game     string `json:"game"`
	Player   string `json:"player"`
	Name     string `json:"name"`
	JoinedMS int64  `json:"joined_ms"`
	// Attempts counts the player's scored guesses in the game, once each.
	Attempts int   `json:"attempts"`
	Best     int   `json:"best"`
	BestAt   int64 `json:"best_at,omitempty"`
}

func memberKey(game, player string) string { return game + "." + player }

// guessRecord is a guess's record: the codes stay here, readable only by
// their player through the engine. Status queued (charged, not yet scored,
// void or refunded) is also the guess's pending mark: the sweep's
// [Engine.Requeue] queues its job again if it went missing (a crash
// between the charge and the enqueue), finding it through its ledger row.
// Status refused marks an accepted guess that was never charged (Reason
// says why; Codes are empty when the sweep refused it): written with its
// guess-refused, it makes a late charge of the guess refuse.
type guessRecord struct {
	ID       string   `json:"id"`
	Game     string   `json:"game"`
	Room     string   `json:"room"`
	Player   string   `json:"player"`
	Job      string   `json:"job"`
	Codes    []string `json:"codes"`
	Currency Currency `json:"currency"`
	Fee      int64    `json:"fee"`
	Status   string   `json:"status"`
	Points   int      `json:"points"`
	Attempt  int      `json:"attempt,omitempty"`
	AtMS     int64    `json:"at_ms"`
	ScoredMS int64    `json:"scored_ms,omitempty"`
	// Reason is why a refused guess was refused (see [RefusedLost]).
	Reason string `json:"reason,omitempty"`
	// Hold marks a guess of a player whose wallet lives in another shard
	// (Home): its fee was debited there, against a hold, and is refunded
	// there (docs/codemojex.md, "Wallets across shards"); no wallet of
	// this shard is touched.
	Hold bool `json:"hold,omitempty"`
	Home int  `json:"home,omitempty"`
}

// holdRecord is the home shard's side of a guess played in a room of
// another shard (table holds, key "<shard>.<GES>"): the fee debited for
// it, and whether it is still held, done (the guess recorded and scored)
// or refunded.
type holdRecord struct {
	Guess     string   `json:"guess"`
	Game      string   `json:"game"`
	Room      string   `json:"room"`
	Player    string   `json:"player"`
	Shard     int      `json:"shard"`
	Currency  Currency `json:"currency"`
	Fee       int64    `json:"fee"`
	Status    string   `json:"status"`
	AtMS      int64    `json:"at_ms"`
	SettledMS int64    `json:"settled_ms,omitempty"`
}

// prizeRecord is a prize of a game of another shard credited to a home
// wallet (table prizes, key "<shard>.<GAM>.<PLR>"): it exists once the
// credit committed, so the credit applies once.
type prizeRecord struct {
	Game   string `json:"game"`
	Player string `json:"player"`
	Shard  int    `json:"shard"`
	Amount int64  `json:"amount"`
	AtMS   int64  `json:"at_ms"`
}

// requeueCursor is one of [Engine.Requeue]'s places in a stream. Under
// cursorRequeue, in the ledger: every guess booked (its ledger row of
// reason guess) at or before After has left status queued (scored, void or
// refunded), so a requeue reads the ledger from after it. It stays before
// the oldest guess still queued: a guess that stays queued holds the
// cursor back, never the guesses after it. Under cursorAccepted, in
// guess-accepted: every guess accepted at or before After has its record
// (charged, or refused).
type requeueCursor struct {
	// After is an entry id of the stream; "" is the stream's start.
	After string `json:"after"`
	// AtMS is when it last moved.
	AtMS int64 `json:"at_ms"`
}

// The keys of the requeue cursors in the cursors table.
const (
	cursorRequeue  = "requeue"  // in the ledger
	cursorAccepted = "accepted" // in guess-accepted
	cursorHolds    = "holds"    // in the ledger: the holds before it are settled
	cursorPrizes   = "prizes"   // in game-settled: the prizes before it are credited home
)

// Player is a player's record.
type Player struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedMS int64  `json:"created_ms"`
}

// session is a signed-in session, stored under the hash of its token.
type session struct {
	Player string `json:"player"`
	// Name and CreatedMS copy the (immutable) player record, so
	// authenticating a request takes one read.
	Name      string `json:"name"`
	CreatedMS int64  `json:"created_ms"`
	IssuedMS  int64  `json:"issued_ms"`
}
