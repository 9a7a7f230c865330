package codemojex

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
)

// Game is the public view of a game: everything but the secret, which is
// shown (with a blind game's salt) only once the game is settled.
type Game struct {
	ID     string     `json:"game"`
	Room   string     `json:"room"`
	Set    string     `json:"set"`
	Mode   rules.Mode `json:"mode"`
	Status string     `json:"status"`
	// Keyboard is the codes a guess may use, in keyboard order.
	Keyboard  []string `json:"keyboard"`
	StartedMS int64    `json:"started_ms"`
	EndsMS    int64    `json:"ends_ms"`
	Prize     int64    `json:"prize"`
	Fee       int64    `json:"fee"`
	Free      bool     `json:"free"`
	Currency  Currency `json:"currency"`
	// Commitment is a blind game's hash commitment to its secret.
	Commitment string `json:"commitment,omitempty"`
	Reason     string `json:"reason,omitempty"`
	SettledMS  int64  `json:"settled_ms,omitempty"`
	// Payouts and Board are set once the game is settled.
	Payouts []Payout   `json:"payouts,omitempty"`
	Board   []BoardRow `json:"board,omitempty"`
	// Secret and Salt are revealed once the game is settled.
	Secret []string `json:"secret,omitempty"`
	Salt   string   `json:"salt,omitempty"`
}

// Game returns the public view of a game, or a [*NotFoundError].
func (e *Engine) Game(ctx context.Context, id string) (Game, error) {
	if err := checkID(id, BrandGame); err != nil {
		return Game{}, err
	}
	g, ok, err := readJSON[gameRecord](ctx, e, tableGames, id)
	if err != nil {
		return Game{}, err
	}
	if !ok {
		return Game{}, notFound("game", id)
	}
	v := Game{
		ID: g.ID, Room: g.Room, Set: g.Set, Mode: g.Mode, Status: g.Status, Keyboard: strings.Split(g.Keyboard, ","),
		StartedMS: g.StartedMS, EndsMS: g.EndsMS, Prize: g.Prize, Fee: g.Fee, Free: g.Free, Currency: g.currency(),
		Commitment: g.Commitment, Reason: g.Reason,
	}
	if g.Status == StatusSettled {
		v.SettledMS, v.Payouts, v.Board = g.SettledMS, g.Payouts, boardRows(g.Board)
		v.Secret, v.Salt = strings.Split(g.Secret, ","), g.Salt
	}
	return v, nil
}

// Standing returns a player's standing in a game (attempts and best, the
// best hidden in an open blind game) and whether they joined it.
func (e *Engine) Standing(ctx context.Context, game, player string) (Membership, bool, error) {
	if err := checkID(game, BrandGame); err != nil {
		return Membership{}, false, err
	}
	if err := checkID(player, BrandPlayer); err != nil {
		return Membership{}, false, err
	}
	m, ok, err := readJSON[member](ctx, e, tableMembers, memberKey(game, player))
	if err != nil || !ok {
		return Membership{}, false, err
	}
	out := Membership{Game: game, Player: player, JoinedMS: m.JoinedMS, Attempts: m.Attempts, Best: m.Best}
	g, ok, err := readJSON[gameRecord](ctx, e, tableGames, game)
	if err != nil {
		return Membership{}, false, err
	}
	if ok && !g.Mode.Feedback() && g.Status != StatusSettled {
		out.Best, out.Sealed = 0, true
	}
	return out, true, nil
}

// Membership is a player's own standing in a game.
type Membership struct {
	Game     string `json:"game"`
	Player   string `json:"player"`
	JoinedMS int64  `json:"joined_ms"`
	Attempts int    `json:"attempts"`
	Best     int    `json:"best"`
	// Sealed reports that the best is hidden until a blind game's reveal.
	Sealed bool `json:"sealed,omitempty"`
}

// Guess is a player's own view of one of their guesses. Points are hidden
// (Sealed) in a blind game until it is settled: its JSON then carries no
// points and no pct at all (nor before the guess is scored), so a 0 is
// never shown for a score nobody may see yet.
type Guess struct {
	ID       string   `json:"guess"`
	Game     string   `json:"game"`
	Codes    []string `json:"codes"`
	Status   string   `json:"status"`
	Points   int      `json:"points"`
	Pct      int      `json:"pct"`
	Attempt  int      `json:"attempt,omitempty"`
	Sealed   bool     `json:"sealed,omitempty"`
	Fee      int64    `json:"fee"`
	Currency Currency `json:"currency"`
	AtMS     int64    `json:"at_ms"`
	ScoredMS int64    `json:"scored_ms,omitempty"`
}

