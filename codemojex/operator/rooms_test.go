package operator_test

import (
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
)

// A room created through the form is the engine's room, listed on the
// page; the notice shows once.
func TestCreateRoom(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.signedIn()
	res := b.submit("/op/rooms", url.Values{
		"name": {"  Vault  "}, "set": {"food"}, "mode": {"blind"}, "duration": {"2h"},
		"prize": {"500"}, "fee": {"2"}, "free": {"1"}, "cells": {"18"},
	})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, "/op/rooms", res.location)

	rooms := h.rooms()
	require.Len(t, rooms, 1)
	r := rooms[0]
	require.Equal(t, codemojex.Room{
		ID: r.ID, Name: "Vault", Set: "food", Mode: rules.Blind, DurationMS: (2 * time.Hour).Milliseconds(),
		Prize: 500, Fee: 2, Free: true, Cells: 18, Status: codemojex.RoomWaiting, CreatedMS: r.CreatedMS,
	}, r)
	require.Len(t, h.events(codemojex.StreamRoomOpened), 1)

	page := b.get("/op/rooms")
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.body, `Room &#34;Vault&#34; created: `+r.ID+`.`)
	require.Contains(t, page.body, `id="room-`+r.ID+`"`)
	for _, s := range []string{`<td data-label="Set">food</td>`, `<td data-label="Mode">blind</td>`, "2 clips (free)", "500 diamonds", `<td data-label="Status">waiting</td>`, "2h0m0s", "18 cells"} {
		require.Contains(t, page.body, s)
	}
	require.NotContains(t, b.get("/op/rooms").body, "created: ", "the notice shows once")

	// Empty numbers and duration are the engine's defaults.
	res = b.submit("/op/rooms", url.Values{"name": {"Plain"}, "set": {"animals"}, "mode": {"classic"}})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	rooms = h.rooms()
	require.Len(t, rooms, 2)
	require.Equal(t, int64(1), rooms[1].Fee)
	require.Equal(t, (24 * time.Hour).Milliseconds(), rooms[1].DurationMS)
	require.Equal(t, codemojex.Keys, rooms[1].Currency())
}

// A spec the engine (or the form) refuses is shown with its reason and a
// 4xx; the form keeps what was sent and no room is made.
func TestCreateRoomRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.signedIn()
	good := url.Values{"name": {"Vault"}, "set": {"food"}, "mode": {"classic"}, "duration": {"2h"}, "prize": {"500"}, "fee": {"2"}, "cells": {"0"}}
	for _, tc := range []struct {
		name, field, value, want string
	}{
		{"empty name", "name", "   ", "Invalid name: must be 1 to 64 printable characters"},
		{"long name", "name", string(make([]byte, 65)), "Invalid name"},
		{"unknown set", "set", "nope", `Invalid set: &#34;nope&#34; is not an emoji set`},
		{"unknown mode", "mode", "loud", `Invalid mode: &#34;loud&#34; is not classic or blind`},
		{"duration not a duration", "duration", "soon", "Invalid duration: &#34;soon&#34; is not a duration: write it like 90m, 1h30m or 35h."},
		{"duration zero", "duration", "0s", "Invalid duration: 0s is too short: a game runs 1s to 720h (such as 3m or 1h)."},
		{"duration negative", "duration", "-1h", "Invalid duration: -1h is too short"},
		{"duration too short", "duration", "500ms", "Invalid duration: 500ms is too short: a game runs 1s to 720h"},
		{"duration too long", "duration", "721h", "Invalid duration: 721h is too long: a game runs 1s to 720h"},
		{"prize negative", "prize", "-1", "Invalid prize: must be 0..1000000000"},
		{"prize too big", "prize", "1000000001", "Invalid prize"},
		{"prize not a number", "prize", "lots", "Invalid prize: must be a whole number"},
		{"fee too big", "fee", "1001", "Invalid fee: must be 1..1000"},
		{"fee negative", "fee", "-3", "Invalid fee: must be 1..1000"},
		{"fee fractional", "fee", "1.5", "Invalid fee: must be a whole number"},
		{"cells too few", "cells", "5", "Invalid cells: must be 0 (the whole set) or 6.."},
		{"cells too many", "cells", "1000", "Invalid cells"},
		{"cells not a number", "cells", "x", "Invalid cells: must be a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{}
			maps.Copy(form, good)
			form.Set(tc.field, tc.value)
			res := b.submit("/op/rooms", form)
			require.Equal(t, http.StatusBadRequest, res.status, res.body)
			require.Contains(t, res.body, tc.want)
			require.Contains(t, res.body, "Nothing was changed.")
			require.Contains(t, res.body, `role="alert"`)
			if tc.field != "name" {
				require.Contains(t, res.body, `value="Vault"`, "the form keeps what was sent")
			}
			require.Empty(t, h.rooms())
		})
	}
	require.Empty(t, h.events(codemojex.StreamRoomOpened))
}

