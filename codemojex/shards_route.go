package codemojex

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/echomq/echomq/codemojex/rules"
)

// ErrOtherShard is matched (errors.Is) by an [*OtherShardError].
//
// Deprecated: a player joins the rooms of every shard since one wallet
// serves them all (docs/codemojex.md, "Wallets across shards"); nothing
// returns it.
var ErrOtherShard = errors.New("codemojex: room on another shard")

// OtherShardError refused a join of a room of another shard than the
// player's wallet.
//
// Deprecated: nothing returns it (see [ErrOtherShard]).
type OtherShardError struct {
	Room      string
	RoomShard int
	Home      int
}

func (e *OtherShardError) Error() string {
	return fmt.Sprintf("codemojex: room %s is on shard %d and your wallet on shard %d", e.Room, e.RoomShard, e.Home)
}

// Is matches [ErrOtherShard].
func (e *OtherShardError) Is(target error) bool { return target == ErrOtherShard }

// homes remembers the home shard of the players a process has met, so a
// player's reads go to one shard; it is bounded (cleared past maxHomes
// entries, then learnt again).
type homes struct {
	mu sync.Mutex
	m  map[string]int
}

const maxHomes = 1 << 20

func (h *homes) get(id string) (int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k, ok := h.m[id]
	return k, ok
}

func (h *homes) put(id string, k int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || len(h.m) >= maxHomes {
		h.m = map[string]int{}
	}
	h.m[id] = k
}

// IdentityShard returns the home shard of a sign-in identity among n: the
// shard whose engine decides and keeps its player, sessions, wallet and
// ledger.
func IdentityShard(provider, subject string, n int) int {
	return RoomShard(provider+"."+subject, n)
}

// SignIn signs the identity in on its home shard ([IdentityShard]), as
// [Engine.SignIn] does there. With more than one shard the token carries
// the shard ("<token>.<shard>"), so [Shards.Authenticate] reads one shard.
func (s *Shards) SignIn(ctx context.Context, id Identity) (Player, string, error) {
	if len(s.engines) == 1 {
		return s.engines[0].SignIn(ctx, id)
	}
	if err := id.Validate(); err != nil {
		return Player{}, "", err
	}
	h := IdentityShard(id.Provider, id.Subject, len(s.engines))
	p, token, err := s.engines[h].SignIn(ctx, id)
	if err != nil {
		return Player{}, "", err
	}
	s.homes.put(p.ID, h)
	return p, token + "." + strconv.Itoa(h), nil
}

// tokenShard splits a token of [Shards.SignIn] into the engine's token and
// its shard; ok is false for a token that names no shard of s.
func (s *Shards) tokenShard(token string) (string, int, bool) {
	t, ks, found := strings.Cut(token, ".")
	if !found {
		return "", 0, false
	}
	k, err := strconv.Atoi(ks)
	if err != nil || k < 0 || k >= len(s.engines) || strconv.Itoa(k) != ks {
		return "", 0, false
	}
	return t, k, true
}

// Authenticate returns the player of a session token, read in the token's
// shard. Errors as [Engine.Authenticate].
func (s *Shards) Authenticate(ctx context.Context, token string) (Player, error) {
	if len(s.engines) == 1 {
		return s.engines[0].Authenticate(ctx, token)
	}
	t, k, ok := s.tokenShard(token)
	if !ok {
		// The engine's refusal, with its message (a blank or malformed token).
		return s.engines[0].Authenticate(ctx, cutToken(token))
	}
	p, err := s.engines[k].Authenticate(ctx, t)
	if err == nil {
		s.homes.put(p.ID, k)
	}
	return p, err
}

// cutToken makes a token without a shard fail the engine's length check
// unless it is blank.
func cutToken(token string) string {
	if token == "" {
		return ""
	}
	return "?"
}

// SignOut revokes a session token in its shard; an unknown one is a no-op.
func (s *Shards) SignOut(ctx context.Context, token string) error {
	if len(s.engines) == 1 {
		return s.engines[0].SignOut(ctx, token)
	}
	t, k, ok := s.tokenShard(token)
	if !ok {
		return nil
	}
	return s.engines[k].SignOut(ctx, t)
}