// MarshalJSON leaves points and pct out of a guess that is sealed or not
// scored.
func (g Guess) MarshalJSON() ([]byte, error) {
	type plain Guess
	if g.Status == GuessScored && !g.Sealed {
		return json.Marshal(plain(g))
	}
	return json.Marshal(struct {
		plain
		Points struct{} `json:"points,omitzero"`
		Pct    struct{} `json:"pct,omitzero"`
	}{plain: plain(g)})
}

// Guesses returns the player's own guesses among ids, in the order given;
// ids of other players' guesses and unknown ids are left out, so a player
// never reads anyone else's codes.
func (e *Engine) Guesses(ctx context.Context, player string, ids []string) ([]Guess, error) {
	out := make([]Guess, 0, len(ids))
	games := map[string]bool{} // game → its points are sealed
	for _, id := range ids {
		if checkID(id, BrandGuess) != nil {
			continue
		}
		rec, ok, err := readJSON[guessRecord](ctx, e, tableGuesses, id)
		if err != nil {
			return nil, err
		}
		if !ok || rec.Player != player {
			continue
		}
		v := Guess{
			ID: rec.ID, Game: rec.Game, Codes: rec.Codes, Status: rec.Status, Attempt: rec.Attempt,
			Fee: rec.Fee, Currency: rec.Currency, AtMS: rec.AtMS, ScoredMS: rec.ScoredMS,
		}
		if rec.Status == GuessScored {
			sealed, seen := games[rec.Game]
			if !seen {
				if sealed, err = e.sealed(ctx, rec.Game); err != nil {
					return nil, err
				}
				games[rec.Game] = sealed
			}
			if !sealed {
				v.Points, v.Pct = rec.Points, rules.Percent(rec.Points)
			} else {
				v.Sealed = true
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// GuessOf returns one of the player's own guesses; another player's guess
// is a [*NotFoundError] like an unknown one.
func (e *Engine) GuessOf(ctx context.Context, player, id string) (Guess, error) {
	if err := checkID(id, BrandGuess); err != nil {
		return Guess{}, err
	}
	gs, err := e.Guesses(ctx, player, []string{id})
	if err != nil {
		return Guess{}, err
	}
	if len(gs) == 0 {
		return Guess{}, notFound("guess", id)
	}
	return gs[0], nil
}

// sealed reports whether the points of a game's guesses are hidden: a blind
// game not yet settled. A classic game's mode is remembered, so most reads
// need no game record.
func (e *Engine) sealed(ctx context.Context, game string) (bool, error) {
	if _, classic := e.classic.Load(game); classic {
		return false, nil
	}
	g, ok, err := readJSON[gameRecord](ctx, e, tableGames, game)
	if err != nil || !ok {
		return false, err
	}
	if g.Mode.Feedback() {
		e.classic.Store(game, true)
		return false, nil
	}
	return g.Status != StatusSettled, nil
}

// Members returns the standings of everyone who joined a game, in join
// order (a blind game's bests hidden until it is settled), or a
// [*NotFoundError]. Notifiers use it to reach every player of a settled
// game, including those who never scored.
func (e *Engine) Members(ctx context.Context, game string) ([]Membership, error) {
	if err := checkID(game, BrandGame); err != nil {
		return nil, err
	}
	g, ok, err := readJSON[gameRecord](ctx, e, tableGames, game)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFound("game", game)
	}
	ms, err := e.members(ctx, g)
	if err != nil {
		return nil, err
	}
	sealed := !g.Mode.Feedback() && g.Status != StatusSettled
	out := make([]Membership, len(ms))
	for i, m := range ms {
		out[i] = Membership{Game: game, Player: m.Player, JoinedMS: m.JoinedMS, Attempts: m.Attempts, Best: m.Best}
		if sealed {
			out[i].Best, out[i].Sealed = 0, true
		}
	}
	return out, nil
}

// BoardRow is a player's line on a settled game's board: their best and
// when (Unix milliseconds) the guess that first reached it was made.
type BoardRow struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Best   int    `json:"best"`
	AtMS   int64  `json:"at_ms"`
}

// boardRows turns the stored board (ordered by guess snowflake) into its
// public rows, in the same order.
func boardRows(ss []Standing) []BoardRow {
	out := make([]BoardRow, len(ss))
	for i, s := range ss {
		out[i] = BoardRow{Player: s.Player, Name: s.Name, Best: s.Best, AtMS: snowflakeMS(s.At)}
	}
	return out
}

// snowflakeMS is the Unix millisecond a snowflake was minted at; 0 for 0.
func snowflakeMS(sf int64) int64 {
	if sf <= 0 {
		return 0
	}
	return echomq.Snowflake(sf).Time().UnixMilli()
}
