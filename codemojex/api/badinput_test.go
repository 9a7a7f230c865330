package api_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
)

// Each refused guess gets its status and a JSON error body with its code
// and message, and charges nothing.
func TestGuessErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	room := h.createRoom(map[string]any{"name": "Den", "duration": "1h"})
	member, broke, stranger := h.signIn("member", 5), h.signIn("broke", 0), h.signIn("stranger", 5)
	game, _ := h.join(member, room)
	h.join(broke, room)
	s := h.secret(game)
	dup := slices.Clone(s)
	dup[4] = dup[0]
	off := slices.Clone(s)
	off[1] = "9999"

	cases := []struct {
		name   string
		p      player
		game   string
		body   any
		status int
		code   string
		query  string
	}{
		{"wait not a duration", member, game, map[string]any{"codes": s}, 400, "bad_request", "?wait=soon"},
		{"wait above the longest", member, game, map[string]any{"codes": s}, 400, "bad_request", "?wait=1h"},
		{"wait below zero", member, game, map[string]any{"codes": s}, 400, "bad_request", "?wait=-1s"},
		{"duplicate code", member, game, map[string]any{"codes": dup}, 422, "bad_guess", ""},
		{"code off the keyboard", member, game, map[string]any{"codes": off}, 422, "bad_guess", ""},
		{"five codes", member, game, map[string]any{"codes": s[:5]}, 422, "bad_guess", ""},
		{"unknown emoji", member, game, map[string]any{"emojis": []string{"🚗", "🐶", "🐱", "🐭", "🐹", "🐰"}}, 422, "bad_guess", ""},
		{"codes and emojis", member, game, map[string]any{"codes": s, "emojis": []string{"🐶"}}, 400, "bad_request", ""},
		{"no balance", broke, game, map[string]any{"codes": s}, 402, "insufficient", ""},
		{"not a member", stranger, game, map[string]any{"codes": s}, 403, "not_member", ""},
		{"unknown game", member, "GAM0000000000z", map[string]any{"codes": s}, 404, "not_found", ""},
		{"not JSON", member, game, "codes=1", 400, "bad_request", ""},
		{"unknown field", member, game, map[string]any{"guess": s}, 400, "bad_request", ""},
		{"codes not a list", member, game, map[string]any{"codes": "0000"}, 400, "bad_request", ""},
		{"no session", player{}, game, map[string]any{"codes": s}, 401, "unauthorized", ""},
		{"bad session", player{Token: "nope"}, game, map[string]any{"codes": s}, 401, "unauthorized", ""},
		{"after expiry", member, game, map[string]any{"codes": s}, 409, "expired", ""},
	}
	balances := func() []codemojex.Wallet {
		var out []codemojex.Wallet
		for _, p := range []player{member, broke, stranger} {
			var b struct{ Balance codemojex.Wallet }
			h.call("GET", "/api/balance", p.Token, nil, 200, &b)
			out = append(out, b.Balance)
		}
		return out
	}
	// The message says what is wrong and where in the player's terms:
	// emoji, and places counted from 1.
	_, body := h.do("POST", "/api/games/"+game+"/guess", member.Token, map[string]any{"codes": s[:5]})
	require.Contains(t, string(body), "pick exactly 6 emoji (this guess has 5)")
	_, body = h.do("POST", "/api/games/"+game+"/guess", member.Token, map[string]any{"codes": dup})
	var refused struct {
		Error   struct{ Message string }
		Problem struct {
			Position, First int
			Emoji           string
		}
	}
	require.NoError(t, json.Unmarshal(body, &refused))
	require.Equal(t, 5, refused.Problem.Position)
	require.Equal(t, 1, refused.Problem.First)
	require.NotEmpty(t, refused.Problem.Emoji)
	require.Equal(t, refused.Problem.Emoji+" is in place 1 and again in place 5: each emoji may be used once", refused.Error.Message)
	require.NotContains(t, string(body), s[0], "no code the player never saw")
	before, ledger := balances(), len(h.events(codemojex.StreamLedger))
	for _, c := range cases {
		if c.name == "after expiry" {
			h.clock.add(time.Hour)
		}
		status, body := h.do("POST", "/api/games/"+c.game+"/guess"+c.query, c.p.Token, c.body)
		require.Equal(t, c.status, status, "%s: %s", c.name, body)
		var eb struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.Unmarshal(body, &eb), c.name)
		require.Equal(t, c.code, eb.Error.Code, c.name)
		require.NotEmpty(t, eb.Error.Message, c.name)
		require.Equal(t, before, balances(), "%s: nothing charged", c.name)
		require.Len(t, h.events(codemojex.StreamLedger), ledger, c.name)
	}
}

