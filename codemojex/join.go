package codemojex

import (
	"context"
	"errors"
	"fmt"

	"github.com/echomq/echomq/codemojex/rules"
)

// Joined is the answer to [Engine.Join].
type Joined struct {
	// Game is the game the player is in.
	Game string `json:"game"`
	Room string `json:"room"`
	// Started reports that this join started the game.
	Started bool `json:"started"`
	// Already reports that the player had joined before; nothing changed.
	Already bool `json:"already"`
}

// joinBlocked is a room whose game must be closed or settled before it can
// take a join: the join finishes that first, then tries again.
type joinBlocked struct {
	game    string
	expired bool
}

// Error says which game is ending.
func (j *joinBlocked) Error() string { return "codemojex: game " + j.game + " is ending" }

// Join puts a player in a room's game: the first joiner of a waiting room
// starts a game (snapshotting the room, drawing the secret, appending
// game-started), later joiners enter it (player-joined); joining again is
// a no-op. A room whose game has run out of time is settled first, and the
// join starts the next game. It returns a [*NotFoundError] for an unknown
// room or player, and [ErrClosed] in the unlikely case that the room's
// games keep ending while the join tries.
func (e *Engine) Join(ctx context.Context, player, room string) (Joined, error) {
	if err := checkID(room, BrandRoom); err != nil {
		return Joined{}, err
	}
	p, err := e.Player(ctx, player)
	if err != nil {
		return Joined{}, err
	}
	return e.joinAs(ctx, p, room)
}

// joinAs is [Engine.Join] of the player p, whose record may live in
// another shard (its home).
func (e *Engine) joinAs(ctx context.Context, p Player, room string) (Joined, error) {
	for range 8 {
		out, err := e.join(ctx, p, room)
		var blocked *joinBlocked
		if !errors.As(err, &blocked) {
			return out, err
		}
		if blocked.expired {
			if _, err := e.Close(ctx, blocked.game, ReasonTimer); err != nil && !errors.Is(err, ErrAlreadyClosed) {
				return Joined{}, err
			}
		} else if _, err := e.settle(ctx, blocked.game); err != nil {
			return Joined{}, err
		}
	}
	// Every round settled a game; so many in a row means games end as fast
	// as they start.
	return Joined{}, fmt.Errorf("%w: room %s keeps ending its games; try again", ErrClosed, room)
}

// join starts the game of a waiting room in a transaction, or finds the
// room's open game and enters it (see [Engine.enter]): a member found in
// the transaction's reads has joined before, and a player not yet a member
// joins by the rule decided over the game's events, not by these reads.
func (e *Engine) join(ctx context.Context, p Player, roomID string) (Joined, error) {
	var out Joined
	var open *gameRecord
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		open = nil
		r, ok, err := getJSON[Room](ctx, t, tableRooms, roomID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("room", roomID)
		}
		if r.Status != RoomActive || r.Game == "" {
			return e.startGame(ctx, t, r, p, &out)
		}
		g, ok, err := getJSON[gameRecord](ctx, t, tableGames, r.Game)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			return notFound("game", r.Game)
		case g.Status != StatusOpen:
			return &joinBlocked{game: g.ID}
		case e.nowMS() >= g.EndsMS:
			return &joinBlocked{game: g.ID, expired: true}
		}
		mk := memberKey(g.ID, p.ID)
		_, already, err := getJSON[member](ctx, t, tableMembers, mk)
		if err != nil {
			return err
		}
		out = Joined{Game: g.ID, Room: r.ID, Already: already}
		if !already {
			open = &g
		}
		return nil // no writes: nothing to commit
	})
	if err != nil || open == nil {
		return out, err
	}
	return e.enter(ctx, *open, p)
}

// startGame opens a new game in the waiting room r with p as its first
// member, inside t.
func (e *Engine) startGame(ctx context.Context, t *txn, r Room, p Player, out *Joined) error {
	set, err := e.Set(r.Set)
	if err != nil {
		return err
	}
	e.randMu.Lock()
	kb := set.Keyboard()
	if r.Cells > 0 && r.Cells < kb.Len() {
		kb, err = kb.Reduce(r.Cells, e.cfg.Rand)
	}
	var secret rules.Secret
	if err == nil {
		secret, err = rules.DrawSecret(kb, e.cfg.Rand)
	}
	e.randMu.Unlock()
	if err != nil {
		return err
	}
	now := e.nowMS()
	gid, err := e.mint(ctx, BrandGame)
	if err != nil {
		return err
	}
	g := gameRecord{
		ID: gid, Room: r.ID, Set: r.Set, Mode: r.Mode, Keyboard: kb.String(), Secret: secret.String(),
		Prize: r.Prize, Fee: r.Fee, Free: r.Free, StartedMS: now, EndsMS: now + r.DurationMS, Status: StatusOpen,
	}
	if r.Mode.Committed() {
		commitment, reveal, err := rules.Commit(secret, nil)
		if err != nil {
			return err
		}
		g.Commitment, g.Salt = commitment, reveal.Salt
	}
	r.Status, r.Game, r.Games = RoomActive, g.ID, r.Games+1
	fields := []string{
		"game", g.ID, "room", r.ID, "player", p.ID, "name", p.Name, "mode", string(g.Mode), "set", g.Set,
		"keyboard", g.Keyboard, "prize", itoa(g.Prize), "fee", itoa(g.Fee), "currency", string(g.currency()),
		"started_ms", itoa(g.StartedMS), "ends_ms", itoa(g.EndsMS),
	}
	if g.Commitment != "" {
		fields = append(fields, "commitment", g.Commitment)
	}
	id, err := t.append(ctx, StreamGameStarted, fields...)
	if err != nil {
		return err
	}
	g.Started = id.EntryID().String()
	for _, err := range []error{
		t.put(tableRooms, r.ID, r),
		t.put(tableGames, g.ID, g),
		t.put(tableMembers, memberKey(g.ID, p.ID), member{Game: g.ID, Player: p.ID, Name: p.Name, JoinedMS: now}),
	} {
		if err != nil {
			return err
		}
	}
	*out = Joined{Game: g.ID, Room: r.ID, Started: true}
	return nil
}
