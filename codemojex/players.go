package codemojex

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/echomq/echomq/tables"
)

// Identity is who signs in, as a sign-in provider vouches for them: the
// dev sign-in by name, or (on another surface) a verified Telegram user.
// The pair Provider, Subject names one player for good.
type Identity struct {
	// Provider names the sign-in method: lowercase letters, 1 to 16
	// ("dev", "telegram").
	Provider string
	// Subject is the provider's id of the person ([A-Za-z0-9._-], 1 to
	// 64): a name for dev, a user id for Telegram.
	Subject string
	// Name is the display name shown on boards (1 to 32 printable
	// characters); defaults to Subject.
	Name string
}

var (
	providerRE = regexp.MustCompile(`^[a-z]{1,16}$`)
	subjectRE  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
)

// Validate returns the [*echomq.ArgumentError] SignIn refuses id with.
func (id Identity) Validate() error {
	if !providerRE.MatchString(id.Provider) {
		return badArg("provider", "must be 1 to 16 lowercase letters")
	}
	if !subjectRE.MatchString(id.Subject) {
		return badArg("name", "must be 1 to 64 letters, digits, '.', '_' or '-'")
	}
	if id.Name != "" {
		n := utf8.RuneCountInString(id.Name)
		if !utf8.ValidString(id.Name) || n > 32 || strings.TrimSpace(id.Name) == "" || strings.IndexFunc(id.Name, unicode.IsControl) >= 0 {
			return badArg("display name", "must be 1 to 32 printable characters")
		}
	}
	return nil
}

// SignIn resolves id to its player, creating the player (with the starter
// balances of [Config]) at the first sign-in, and issues a session token
// for the bearer header. It returns an [*echomq.ArgumentError] for a bad
// identity.
func (e *Engine) SignIn(ctx context.Context, id Identity) (Player, string, error) {
	if err := id.Validate(); err != nil {
		return Player{}, "", err
	}
	if id.Name == "" {
		id.Name = id.Subject
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Player{}, "", err
	}
	token := hex.EncodeToString(raw[:])
	idKey := id.Provider + "." + id.Subject
	pid, err := e.mint(ctx, BrandPlayer)
	if err != nil {
		return Player{}, "", err
	}
	fresh := Player{ID: pid, Name: id.Name, CreatedMS: e.nowMS()}
	var out Player
	var unknown bool
	signIn := func(ctx context.Context, t *txn) error {
		unknown = false
		pid, known, err := getJSON[string](ctx, t, tableIdentities, idKey)
		if err != nil {
			return err
		}
		if !known && fresh.ID == "" {
			// A first sign-in: which player it makes is decided below.
			unknown = true
			return nil
		}
		p := fresh
		if known {
			var ok bool
			if p, ok, err = getJSON[Player](ctx, t, tablePlayers, pid); err != nil {
				return err
			} else if !ok {
				return notFound("player", pid)
			}
		}
		if err := t.put(tableSessions, tokenKey(token), session{Player: p.ID, Name: p.Name, CreatedMS: p.CreatedMS, IssuedMS: e.nowMS()}); err != nil {
			return err
		}
		out = p
		if known {
			return nil
		}
		w := Wallet{Keys: e.cfg.StarterKeys, Clips: e.cfg.StarterClips}
		for _, err := range []error{t.put(tableIdentities, idKey, p.ID), t.put(tablePlayers, p.ID, p), t.put(tableWallets, p.ID, w)} {
			if err != nil {
				return err
			}
		}
		if w.Keys > 0 {
			if err := t.ledger(ctx, p.ID, Keys, w.Keys, w.Keys, ReasonStarter, "sign-in"); err != nil {
				return err
			}
		}
		if w.Clips > 0 {
			return t.ledger(ctx, p.ID, Clips, w.Clips, w.Clips, ReasonStarter, "sign-in")
		}
		return nil
	}
	// A known identity takes one transaction to sign in. A first one decides
	// its player by the rule "an identity makes one player"
	// (player-registered, see [Engine.register]); the transaction then
	// writes that player's records, once: the identity record it reads
	// makes a second writer (a concurrent or repeated first sign-in) only
	// issue its session.
	fresh.ID = ""
	err = e.update(ctx, signIn)
	if err == nil && unknown {
		fresh.ID = pid
		if fresh, err = e.register(ctx, id.Provider, id.Subject, fresh); err == nil {
			err = e.update(ctx, signIn)
		}
	}
	if err != nil {
		return Player{}, "", err
	}
	return out, token, nil
}