// Home returns the home shard of a player: the one shard holding its
// record, sessions, wallet and ledger. A player the process has not met is
// looked for in every shard. It returns a [*NotFoundError] for an unknown
// player.
func (s *Shards) Home(ctx context.Context, player string) (int, error) {
	if len(s.engines) == 1 {
		return 0, nil
	}
	if k, ok := s.homes.get(player); ok {
		return k, nil
	}
	if err := checkID(player, BrandPlayer); err != nil {
		return 0, err
	}
	for k, e := range s.engines {
		_, err := e.Player(ctx, player)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		s.homes.put(player, k)
		return k, nil
	}
	return 0, notFound("player", player)
}

// home returns the engine of a player's home shard.
func (s *Shards) home(ctx context.Context, player string) (*Engine, error) {
	k, err := s.Home(ctx, player)
	if err != nil {
		return nil, err
	}
	return s.engines[k], nil
}

// Player returns a player's record from its home shard.
func (s *Shards) Player(ctx context.Context, id string) (Player, error) {
	e, err := s.home(ctx, id)
	if err != nil {
		return Player{}, err
	}
	return e.Player(ctx, id)
}

// FindPlayers returns up to limit players whose name holds query, from
// every shard (shard 0's first). Errors as [Engine.FindPlayers].
func (s *Shards) FindPlayers(ctx context.Context, query string, limit int) ([]Player, error) {
	if len(s.engines) == 1 {
		return s.engines[0].FindPlayers(ctx, query, limit)
	}
	var out []Player
	for k, e := range s.engines {
		ps, err := e.FindPlayers(ctx, query, limit)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			s.homes.put(p.ID, k)
		}
		out = append(out, ps...)
	}
	if limit < 1 {
		limit = 20
	}
	return out[:min(len(out), limit)], nil
}

// PlayerByName returns the player whose id is who, or else whose name is
// who, looked for in every shard. Errors as [Engine.PlayerByName].
func (s *Shards) PlayerByName(ctx context.Context, who string) (Player, error) {
	if len(s.engines) == 1 {
		return s.engines[0].PlayerByName(ctx, who)
	}
	who = strings.TrimSpace(who)
	if strings.HasPrefix(who, BrandPlayer) {
		return s.Player(ctx, who)
	}
	var found []Player
	for k, e := range s.engines {
		p, err := e.PlayerByName(ctx, who)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Player{}, err
		}
		s.homes.put(p.ID, k)
		found = append(found, p)
	}
	switch len(found) {
	case 0:
		return Player{}, notFound("player", who)
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, p := range found {
		ids[i] = p.ID
	}
	return Player{}, badArg("player", fmt.Sprintf("%d players are named %q: give an id (%s)", len(found), who, strings.Join(ids, ", ")))
}

// Wallet returns a player's wallet, from its home shard.
func (s *Shards) Wallet(ctx context.Context, player string) (Wallet, error) {
	e, err := s.home(ctx, player)
	if err != nil {
		return Wallet{}, err
	}
	return e.Wallet(ctx, player)
}

// Grant credits a player's wallet in its home shard; as [Engine.Grant].
func (s *Shards) Grant(ctx context.Context, player string, c Currency, amount int64) (Wallet, error) {
	e, err := s.home(ctx, player)
	if err != nil {
		return Wallet{}, err
	}
	return e.Grant(ctx, player, c, amount)
}

// Convert converts diamonds in a player's home shard; as [Engine.Convert].
func (s *Shards) Convert(ctx context.Context, player string, diamonds int64) (Wallet, error) {
	e, err := s.home(ctx, player)
	if err != nil {
		return Wallet{}, err
	}
	return e.Convert(ctx, player, diamonds)
}

// Ledger returns a player's ledger rows from its home shard; as
// [Engine.Ledger].
func (s *Shards) Ledger(ctx context.Context, player string, limit int) ([]LedgerRow, error) {
	e, err := s.home(ctx, player)
	if err != nil {
		return nil, err
	}
	return e.Ledger(ctx, player, limit)
}

