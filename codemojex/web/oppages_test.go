package web_test

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
)

// operatorPages signs in to the operator pages and walks them: rooms,
// a player found by name, health, and the confirmation a close asks for.
func operatorPages(p *pass) {
	t, h, ctx := p.t, p.h, p.ctx
	bg := context.Background()
	room, err := h.e.CreateRoom(bg, codemojex.RoomSpec{Name: "Vault " + p.name, Set: "food", Mode: "blind", Duration: 2 * time.Hour, Prize: 1000, Fee: 2})
	require.NoError(t, err)
	pl, _, err := h.e.SignIn(bg, codemojex.Identity{Provider: "dev", Subject: "op_" + p.name})
	require.NoError(t, err)
	joined, err := h.e.Join(bg, pl.ID, room.ID)
	require.NoError(t, err)

	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/signin"),
		chromedp.WaitVisible(`#token`, chromedp.ByQuery),
	))
	p.check("op-signin")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SetValue(`#token`, operatorToken, chromedp.ByQuery),
		chromedp.Submit(`#token`, chromedp.ByQuery),
		chromedp.WaitVisible(`#rooms`, chromedp.ByQuery),
	))
	p.check("op-rooms")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/players?player="+url.QueryEscape("op_"+p.name)),
		chromedp.WaitVisible(`#wallet`, chromedp.ByQuery),
	))
	p.check("op-player")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/health"),
		chromedp.WaitVisible(`#health-title`, chromedp.ByQuery),
	))
	p.check("op-health")

	// "Close game now…" asks first; "No" leaves the game running.
	var ask string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/rooms"),
		chromedp.Click(fmt.Sprintf(`button[aria-label="Close game %s of Vault %s now…"]`, joined.Game, p.name), chromedp.ByQuery),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Text(`#confirm-title`, &ask, chromedp.ByQuery),
	))
	require.Equal(t, "Close game "+joined.Game+" of Vault "+p.name+" now?", ask)
	p.check("op-close-confirm")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`#keep-open`, chromedp.ByQuery),
		chromedp.WaitVisible(`#rooms`, chromedp.ByQuery),
	))
	g, err := h.e.Game(bg, joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusOpen, g.Status, "the game runs on")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(fmt.Sprintf(`button[aria-label="Close game %s of Vault %s now…"]`, joined.Game, p.name), chromedp.ByQuery),
		chromedp.WaitVisible(`#confirm-close`, chromedp.ByQuery),
		chromedp.Click(`#confirm-close`, chromedp.ByQuery),
		chromedp.WaitVisible(`#notice`, chromedp.ByQuery),
	))
	g, err = h.e.Game(bg, joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusSettled, g.Status)
	p.check("op-closed")
	require.NoError(t, chromedp.Run(ctx, chromedp.Submit(`form.signout button`, chromedp.ByQuery), chromedp.WaitVisible(`#token`, chromedp.ByQuery)))
}