// "Close game now" closes a running game and settles it: the prize goes
// to the best player, the room waits again. A second close is a 409.
func TestCloseGame(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	p := h.player("alice")
	room := h.room(classicRoom)
	joined, err := h.e.Join(ctx, p.ID, room.ID)
	require.NoError(t, err)
	_, err = h.e.Grant(ctx, p.ID, codemojex.Keys, 5)
	require.NoError(t, err)
	// The secret with its first two emoji swapped: 560 points, not a crack.
	s := h.secret(joined.Game)
	s[0], s[1] = s[1], s[0]
	rc, err := h.e.Submit(ctx, p.ID, joined.Game, s)
	require.NoError(t, err)
	sc, err := h.e.Score(ctx, rc.Guess)
	require.NoError(t, err)
	require.Equal(t, 560, sc.Points)

	b := h.signedIn()
	page := b.get("/op/rooms")
	require.Contains(t, page.body, `action="/op/games/`+joined.Game+`/close"`)
	require.Contains(t, page.body, joined.Game+" (open, ends ")
	require.Contains(t, page.body, `aria-label="Close game `+joined.Game+` of Animal Farm now…"`)

	// One click asks first: the rooms page's button leads to a
	// confirmation, and a POST without it only shows that confirmation.
	ask := b.get("/op/games/" + joined.Game + "/close")
	require.Equal(t, http.StatusOK, ask.status, ask.body)
	require.Contains(t, ask.body, "Close game "+joined.Game+" of Animal Farm now?")
	require.Contains(t, ask.body, `name="confirm" value="yes"`)
	require.Contains(t, ask.body, `href="/op/rooms" id="keep-open"`)
	res := b.submit("/op/games/"+joined.Game+"/close", url.Values{})
	require.Equal(t, http.StatusOK, res.status, res.body)
	require.Contains(t, res.body, "Yes, close it and pay the prize")
	g, err := h.e.Game(ctx, joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusOpen, g.Status, "nothing closed without the confirmation")

	res = b.submit("/op/games/"+joined.Game+"/close", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, "/op/rooms", res.location)
	page = b.get("/op/rooms")
	require.Contains(t, page.body, "Game "+joined.Game+" closed: 300 of 300 diamonds paid to 1 winner; 1 player, 1 guess.")
	require.NotContains(t, page.body, "Close game now")

	g, err = h.e.Game(ctx, joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusSettled, g.Status)
	require.Equal(t, codemojex.ReasonOperator, g.Reason)
	require.Equal(t, int64(300), h.wallet(p.ID).Diamonds)
	r, err := h.e.Room(ctx, room.ID)
	require.NoError(t, err)
	require.Equal(t, codemojex.RoomWaiting, r.Status)
	require.Equal(t, 1, r.Games)
	settled := len(h.events(codemojex.StreamGameSettled))
	require.Equal(t, 1, settled)

	for _, tc := range []struct {
		game   string
		status int
		want   string
	}{
		{joined.Game, http.StatusConflict, "Game " + joined.Game + " was closed already (operator): nothing was changed."},
		{"GAM0000000000x", http.StatusNotFound, `No game &#34;GAM0000000000x&#34;. Nothing was changed.`},
		{"bogus", http.StatusNotFound, `No game &#34;bogus&#34;`},
		{room.ID, http.StatusNotFound, "No game"},
	} {
		res := b.submit("/op/games/"+tc.game+"/close", url.Values{"confirm": {"yes"}})
		require.Equal(t, tc.status, res.status, res.body)
		require.Contains(t, res.body, tc.want)
	}
	require.Len(t, h.events(codemojex.StreamGameSettled), settled)
	require.Equal(t, int64(300), h.wallet(p.ID).Diamonds)
	require.Contains(t, b.get("/op/rooms").body, ">"+strconv.Itoa(1)+"</td>", "games played")
}