// Join joins a player to a room of any shard ([Engine.Join] in the room's
// shard, with the player's record read in their home shard): the member
// record lives with the room, the wallet stays home (docs/codemojex.md,
// "Wallets across shards").
func (s *Shards) Join(ctx context.Context, player, room string) (Joined, error) {
	if len(s.engines) == 1 {
		return s.engines[0].Join(ctx, player, room)
	}
	if err := checkID(room, BrandRoom); err != nil {
		return Joined{}, err
	}
	h, err := s.Home(ctx, player)
	if err != nil {
		return Joined{}, err
	}
	k := RoomShard(room, len(s.engines))
	var j Joined
	if k == h {
		j, err = s.engines[h].Join(ctx, player, room)
	} else {
		var p Player
		if p, err = s.engines[h].Player(ctx, player); err != nil {
			return Joined{}, err
		}
		j, err = s.engines[k].joinAs(ctx, p, room)
	}
	if err == nil {
		s.games.put(j.Game, k)
	}
	return j, err
}

// Submit submits a guess of a player in a game of any shard. In the
// player's home shard it is [Engine.Submit] there: one transaction charges
// it. In another shard it is played in two steps keyed by the guess: the
// fee debited against a hold at home, then the guess accepted and recorded
// in the game's shard, paid by the hold (docs/codemojex.md, "Wallets
// across shards"). Errors as [Engine.Submit].
func (s *Shards) Submit(ctx context.Context, player, game string, codes []string) (Receipt, error) {
	if len(s.engines) == 1 {
		return s.engines[0].Submit(ctx, player, game, codes)
	}
	if err := checkID(game, BrandGame); err != nil {
		return Receipt{}, err
	}
	h, err := s.Home(ctx, player)
	if err != nil {
		return Receipt{}, err
	}
	k, err := s.gameShard(ctx, game)
	if err != nil {
		return Receipt{}, err
	}
	var rc Receipt
	if k == h {
		rc, err = s.engines[h].Submit(ctx, player, game, codes)
	} else {
		rc, err = s.submitAcross(ctx, h, k, player, game, codes)
	}
	if err == nil {
		s.guesses.put(rc.Guess, k) // its reads go to its shard
	}
	return rc, err
}

// Standing returns a player's standing in a game, from the game's shard;
// as [Engine.Standing].
func (s *Shards) Standing(ctx context.Context, game, player string) (Membership, bool, error) {
	e, err := s.ForGame(ctx, game)
	if errors.Is(err, ErrNotFound) {
		return Membership{}, false, nil
	}
	if err != nil {
		return Membership{}, false, err
	}
	return e.Standing(ctx, game, player)
}

// Guesses returns a player's guesses (each recorded in the shard of its
// game): those of their home shard, then the others' looked for in every
// other shard; as [Engine.Guesses].
func (s *Shards) Guesses(ctx context.Context, player string, ids []string) ([]Guess, error) {
	h, err := s.Home(ctx, player)
	if err != nil {
		return nil, err
	}
	out, err := s.engines[h].Guesses(ctx, player, ids)
	if err != nil || len(out) == len(ids) {
		return out, err
	}
	found := make(map[string]bool, len(out))
	for _, g := range out {
		found[g.ID] = true
	}
	for k, e := range s.engines {
		var rest []string
		for _, id := range ids {
			if !found[id] {
				rest = append(rest, id)
			}
		}
		if k == h || len(rest) == 0 {
			continue
		}
		more, err := e.Guesses(ctx, player, rest)
		if err != nil {
			return nil, err
		}
		for _, g := range more {
			found[g.ID] = true
		}
		out = append(out, more...)
	}
	return out, nil
}

// GuessOf returns one of a player's guesses, from the shard it was
// submitted to when this process submitted it, else from their home shard
// or else the other shards; as [Engine.GuessOf].
func (s *Shards) GuessOf(ctx context.Context, player, id string) (Guess, error) {
	if k, ok := s.guesses.get(id); ok {
		return s.engines[k].GuessOf(ctx, player, id)
	}
	h, err := s.Home(ctx, player)
	if err != nil {
		return Guess{}, err
	}
	g, err := s.engines[h].GuessOf(ctx, player, id)
	if !errors.Is(err, ErrNotFound) {
		return g, err
	}
	for k, e := range s.engines {
		if k == h {
			continue
		}
		if g, err := e.GuessOf(ctx, player, id); !errors.Is(err, ErrNotFound) {
			return g, err
		}
	}
	return Guess{}, err
}

