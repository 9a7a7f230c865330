package codemojex

import "strconv"

// Currency is one of a wallet's three balances.
type Currency string

const (
	// Keys pay for guesses in paid rooms.
	Keys Currency = "keys"
	// Clips pay for guesses in free rooms; they have no value.
	Clips Currency = "clips"
	// Diamonds are the prize currency; they convert to keys at
	// DiamondsPerKey to 1.
	Diamonds Currency = "diamonds"
)

// DiamondsPerKey is the conversion rate of diamonds into keys.
const DiamondsPerKey = 10

// MaxAmount bounds any single grant, fee or prize, far below overflow.
const MaxAmount = 1_000_000_000

// ParseCurrency returns the currency named s, or an
// [*echomq.ArgumentError].
func ParseCurrency(s string) (Currency, error) {
	switch c := Currency(s); c {
	case Keys, Clips, Diamonds:
		return c, nil
	}
	return "", badArg("currency", strconv.Quote(s)+" is not keys, clips or diamonds")
}

// Wallet is a player's balances; none is ever negative.
type Wallet struct {
	Keys     int64 `json:"keys"`
	Clips    int64 `json:"clips"`
	Diamonds int64 `json:"diamonds"`
}

// Of returns the balance of c.
func (w Wallet) Of(c Currency) int64 {
	switch c {
	case Keys:
		return w.Keys
	case Clips:
		return w.Clips
	case Diamonds:
		return w.Diamonds
	}
	return 0
}

// add returns w with delta added to c.
func (w Wallet) add(c Currency, delta int64) Wallet {
	switch c {
	case Keys:
		w.Keys += delta
	case Clips:
		w.Clips += delta
	case Diamonds:
		w.Diamonds += delta
	}
	return w
}

// LedgerRow is one row of the ledger stream: a balance change.
type LedgerRow struct {
	// Txn is the row's TXN id.
	Txn      string   `json:"txn"`
	Player   string   `json:"player"`
	Currency Currency `json:"currency"`
	// Delta is signed: a charge is negative.
	Delta int64 `json:"delta"`
	// Balance is the balance of Currency after the change.
	Balance int64 `json:"balance"`
	// Reason is grant, starter, guess, refund, prize or convert.
	Reason string `json:"reason"`
	// Ref is what the change is about: a guess, a game, a conversion.
	Ref string `json:"ref,omitempty"`
	// AtMS is when the row was written (unix milliseconds).
	AtMS int64 `json:"at_ms"`
}

// Ledger reasons.
const (
	ReasonGrant   = "grant"
	ReasonStarter = "starter"
	ReasonGuess   = "guess"
	ReasonRefund  = "refund"
	ReasonPrize   = "prize"
	ReasonConvert = "convert"
)
