package rules

import (
	"cmp"
	"slices"
)

// PlayerBest is a player's standing in a game: the best total of their
// guesses and when they first reached it. Settle and Rank accept one entry
// per player or one per guess; they keep each player's best.
type PlayerBest struct {
	// Player identifies the player (a PLR id); "" entries are ignored.
	Player string
	// Best is the player's best total, 0..600. A player whose best is 0 is
	// not on the board and wins nothing.
	Best int
	// At orders achievements in time, lower is earlier: the unix
	// milliseconds or the snowflake of the guess that first scored Best.
	At int64
}

// Payout is what a winner receives, in diamonds.
type Payout struct {
	// Player is the winner's id, as given in PlayerBest.
	Player string
	// Amount is the diamonds credited, always > 0.
	Amount int64
}

// Rank returns the board: one entry per player (their highest Best, with
// the earliest At among the entries that scored it), players with a best
// of 0 or an empty id left out, ordered by Best descending, then At
// ascending (who got there first), then Player ascending (so equal inputs
// always rank alike). The input is not modified.
func Rank(bests []PlayerBest) []PlayerBest {
	byPlayer := make(map[string]int, len(bests))
	board := make([]PlayerBest, 0, len(bests))
	for _, b := range bests {
		if b.Player == "" || b.Best <= 0 {
			continue
		}
		i, seen := byPlayer[b.Player]
		switch {
		case !seen:
			byPlayer[b.Player] = len(board)
			board = append(board, b)
		case b.Best > board[i].Best || b.Best == board[i].Best && b.At < board[i].At:
			board[i] = b
		}
	}
	slices.SortFunc(board, func(a, b PlayerBest) int {
		if c := cmp.Compare(b.Best, a.Best); c != 0 {
			return c
		}
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Player, b.Player)
	})
	return board
}

// Winners returns the players tied at the top of the board, in [Rank]
// order; none when nobody scored above 0.
func Winners(bests []PlayerBest) []PlayerBest {
	board := Rank(bests)
	n := 0
	for n < len(board) && board[n].Best == board[0].Best {
		n++
	}
	return board[:n]
}

// Settle splits prize winner-take-all: the top best total takes the whole
// prize; players tied at the top share it evenly, and the prize mod n
// diamonds left over go one each to the tied winners who reached the top
// score first (Rank order), so the whole prize is paid and no two shares
// differ by more than one. The sum of the payouts is prize whenever someone
// scored above 0; with nobody on the board (or a prize ≤ 0) nothing is
// paid and the pool, which was never escrowed, is not spent. Only positive
// amounts are listed, in Rank order. Settle is pure: the same inputs give
// the same payouts.
func Settle(prize int64, bests []PlayerBest) []Payout {
	w := Winners(bests)
	if prize <= 0 || len(w) == 0 {
		return nil
	}
	n := int64(len(w))
	share, extra := prize/n, prize%n
	out := make([]Payout, 0, len(w))
	for i, b := range w {
		amt := share
		if int64(i) < extra {
			amt++
		}
		if amt > 0 {
			out = append(out, Payout{Player: b.Player, Amount: amt})
		}
	}
	return out
}