// ForGame returns the engine of the shard holding a game: the shard of its
// room, remembered once found (a game not met yet is looked for in every
// shard). It returns a [*NotFoundError] for an unknown game.
func (s *Shards) ForGame(ctx context.Context, game string) (*Engine, error) {
	k, err := s.gameShard(ctx, game)
	if err != nil {
		return nil, err
	}
	return s.engines[k], nil
}

// gameShard returns the shard holding a game (see [Shards.ForGame]).
func (s *Shards) gameShard(ctx context.Context, game string) (int, error) {
	if len(s.engines) == 1 {
		return 0, nil
	}
	if k, ok := s.games.get(game); ok {
		return k, nil
	}
	if err := checkID(game, BrandGame); err != nil {
		return 0, err
	}
	for k, e := range s.engines {
		_, err := e.Game(ctx, game)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		s.games.put(game, k)
		return k, nil
	}
	return 0, notFound("game", game)
}

// Game returns a game's public view from its shard; as [Engine.Game].
func (s *Shards) Game(ctx context.Context, id string) (Game, error) {
	e, err := s.ForGame(ctx, id)
	if err != nil {
		return Game{}, err
	}
	return e.Game(ctx, id)
}

// Members returns a game's members from its shard; as [Engine.Members].
func (s *Shards) Members(ctx context.Context, game string) ([]Membership, error) {
	e, err := s.ForGame(ctx, game)
	if err != nil {
		return nil, err
	}
	return e.Members(ctx, game)
}

// Close closes a game in its shard; as [Engine.Close].
func (s *Shards) Close(ctx context.Context, game, reason string) (Settlement, error) {
	e, err := s.ForGame(ctx, game)
	if err != nil {
		return Settlement{}, err
	}
	return e.Close(ctx, game, reason)
}

// Sweep runs [Engine.Sweep] on every shard in turn and adds up what they
// did.
func (s *Shards) Sweep(ctx context.Context) (SweepResult, error) {
	if len(s.engines) == 1 {
		return s.engines[0].Sweep(ctx)
	}
	var sum SweepResult
	for _, e := range s.engines {
		r, err := e.Sweep(ctx)
		sum.Closed += r.Closed
		sum.Settled += r.Settled
		if err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// CreateRoomIn creates a waiting room in shard k: ids are minted until one
// routes there (about Len mints). Errors as [Engine.CreateRoom], and an
// [*echomq.ArgumentError] for k outside [0, Len).
func (s *Shards) CreateRoomIn(ctx context.Context, spec RoomSpec, k int) (Room, error) {
	if k < 0 || k >= len(s.engines) {
		return Room{}, badArg("shard", fmt.Sprintf("must lie in [0, %d)", len(s.engines)))
	}
	home := s.engines[0]
	if err := home.checkSpec(&spec); err != nil {
		return Room{}, err
	}
	for {
		rid, err := home.mint(ctx, BrandRoom)
		if err != nil {
			return Room{}, err
		}
		if RoomShard(rid, len(s.engines)) == k {
			return s.engines[k].createRoom(ctx, spec, rid)
		}
	}
}

// Set returns an emoji set by name; every shard has the same sets.
func (s *Shards) Set(name string) (*rules.Set, error) { return s.engines[0].Set(name) }

// SetNames lists the emoji sets; every shard has the same sets.
func (s *Shards) SetNames() []string { return s.engines[0].SetNames() }

// Now is the game's clock.
func (s *Shards) Now() time.Time { return s.engines[0].Now() }

// OperatorSessionRevoked reports whether an operator session was signed
// out; operator sessions are kept in shard 0.
func (s *Shards) OperatorSessionRevoked(ctx context.Context, nonce string) (bool, error) {
	return s.engines[0].OperatorSessionRevoked(ctx, nonce)
}

// RevokeOperatorSession signs an operator session out, in shard 0.
func (s *Shards) RevokeOperatorSession(ctx context.Context, nonce string, exp time.Time) error {
	return s.engines[0].RevokeOperatorSession(ctx, nonce, exp)
}