// Authenticate returns the player of a session token. An unknown, revoked
// or expired token returns [ErrUnauthorized].
func (e *Engine) Authenticate(ctx context.Context, token string) (Player, error) {
	if token == "" {
		return Player{}, fmt.Errorf("%w: sign in first, then send the header Authorization: Bearer <token>", ErrUnauthorized)
	}
	if len(token) != 64 {
		return Player{}, fmt.Errorf("%w: unknown or expired session", ErrUnauthorized)
	}
	s, ok, err := readJSON[session](ctx, e, tableSessions, tokenKey(token))
	if err != nil {
		return Player{}, err
	}
	if !ok || e.nowMS()-s.IssuedMS > e.cfg.SessionTTL.Milliseconds() {
		return Player{}, fmt.Errorf("%w: unknown or expired session", ErrUnauthorized)
	}
	if s.Name == "" {
		return e.Player(ctx, s.Player)
	}
	return Player{ID: s.Player, Name: s.Name, CreatedMS: s.CreatedMS}, nil
}

// SignOut revokes a session token; revoking an unknown one is a no-op.
func (e *Engine) SignOut(ctx context.Context, token string) error {
	if len(token) != 64 {
		return nil
	}
	return e.update(ctx, func(ctx context.Context, t *txn) error {
		return t.del(tableSessions, tokenKey(token))
	})
}

// Player returns a player's record, or a [*NotFoundError].
func (e *Engine) Player(ctx context.Context, id string) (Player, error) {
	if err := checkID(id, BrandPlayer); err != nil {
		return Player{}, err
	}
	p, ok, err := readJSON[Player](ctx, e, tablePlayers, id)
	if err != nil {
		return Player{}, err
	}
	if !ok {
		return Player{}, notFound("player", id)
	}
	return p, nil
}

// tokenKey is the record key of a session: the hash of its token, so the
// engine never stores a usable token.
func tokenKey(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// FindPlayers returns up to limit players whose name holds query (case
// folded), in the order the players table lists them, for an operator
// looking someone up. It reads the whole players table, so it is for
// operators, not for a hot path. A limit below 1 means 20; a blank query
// is an [*echomq.ArgumentError].
func (e *Engine) FindPlayers(ctx context.Context, query string, limit int) ([]Player, error) {
	query = strings.ToLower(strings.TrimSpace(query))
	if query == "" {
		return nil, badArg("query", "must not be blank")
	}
	if limit < 1 {
		limit = 20
	}
	var out []Player
	for rec, err := range tables.New(e.client, e.queue, tablePlayers).All(ctx) {
		if err != nil {
			return nil, err
		}
		var p Player
		if err := unmarshal(rec.Value, &p); err != nil {
			return nil, err
		}
		if strings.Contains(strings.ToLower(p.Name), query) {
			if out = append(out, p); len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// PlayerByName returns the player whose id is who, or else whose name is
// who (case folded), so an operator's tools take either. A name two
// players share is an [*echomq.ArgumentError] listing their ids; an
// unknown one a [*NotFoundError].
func (e *Engine) PlayerByName(ctx context.Context, who string) (Player, error) {
	who = strings.TrimSpace(who)
	if strings.HasPrefix(who, BrandPlayer) {
		return e.Player(ctx, who)
	}
	if who == "" {
		return Player{}, badArg("player", "must be a player id or name")
	}
	found, err := e.FindPlayers(ctx, who, 1000)
	if err != nil {
		return Player{}, err
	}
	var exact []Player
	for _, p := range found {
		if strings.EqualFold(p.Name, who) {
			exact = append(exact, p)
		}
	}
	switch len(exact) {
	case 0:
		return Player{}, notFound("player", who)
	case 1:
		return exact[0], nil
	}
	ids := make([]string, len(exact))
	for i, p := range exact {
		ids[i] = p.ID
	}
	return Player{}, badArg("player", fmt.Sprintf("%d players are named %q: give an id (%s)", len(exact), who, strings.Join(ids, ", ")))
}
