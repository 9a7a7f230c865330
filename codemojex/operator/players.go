package operator

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/echomq/echomq/codemojex"
)

// ledgerRows is how many of a player's newest ledger rows the page shows.
const ledgerRows = 10

// playerCard is a player as the players page shows them.
type playerCard struct {
	codemojex.Player
	Wallet codemojex.Wallet
	Ledger []codemojex.LedgerRow
}

// grantForm is the grant form as sent, shown again when refused.
type grantForm struct {
	Player, Currency, Amount string
}

// currencies are the grant form's choices.
var currencies = []codemojex.Currency{codemojex.Keys, codemojex.Clips, codemojex.Diamonds}

// Currencies lists the grant form's currencies.
func (p *page) Currencies() []codemojex.Currency { return currencies }

func (h *Handler) playersPage(w http.ResponseWriter, r *http.Request, s *session) {
	find := strings.TrimSpace(r.URL.Query().Get("player"))
	p := &page{Title: "Players", Session: s, Find: find, Grant: grantForm{Player: find, Currency: string(codemojex.Keys)}}
	status := http.StatusOK
	if find != "" && !strings.HasPrefix(find, codemojex.BrandPlayer) {
		// Not a player id: look the name up.
		ms, err := h.e.FindPlayers(r.Context(), find, 50)
		if err != nil {
			h.internal(w, r, s, "find players", err)
			return
		}
		p.Matches, p.Searched, p.Grant.Player = ms, true, ""
		if len(ms) == 1 {
			find, p.Grant.Player = ms[0].ID, ms[0].ID
		} else {
			find = ""
		}
	}
	if find != "" {
		c, err := h.card(r.Context(), find)
		if err != nil {
			st, msg, ok := refusal(err)
			if !ok {
				h.internal(w, r, s, "read the player", err)
				return
			}
			status, p.Error = st, strings.TrimSuffix(msg, " Nothing was changed.")
		}
		p.Player = c
	}
	h.render(w, r, status, "players", p)
}

// card reads a player, their wallet and their newest ledger rows.
func (h *Handler) card(ctx context.Context, id string) (*playerCard, error) {
	p, err := h.e.Player(ctx, id)
	if err != nil {
		return nil, err
	}
	wal, err := h.e.Wallet(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := h.e.Ledger(ctx, id, ledgerRows)
	if err != nil {
		return nil, err
	}
	return &playerCard{Player: p, Wallet: wal, Ledger: rows}, nil
}

// grant credits a player with the engine's own checks; the player's page
// then shows the wallet after it.
func (h *Handler) grant(w http.ResponseWriter, r *http.Request, s *session) {
	f := grantForm{
		Player: strings.TrimSpace(r.PostForm.Get("player")), Currency: r.PostForm.Get("currency"),
		Amount: strings.TrimSpace(r.PostForm.Get("amount")),
	}
	amount, err := strconv.ParseInt(f.Amount, 10, 64)
	if err != nil {
		h.refuseGrant(w, r, s, http.StatusBadRequest, f, "Invalid amount: must be a whole number. Nothing was changed.")
		return
	}
	// The player is an id or a name, as in the lookup above the form.
	var wal codemojex.Wallet
	pl, err := h.e.PlayerByName(r.Context(), f.Player)
	if err == nil {
		f.Player = pl.ID
		wal, err = h.e.Grant(r.Context(), f.Player, codemojex.Currency(f.Currency), amount)
	}
	if err != nil {
		status, msg, ok := refusal(err)
		if !ok {
			h.internal(w, r, s, "grant", err)
			return
		}
		h.refuseGrant(w, r, s, status, f, msg)
		return
	}
	h.log.Info("operator: granted", "player", f.Player, "currency", f.Currency, "amount", amount)
	h.accepted(w, r, "/op/players?player="+url.QueryEscape(f.Player), fmt.Sprintf("Granted %s to %s (%s): the wallet holds %s, %s, %s.",
		plural(amount, strings.TrimSuffix(f.Currency, "s"), f.Currency), pl.Name, f.Player, plural(wal.Keys, "key", "keys"), plural(wal.Clips, "clip", "clips"), plural(wal.Diamonds, "diamond", "diamonds")))
}

// refuseGrant shows the players page again with the form as sent, the
// refusal and, when the player exists, their unchanged wallet.
func (h *Handler) refuseGrant(w http.ResponseWriter, r *http.Request, s *session, status int, f grantForm, msg string) {
	p := &page{Title: "Players", Session: s, Find: f.Player, Grant: f, Error: msg}
	if f.Player != "" {
		if c, err := h.card(r.Context(), f.Player); err == nil {
			p.Player = c
		}
	}
	h.render(w, r, status, "players", p)
}
