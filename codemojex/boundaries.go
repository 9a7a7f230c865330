package codemojex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
)

// The rules decided over dynamic consistency boundaries (package dcb): a
// query of the events about one thing, and an append on the condition that
// nothing matching the query came since the read. Their events are tagged;
// the records they used to be decided on (members, identities) are now
// written after the event, from it, and repaired from it by the next call
// when a process died in between.
//
//   - A player joins a game once: player-joined (tags game, player, room)
//     is appended on the condition that no player-joined of the pair and no
//     game-closed of the game exists.
//   - A game is closed once as an event, and nobody joins after: the first
//     settler appends game-closed (tags game, room) on the condition that
//     none exists; the joins' condition sees it.
//   - A sign-in identity makes one player: player-registered (tags
//     identity, player) is appended on the condition that none of the
//     identity exists; a concurrent first sign-in takes the winner's player.

// Tag keys of the engine's tagged events.
const (
	TagGame     = "game"
	TagPlayer   = "player"
	TagRoom     = "room"
	TagIdentity = "identity"
)

// decideAttempts bounds the read-decide-append rounds of one rule: a round
// is lost only to a concurrent event about the same thing, which settles
// the rule (the next round reads it).
const decideAttempts = 8

// joinQuery selects what decides a join of player to game: the pair's
// joins and the game's close.
func joinQuery(game, player string) dcb.Query {
	return dcb.Query{
		{Types: []string{StreamPlayerJoined}, Tags: dcb.Tags(TagGame, game, TagPlayer, player)},
		{Types: []string{StreamGameClosed}, Tags: dcb.Tags(TagGame, game)},
	}
}

// enter puts p in the open game g of room r by the rule "a player joins a
// game once": player-joined is appended unless the player's join or the
// game's close is in the log. The member record (attempts, best) follows
// the event; a join that finds the event already there writes it too, so a
// process that died in between is repaired by the player's next join.
func (e *Engine) enter(ctx context.Context, g gameRecord, p Player) (Joined, error) {
	q := joinQuery(g.ID, p.ID)
	for range decideAttempts {
		evs, after, err := e.store.ReadAll(ctx, q, 0)
		if err != nil {
			return Joined{}, err
		}
		for _, ev := range evs {
			switch ev.Stream {
			case StreamGameClosed:
				return Joined{}, &joinBlocked{game: g.ID}
			case StreamPlayerJoined:
				if err := e.ensureMember(ctx, ev.Event, g.ID, p.ID); err != nil {
					return Joined{}, err
				}
				return Joined{Game: g.ID, Room: g.Room, Already: true}, nil
			}
		}
		ev := dcb.Append{
			Stream: StreamPlayerJoined, Tags: dcb.Tags(TagGame, g.ID, TagPlayer, p.ID, TagRoom, g.Room),
			Fields: echomq.F("game", g.ID, "room", g.Room, "player", p.ID, "name", p.Name, "joined_ms", itoa(e.nowMS())),
		}
		got, err := e.store.Append(ctx, []dcb.Append{ev}, &dcb.Condition{Query: q, After: after})
		if errors.Is(err, echomq.ErrConflict) {
			continue // a join of the pair or the close came first: read it
		}
		if err != nil {
			return Joined{}, err
		}
		joined := echomq.Event{ID: got[0].ID, Entry: got[0].Entry, Fields: ev.Fields, Tags: ev.Tags, Position: got[0].Position}
		if err := e.ensureMember(ctx, joined, g.ID, p.ID); err != nil {
			return Joined{}, err
		}
		return Joined{Game: g.ID, Room: g.Room}, nil
	}
	return Joined{}, fmt.Errorf("%w: join of %s to game %s kept meeting concurrent events", echomq.ErrConflict, p.ID, g.ID)
}