// The operator routes need the operator token; the player routes a
// session; bad operator input is a 400 that says why.
func TestGuards(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.signIn("p", 0)
	for _, c := range []struct {
		method, path, token string
		body                any
		status              int
	}{
		{"POST", "/api/op/rooms", "", map[string]any{"name": "x"}, 401},
		{"POST", "/api/op/rooms", p.Token, map[string]any{"name": "x"}, 401},
		{"POST", "/api/op/grant", "", map[string]any{"player": p.ID, "currency": "keys", "amount": 5}, 401},
		{"POST", "/api/op/games/GAM0000000000z/close", "", nil, 401},
		{"POST", "/api/op/rooms", opToken, map[string]any{"name": ""}, 400},
		{"POST", "/api/op/rooms", opToken, map[string]any{"name": "x", "duration": "soon"}, 400},
		{"POST", "/api/op/rooms", opToken, map[string]any{"name": "x", "set": "cars"}, 400},
		{"POST", "/api/op/grant", opToken, map[string]any{"player": p.ID, "currency": "gold", "amount": 5}, 400},
		{"POST", "/api/op/grant", opToken, map[string]any{"player": p.ID, "currency": "keys", "amount": -5}, 400},
		{"POST", "/api/op/grant", opToken, map[string]any{"player": "PLR0000000000z", "currency": "keys", "amount": 5}, 404},
		{"POST", "/api/op/games/GAM0000000000z/close", opToken, nil, 404},
		{"GET", "/api/me", "", nil, 401},
		{"GET", "/api/balance", "x", nil, 401},
		{"POST", "/api/rooms/ROM0000000000z/join", "", nil, 401},
		{"POST", "/api/rooms/ROM0000000000z/join", p.Token, nil, 404},
		{"GET", "/api/games/GAM0000000000z", "", nil, 404},
		{"GET", "/api/games/nonsense/leaderboard", "", nil, 404},
		{"GET", "/api/feed?window=forever", "", nil, 400},
		{"GET", "/api/results?day=today", "", nil, 400},
		{"POST", "/api/convert", p.Token, map[string]any{"diamonds": 15}, 400},
		{"POST", "/api/convert", p.Token, map[string]any{"diamonds": 20}, 402},
		{"POST", "/api/auth/dev", "", map[string]any{"name": "has space"}, 400},
		{"GET", "/api/nowhere", "", nil, 404},
	} {
		status, body := h.do(c.method, c.path, c.token, c.body)
		require.Equal(t, c.status, status, "%s %s: %s", c.method, c.path, body)
		var eb struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.Unmarshal(body, &eb))
		require.NotEmpty(t, eb.Error.Message)
	}
	// A revoked session fails on the next request.
	h.call("GET", "/api/me", p.Token, nil, 200, nil)
	h.call("POST", "/api/auth/signout", p.Token, nil, 204, nil)
	h.call("GET", "/api/me", p.Token, nil, 401, nil)
}

// An emoji of the set that this game's reduced keyboard leaves out is
// refused naming that emoji and its place, never a code.
func TestGuessEmojiOffKeyboard(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	room := h.createRoom(map[string]any{"name": "Small", "set": "animals", "cells": 12, "duration": "1h"})
	p := h.signIn("pat", 5)
	game, _ := h.join(p, room)
	var view struct {
		Game struct {
			Cells []struct{ Code, Glyph string }
		}
	}
	h.call("GET", "/api/games/"+game, "", nil, 200, &view)
	on := map[string]bool{}
	var emojis []string
	for _, c := range view.Game.Cells {
		on[c.Glyph] = true
		if len(emojis) < 6 {
			emojis = append(emojis, c.Glyph)
		}
	}
	var absent string
	for _, g := range []string{"🐶", "🐱", "🐭", "🐹", "🐰", "🦊", "🐻", "🐼", "🐨", "🐯", "🦁", "🐮", "🐷", "🐸", "🐵"} {
		if !on[g] {
			absent = g
			break
		}
	}
	require.NotEmpty(t, absent)
	emojis[2] = absent
	status, body := h.do("POST", "/api/games/"+game+"/guess", p.Token, map[string]any{"emojis": emojis})
	require.Equal(t, 422, status)
	require.Contains(t, string(body), absent+" in place 3 is not on this game's keyboard")
	require.NotContains(t, string(body), `code \"`)
}
