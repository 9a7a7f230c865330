package api

import (
	"errors"
	"fmt"
	"slices"

	"github.com/echomq/echomq/codemojex/rules"
)

// GuessProblem is the detail of a refused guess in the player's terms,
// added to a 422 bad_guess answer: Position counts from 1 (0 when the
// problem is the whole guess) and Emoji is the emoji at fault as the player
// saw it.
type GuessProblem struct {
	Position int    `json:"position,omitempty"`
	First    int    `json:"first,omitempty"`
	Emoji    string `json:"emoji,omitempty"`
}

// guessBody is a 422 answer: the error and the problem.
type guessBody struct {
	Error   ErrorDetail  `json:"error"`
	Problem GuessProblem `json:"problem"`
}

// playerTerms turns the rules' refusal of a guess (positions from 0,
// codes) into the player's: positions from 1, the emoji drawn for a code.
// glyph returns a code's emoji ("" when the set has none).
func playerTerms(ce *rules.CodesError, glyph func(string) string) (string, GuessProblem) {
	shown := func(code string) string {
		if g := glyph(code); g != "" {
			return g
		}
		return fmt.Sprintf("%q", code)
	}
	p := GuessProblem{Position: ce.Position + 1, Emoji: glyph(ce.Code)}
	switch {
	case errors.Is(ce.Reason, rules.ErrWrongCount):
		return fmt.Sprintf("pick exactly %d emoji (this guess has %d)", rules.CodeLength, ce.Count), GuessProblem{}
	case errors.Is(ce.Reason, rules.ErrDuplicateCode):
		p.First = ce.First + 1
		return fmt.Sprintf("%s is in place %d and again in place %d: each emoji may be used once", shown(ce.Code), p.First, p.Position), p
	case errors.Is(ce.Reason, rules.ErrUnknownCode):
		return fmt.Sprintf("%s in place %d is not on this game's keyboard", shown(ce.Code), p.Position), p
	case errors.Is(ce.Reason, rules.ErrMalformedCode):
		return fmt.Sprintf("place %d does not hold an emoji of this game", p.Position), GuessProblem{Position: p.Position}
	}
	return "this guess is not 6 different emoji of the keyboard", GuessProblem{}
}

// offKeyboard is the refusal of an emoji of the set that this game's
// keyboard does not offer, in the player's terms.
func offKeyboard(keyboard []string, codes, emojis []string) (string, GuessProblem, bool) {
	for i, c := range codes {
		if !slices.Contains(keyboard, c) {
			return fmt.Sprintf("%s in place %d is not on this game's keyboard", emojis[i], i+1), GuessProblem{Position: i + 1, Emoji: emojis[i]}, true
		}
	}
	return "", GuessProblem{}, false
}