// ensureMember writes the member record of a player-joined event unless it
// is there (the scores keep their counts in it).
func (e *Engine) ensureMember(ctx context.Context, joined echomq.Event, game, player string) error {
	at, err := strconv.ParseInt(joined.Fields.Value("joined_ms"), 10, 64)
	if err != nil {
		at = joined.Time().UnixMilli()
	}
	mk := memberKey(game, player)
	return e.update(ctx, func(ctx context.Context, t *txn) error {
		if _, ok, err := getJSON[member](ctx, t, tableMembers, mk); err != nil || ok {
			return err
		}
		return t.put(tableMembers, mk, member{Game: game, Player: player, Name: joined.Fields.Value("name"), JoinedMS: at})
	})
}

// closeQuery selects a game's close.
func closeQuery(game string) dcb.Query {
	return dcb.Query{{Types: []string{StreamGameClosed}, Tags: dcb.Tags(TagGame, game)}}
}

// closedFields are the fields of g's game-closed.
func closedFields(g gameRecord) []string {
	return []string{"game", g.ID, "room", g.Room, "reason", g.Reason, "closed_ms", itoa(g.ClosedMS)}
}

// appendClosed buffers the game-closed of g (tags game, room) in the
// transaction that moves g from open to closing: the record's watch makes
// that transaction commit once per game, so the event is appended once,
// and the game's record and events say "closed" from one atomic step.
func (t *txn) appendClosed(ctx context.Context, g gameRecord) error {
	_, err := t.append(ctx, StreamGameClosed, closedFields(g)...)
	return err
}

// ensureClosed appends game-closed for the closing (or settled) game g
// unless it is in the log. The close appends it with the record
// ([txn.appendClosed]), so this writes it only for a game closed before
// that (an older engine's); whoever races (settlers, sweeps), once. The
// settlement reads the roster only after it, so a join either came before
// it (and is on the board) or is refused.
func (e *Engine) ensureClosed(ctx context.Context, g gameRecord) error {
	ev := dcb.Append{
		Stream: StreamGameClosed, Tags: dcb.Tags(TagGame, g.ID, TagRoom, g.Room),
		Fields: echomq.F(closedFields(g)...),
	}
	_, err := e.store.Append(ctx, []dcb.Append{ev}, &dcb.Condition{Query: closeQuery(g.ID), After: 0})
	if errors.Is(err, echomq.ErrConflict) {
		return nil // closed before
	}
	return err
}

// identityTag is the tag of a sign-in identity: the provider and a hash of
// the subject, so the log does not carry a provider's user id.
func identityTag(provider, subject string) string {
	h := sha256.Sum256([]byte(provider + "." + subject))
	return TagIdentity + "=" + provider + "." + hex.EncodeToString(h[:16])
}

// register decides which player an identity signs in as, by the rule "a
// sign-in identity makes one player": the player of its player-registered
// event, or fresh, whose player-registered is appended on the condition
// that the identity has none. Of concurrent first sign-ins one appends and
// the others take its player.
func (e *Engine) register(ctx context.Context, provider, subject string, fresh Player) (Player, error) {
	tag := identityTag(provider, subject)
	q := dcb.Query{{Types: []string{StreamPlayerRegistered}, Tags: []string{tag}}}
	for range decideAttempts {
		evs, _, err := e.store.ReadAll(ctx, q, 0)
		if err != nil {
			return Player{}, err
		}
		if len(evs) > 0 {
			f := evs[0].Fields
			at, _ := strconv.ParseInt(f.Value("created_ms"), 10, 64)
			return Player{ID: f.Value("player"), Name: f.Value("name"), CreatedMS: at}, nil
		}
		ev := dcb.Append{
			Stream: StreamPlayerRegistered, Tags: []string{tag, TagPlayer + "=" + fresh.ID},
			Fields: echomq.F("player", fresh.ID, "name", fresh.Name, "provider", provider, "created_ms", itoa(fresh.CreatedMS)),
		}
		_, err = e.store.Append(ctx, []dcb.Append{ev}, &dcb.Condition{Query: q, After: 0})
		if errors.Is(err, echomq.ErrConflict) {
			continue // another first sign-in won: read its player
		}
		if err != nil {
			return Player{}, err
		}
		return fresh, nil
	}
	return Player{}, fmt.Errorf("%w: registration of an identity kept meeting concurrent events", echomq.ErrConflict)
}
