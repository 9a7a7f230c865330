package codemojex

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
)

// Settlement is what a game's close paid.
type Settlement struct {
	Game   string     `json:"game"`
	Room   string     `json:"room"`
	Mode   rules.Mode `json:"mode"`
	Reason string     `json:"reason"`
	// Prize is the game's prize; Paid what its winners received (the
	// whole prize, or 0 when nobody scored).
	Prize   int64    `json:"prize"`
	Paid    int64    `json:"paid"`
	Payouts []Payout `json:"payouts"`
	// Board ranks every player who scored above 0.
	Board   []BoardRow `json:"board"`
	Players int        `json:"players"`
	Guesses int        `json:"guesses"`
}

// Close closes an open game (an operator, or the sweep once its time is
// up) and settles it. A game closes exactly once whoever races to close it
// (a crack, the sweep, operators): the close is a transaction that moves an
// open game to closing and appends its game-closed (which refuses the
// game's later joins and guesses), and only the caller whose transaction did so gets
// the settlement without an error. Every other caller gets
// [ErrAlreadyClosed] (with the settlement when it is done), after helping
// an unfinished settlement to its end. It returns a [*NotFoundError] for an
// unknown game and an [*echomq.ArgumentError] for an unknown reason.
func (e *Engine) Close(ctx context.Context, game, reason string) (Settlement, error) {
	if err := checkID(game, BrandGame); err != nil {
		return Settlement{}, err
	}
	if reason != ReasonTimer && reason != ReasonOperator && reason != ReasonCrack {
		return Settlement{}, badArg("reason", strconv.Quote(reason)+" is not crack, timer or operator")
	}
	won := false
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		won = false
		g, ok, err := getJSON[gameRecord](ctx, t, tableGames, game)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("game", game)
		}
		if g.Status != StatusOpen {
			return nil
		}
		g.Status, g.Reason, g.ClosedMS = StatusClosing, reason, e.nowMS()
		won = true
		if err := t.put(tableGames, g.ID, g); err != nil {
			return err
		}
		// The close's event commits with the record: from here on the
		// game's joins and guesses are refused by their conditions.
		return t.appendClosed(ctx, g)
	})
	if err != nil {
		return Settlement{}, err
	}
	s, err := e.settle(ctx, game)
	if err != nil {
		return s, err
	}
	if !won {
		return s, fmt.Errorf("%w: game %s", ErrAlreadyClosed, game)
	}
	return s, nil
}

// settle pays a closing game's prize, resets its room and appends
// game-settled (and game-revealed for a blind game), in one transaction
// that only commits while the game is still closing; a settled game
// returns its settlement again. It makes sure of game-closed first (the
// close appended it with the record; a game closed before that rule gets
// it here, once), then reads the board: once a game is closing no guess
// is scored into it, and once game-closed is in the log nobody joins it
// and no guess is accepted, so the board is final.
func (e *Engine) settle(ctx context.Context, game string) (Settlement, error) {
	g, ok, err := readJSON[gameRecord](ctx, e, tableGames, game)
	if err != nil {
		return Settlement{}, err
	}
	if !ok {
		return Settlement{}, notFound("game", game)
	}
	switch g.Status {
	case StatusSettled:
		return settlementOf(g), nil
	case StatusOpen:
		return Settlement{}, fmt.Errorf("codemojex: settle game %s: still open", game)
	}
	// game-closed first: joins and guesses are decided on the game's
	// events, so the roster is final only once the close is among them.
	if err := e.ensureClosed(ctx, g); err != nil {
		return Settlement{}, err
	}
	members, err := e.members(ctx, g)
	if err != nil {
		return Settlement{}, err
	}
	bests := make([]rules.PlayerBest, 0, len(members))
	names := make(map[string]string, len(members))
	guesses := 0
	for _, m := range members {
		bests = append(bests, rules.PlayerBest{Player: m.Player, Best: m.Best, At: m.BestAt})
		names[m.Player] = m.Name
		guesses += m.Attempts
	}
	var payouts []Payout
	for _, p := range rules.Settle(g.Prize, bests) {
		payouts = append(payouts, Payout{Player: p.Player, Amount: p.Amount})
	}
	var board []Standing
	for _, b := range rules.Rank(bests) {
		board = append(board, Standing{Player: b.Player, Name: names[b.Player], Best: b.Best, At: b.At})
	}
	// The winners whose wallets live in another shard are paid there,
	// after the settlement, keyed by game and player.
	remote, err := e.remoteWinners(ctx, payouts)
	if err != nil {
		return Settlement{}, err
	}
	var out Settlement
	var final gameRecord
	err = e.update(ctx, func(ctx context.Context, t *txn) error {
		cur, ok, err := getJSON[gameRecord](ctx, t, tableGames, game)
		if err != nil {
			return err
		}
		final = cur
		if !ok || cur.Status != StatusClosing {
			out = settlementOf(cur)
			return nil
		}
		cur.Remote = remote
		final = cur
		final.Status = StatusSettled
		final.Payouts = payouts
		return e.settleIn(ctx, t, cur, payouts, board, len(members), guesses, &out)
	})
	if err != nil {
		return out, err
	}
	if err := e.payHome(ctx, &final); err != nil {
		// Settled: the sweep credits the prizes home.
		e.log.Warn("codemojex: credit prizes in the winners' home shards (the sweep retries)", "game", game, "err", err)
	}
	return out, nil
}

