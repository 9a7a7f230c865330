package operator_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
)

// A grant through the form changes the wallet and books one ledger row;
// the player's page then shows the wallet after it.
func TestGrant(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.player("alice")
	b := h.signedIn()

	res := b.submit("/op/grant", url.Values{"player": {" " + p.ID + " "}, "currency": {"keys"}, "amount": {"50"}})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, "/op/players?player="+p.ID, res.location)
	require.Equal(t, codemojex.Wallet{Keys: 50}, h.wallet(p.ID))
	res = b.submit("/op/grant", url.Values{"player": {p.ID}, "currency": {"diamonds"}, "amount": {"7"}})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, codemojex.Wallet{Keys: 50, Diamonds: 7}, h.wallet(p.ID))

	evs := h.events(codemojex.StreamLedger)
	require.Len(t, evs, 2)
	row := codemojex.ParseLedgerRow(evs[0].Fields)
	require.Equal(t, codemojex.LedgerRow{
		Txn: row.Txn, Player: p.ID, Currency: codemojex.Keys, Delta: 50, Balance: 50,
		Reason: codemojex.ReasonGrant, Ref: "operator", AtMS: row.AtMS,
	}, row)

	page := b.get(res.location)
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.body, "Granted 7 diamonds to alice ("+p.ID+"): the wallet holds 50 keys, 0 clips, 7 diamonds.")
	require.Contains(t, page.body, `<dd id="keys">50</dd>`)
	require.Contains(t, page.body, `<dd id="diamonds">7</dd>`)
	require.Contains(t, page.body, "alice")
	require.Contains(t, page.body, "+50 keys")
	require.Contains(t, page.body, `value="`+p.ID+`"`, "the grant form names the player")

	// Looking up an unknown player says so.
	page = b.get("/op/players?player=PLR0000000000x")
	require.Equal(t, http.StatusNotFound, page.status)
	require.Contains(t, page.body, `No player &#34;PLR0000000000x&#34;.`)
	require.NotContains(t, page.body, `id="wallet"`)
	require.Equal(t, http.StatusOK, b.get("/op/players").status)
}

// A grant the engine refuses is shown with its reason and a 4xx; the
// wallet and the ledger stay as they were.
func TestGrantRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.player("alice")
	b := h.signedIn()
	require.Equal(t, http.StatusSeeOther, b.submit("/op/grant", url.Values{"player": {p.ID}, "currency": {"clips"}, "amount": {"3"}}).status)
	before := h.wallet(p.ID)
	for _, tc := range []struct {
		name, player, currency, amount string
		status                         int
		want                           string
	}{
		{"unknown player", "PLR0000000000x", "keys", "5", http.StatusNotFound, `No player &#34;PLR0000000000x&#34;. Nothing was changed.`},
		{"not a player id", "bob", "keys", "5", http.StatusNotFound, `No player &#34;bob&#34;`},
		{"a room id", "ROM0000000000x", "keys", "5", http.StatusNotFound, "No player"},
		{"no player", "", "keys", "5", http.StatusBadRequest, "Invalid player: must be a player id or name"},
		{"unknown currency", p.ID, "gold", "5", http.StatusBadRequest, `Invalid currency: &#34;gold&#34; is not keys, clips or diamonds`},
		{"zero", p.ID, "keys", "0", http.StatusBadRequest, "Invalid amount: must be 1..1000000000"},
		{"negative", p.ID, "keys", "-5", http.StatusBadRequest, "Invalid amount: must be 1..1000000000"},
		{"too much", p.ID, "keys", "1000000001", http.StatusBadRequest, "Invalid amount: must be 1..1000000000"},
		{"not a number", p.ID, "keys", "five", http.StatusBadRequest, "Invalid amount: must be a whole number"},
		{"empty", p.ID, "keys", "", http.StatusBadRequest, "Invalid amount: must be a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := b.submit("/op/grant", url.Values{"player": {tc.player}, "currency": {tc.currency}, "amount": {tc.amount}})
			require.Equal(t, tc.status, res.status, res.body)
			require.Contains(t, res.body, tc.want)
			require.Contains(t, res.body, `role="alert"`)
			if tc.player == p.ID {
				require.Contains(t, res.body, `<dd id="clips">3</dd>`, "the unchanged wallet")
				require.Contains(t, res.body, `value="`+tc.amount+`"`)
			}
			require.Equal(t, before, h.wallet(p.ID))
		})
	}
	require.Len(t, h.events(codemojex.StreamLedger), 1)
}

// The grant takes a player's name as well as an id, as the lookup does.
func TestGrantByName(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.player("Alice")
	b := h.signedIn()
	res := b.submit("/op/grant", url.Values{"player": {"alice"}, "currency": {"keys"}, "amount": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, "/op/players?player="+p.ID, res.location)
	require.Equal(t, codemojex.Wallet{Keys: 1}, h.wallet(p.ID))
	require.Contains(t, b.get(res.location).body, "Granted 1 key to Alice ("+p.ID+"): the wallet holds 1 key, 0 clips, 0 diamonds.")
}

// Players are found by part of their name: several matches are listed
// with links to their pages, one match shows its page, none says so.
func TestFindByName(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	alice, alina, bob := h.player("Alice"), h.player("alina"), h.player("bob")
	b := h.signedIn()

	page := b.get("/op/players?player=ALI")
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.body, `href="/op/players?player=`+alice.ID+`"`)
	require.Contains(t, page.body, `href="/op/players?player=`+alina.ID+`"`)
	require.NotContains(t, page.body, bob.ID)
	require.NotContains(t, page.body, `id="wallet"`)

	page = b.get("/op/players?player=bo")
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.body, `id="wallet"`)
	require.Contains(t, page.body, `value="`+bob.ID+`"`, "the grant form names the one match")

	page = b.get("/op/players?player=zed")
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.body, `id="no-match"`)
	require.NotContains(t, page.body, `id="wallet"`)
}
