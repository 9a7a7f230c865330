package codemojex

import (
	"context"
	"strconv"

	"github.com/echomq/echomq"
)

// Wallet returns a player's balances. It returns a [*NotFoundError] for an
// unknown player.
func (e *Engine) Wallet(ctx context.Context, player string) (Wallet, error) {
	if err := checkID(player, BrandPlayer); err != nil {
		return Wallet{}, err
	}
	w, ok, err := readJSON[Wallet](ctx, e, tableWallets, player)
	if err != nil {
		return Wallet{}, err
	}
	if !ok {
		return Wallet{}, notFound("player", player)
	}
	return w, nil
}

// Grant credits amount of currency to a player (an operator's grant),
// books a "grant" ledger row and returns the new balances. It returns an
// [*echomq.ArgumentError] for an amount outside 1..[MaxAmount] or a bad
// currency and a [*NotFoundError] for an unknown player; nothing is written
// then.
func (e *Engine) Grant(ctx context.Context, player string, c Currency, amount int64) (Wallet, error) {
	if _, err := ParseCurrency(string(c)); err != nil {
		return Wallet{}, err
	}
	if amount < 1 || amount > MaxAmount {
		return Wallet{}, badArg("amount", "must be 1.."+strconv.Itoa(MaxAmount))
	}
	if err := checkID(player, BrandPlayer); err != nil {
		return Wallet{}, err
	}
	var out Wallet
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		w, ok, err := getJSON[Wallet](ctx, t, tableWallets, player)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("player", player)
		}
		if w.Of(c)+amount > 1<<53 {
			return badArg("amount", "the balance would overflow")
		}
		w = w.add(c, amount)
		if err := t.put(tableWallets, player, w); err != nil {
			return err
		}
		out = w
		return t.ledger(ctx, player, c, amount, w.Of(c), ReasonGrant, "operator")
	})
	return out, err
}

// Convert turns diamonds into keys at [DiamondsPerKey] to 1 and books two
// "convert" ledger rows with one reference. It returns an
// [*echomq.ArgumentError] for an amount that is not a positive multiple of
// DiamondsPerKey, an [*InsufficientError] when the player holds fewer
// diamonds, and a [*NotFoundError] for an unknown player; nothing is
// written then.
func (e *Engine) Convert(ctx context.Context, player string, diamonds int64) (Wallet, error) {
	if diamonds < DiamondsPerKey || diamonds%DiamondsPerKey != 0 || diamonds > MaxAmount {
		return Wallet{}, badArg("diamonds", "must be a positive multiple of "+strconv.Itoa(DiamondsPerKey))
	}
	if err := checkID(player, BrandPlayer); err != nil {
		return Wallet{}, err
	}
	ref, err := e.mint(ctx, BrandTxn)
	if err != nil {
		return Wallet{}, err
	}
	var out Wallet
	err = e.update(ctx, func(ctx context.Context, t *txn) error {
		w, ok, err := getJSON[Wallet](ctx, t, tableWallets, player)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("player", player)
		}
		if w, err = credit(w, Diamonds, -diamonds); err != nil {
			return err
		}
		w = w.add(Keys, diamonds/DiamondsPerKey)
		if err := t.put(tableWallets, player, w); err != nil {
			return err
		}
		out = w
		if err := t.ledger(ctx, player, Diamonds, -diamonds, w.Diamonds, ReasonConvert, ref); err != nil {
			return err
		}
		return t.ledger(ctx, player, Keys, diamonds/DiamondsPerKey, w.Keys, ReasonConvert, ref)
	})
	return out, err
}

// Ledger returns a player's newest ledger rows, newest first, at most
// limit (1..1000), looking through at most the newest 100 000 rows of the
// ledger.
func (e *Engine) Ledger(ctx context.Context, player string, limit int) ([]LedgerRow, error) {
	if limit < 1 || limit > 1000 {
		return nil, badArg("limit", "must be 1..1000")
	}
	if err := checkID(player, BrandPlayer); err != nil {
		return nil, err
	}
	var rows []LedgerRow
	seen := 0
	for ev, err := range e.Stream(StreamLedger).Scan(ctx, echomq.All, &echomq.ScanOpts{Reverse: true}) {
		if err != nil {
			return nil, err
		}
		if seen++; seen > 100_000 {
			break
		}
		if ev.Fields.Value("player") != player {
			continue
		}
		rows = append(rows, ParseLedgerRow(ev.Fields))
		if len(rows) == limit {
			break
		}
	}
	return rows, nil
}

// ParseLedgerRow reads a ledger row from the fields of a ledger event.
func ParseLedgerRow(f echomq.Fields) LedgerRow {
	num := func(name string) int64 {
		n, _ := strconv.ParseInt(f.Value(name), 10, 64)
		return n
	}
	return LedgerRow{
		Txn:      f.Value("txn"),
		Player:   f.Value("player"),
		Currency: Currency(f.Value("currency")),
		Delta:    num("delta"),
		Balance:  num("balance"),
		Reason:   f.Value("reason"),
		Ref:      f.Value("ref"),
		AtMS:     num("at_ms"),
	}
}

// checkID refuses a string that is not an id of brand, before any I/O.
func checkID(s, brand string) error {
	id, err := echomq.ParseID(s)
	if err != nil {
		return notFound(kindOf(brand), s)
	}
	if id.Brand() != brand {
		return notFound(kindOf(brand), s)
	}
	return nil
}

func kindOf(brand string) string {
	switch brand {
	case BrandPlayer:
		return "player"
	case BrandRoom:
		return "room"
	case BrandGame:
		return "game"
	case BrandGuess:
		return "guess"
	}
	return "record"
}