func (e *Engine) settleIn(ctx context.Context, t *txn, g gameRecord, payouts []Payout, board []Standing, players, guesses int, out *Settlement) error {
	wallets := make([]Wallet, len(payouts))
	for i, p := range payouts {
		if _, far := g.Remote[p.Player]; far {
			continue // credited in the player's home shard
		}
		w, ok, err := getJSON[Wallet](ctx, t, tableWallets, p.Player)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("player", p.Player)
		}
		wallets[i] = w.add(Diamonds, p.Amount)
	}
	r, rok, err := getJSON[Room](ctx, t, tableRooms, g.Room)
	if err != nil {
		return err
	}
	now := e.nowMS()
	g.Status, g.SettledMS, g.Payouts, g.Board, g.Players, g.Guesses = StatusSettled, now, payouts, board, players, guesses
	if err := t.put(tableGames, g.ID, g); err != nil {
		return err
	}
	if rok && r.Game == g.ID {
		r.Status, r.Game = RoomWaiting, ""
		if err := t.put(tableRooms, r.ID, r); err != nil {
			return err
		}
	}
	var paid int64
	for i, p := range payouts {
		paid += p.Amount
		if _, far := g.Remote[p.Player]; far {
			continue
		}
		if err := t.put(tableWallets, p.Player, wallets[i]); err != nil {
			return err
		}
	}
	top := 0
	if len(board) > 0 {
		top = board[0].Best
	}
	winners, _ := json.Marshal(nonNil(payouts))
	if _, err := t.append(ctx, StreamGameSettled, "game", g.ID, "room", g.Room, "mode", string(g.Mode), "reason", g.Reason,
		"prize", itoa(g.Prize), "paid", itoa(paid), "winners", string(winners), "players", strconv.Itoa(players),
		"guesses", strconv.Itoa(guesses), "best", strconv.Itoa(top), "started_ms", itoa(g.StartedMS), "settled_ms", itoa(now)); err != nil {
		return err
	}
	if g.Mode.Committed() {
		b, _ := json.Marshal(nonNil(board))
		if _, err := t.append(ctx, StreamGameRevealed, "game", g.ID, "room", g.Room, "secret", g.Secret, "salt", g.Salt,
			"commitment", g.Commitment, "board", string(b)); err != nil {
			return err
		}
	}
	// The ledger comes last in the lock order of the streams.
	for i, p := range payouts {
		if _, far := g.Remote[p.Player]; far {
			continue
		}
		if err := t.ledger(ctx, p.Player, Diamonds, p.Amount, wallets[i].Diamonds, ReasonPrize, g.ID); err != nil {
			return err
		}
	}
	*out = settlementOf(g)
	return nil
}

func settlementOf(g gameRecord) Settlement {
	s := Settlement{
		Game: g.ID, Room: g.Room, Mode: g.Mode, Reason: g.Reason, Prize: g.Prize, Payouts: nonNil(g.Payouts), Board: boardRows(g.Board),
		Players: g.Players, Guesses: g.Guesses,
	}
	for _, p := range g.Payouts {
		s.Paid += p.Amount
	}
	return s
}

// members reads the member records of a game, in join order: its first
// player from game-started, the others from player-joined since (the log is
// the roster).
func (e *Engine) members(ctx context.Context, g gameRecord) ([]member, error) {
	from, err := echomq.ParseEntryID(g.Started)
	if err != nil {
		return nil, fmt.Errorf("codemojex: game %s: %w", g.ID, err)
	}
	var players []string
	seen := map[string]bool{}
	names := map[string]string{}
	for _, name := range []string{StreamGameStarted, StreamPlayerJoined} {
		for ev, err := range e.Stream(name).Scan(ctx, echomq.Range{From: echomq.Inclusive(from)}, nil) {
			if err != nil {
				return nil, err
			}
			if p := ev.Fields.Value("player"); ev.Fields.Value("game") == g.ID && !seen[p] {
				seen[p] = true
				players = append(players, p)
				names[p] = ev.Fields.Value("name")
			}
			if name == StreamGameStarted {
				break
			}
		}
	}
	out := make([]member, 0, len(players))
	for _, p := range players {
		m, ok, err := readJSON[member](ctx, e, tableMembers, memberKey(g.ID, p))
		if err != nil {
			return nil, err
		}
		if !ok {
			// Joined (the event is the fact) but its member record was not
			// written yet: a member without a scored guess.
			m = member{Game: g.ID, Player: p, Name: names[p]}
		}
		out = append(out, m)
	}
	return out, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
