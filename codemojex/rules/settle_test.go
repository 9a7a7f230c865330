package rules

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSettle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		prize int64
		bests []PlayerBest
		want  []Payout
	}{
		{
			name: "one clear leader takes all", prize: 1000,
			bests: []PlayerBest{{"alice", 560, 3}, {"bob", 400, 1}, {"carol", 20, 2}},
			want:  []Payout{{"alice", 1000}},
		},
		{
			name: "a single player takes the seeded pool", prize: 1000,
			bests: []PlayerBest{{"alice", 80, 1}},
			want:  []Payout{{"alice", 1000}},
		},
		{
			name: "two-way tie splits evenly, the rest get nothing", prize: 1000,
			bests: []PlayerBest{{"bob", 500, 2}, {"alice", 500, 1}, {"carol", 480, 0}},
			want:  []Payout{{"alice", 500}, {"bob", 500}},
		},
		{
			name: "odd diamond to whoever reached the top first", prize: 1001,
			bests: []PlayerBest{{"alice", 500, 9}, {"bob", 500, 4}},
			want:  []Payout{{"bob", 501}, {"alice", 500}},
		},
		{
			name: "three-way tie, remainder one each to the earliest", prize: 1000,
			bests: []PlayerBest{{"a", 600, 30}, {"b", 600, 10}, {"c", 600, 20}},
			want:  []Payout{{"b", 334}, {"c", 333}, {"a", 333}},
		},
		{
			name: "four-way tie, remainder 3", prize: 1003,
			bests: []PlayerBest{{"a", 300, 4}, {"b", 300, 3}, {"c", 300, 2}, {"d", 300, 1}},
			want:  []Payout{{"d", 251}, {"c", 251}, {"b", 251}, {"a", 250}},
		},
		{
			name: "same instant: player id breaks the tie", prize: 5,
			bests: []PlayerBest{{"zed", 100, 7}, {"amy", 100, 7}},
			want:  []Payout{{"amy", 3}, {"zed", 2}},
		},
		{
			name: "prize smaller than the tie lists only positive payouts", prize: 2,
			bests: []PlayerBest{{"a", 100, 1}, {"b", 100, 2}, {"c", 100, 3}},
			want:  []Payout{{"a", 1}, {"b", 1}},
		},
		{
			name: "best per player from many guesses", prize: 100,
			bests: []PlayerBest{{"a", 300, 1}, {"b", 200, 2}, {"a", 500, 5}, {"b", 500, 3}, {"a", 500, 4}, {"b", 100, 6}},
			want:  []Payout{{"b", 50}, {"a", 50}},
		},
		{
			name: "later equal best does not move the first achievement", prize: 3,
			bests: []PlayerBest{{"a", 500, 1}, {"b", 500, 2}, {"a", 500, 9}},
			want:  []Payout{{"a", 2}, {"b", 1}},
		},
		{name: "empty board pays nothing", prize: 1000, bests: nil, want: nil},
		{
			name: "nobody above zero pays nothing", prize: 1000,
			bests: []PlayerBest{{"a", 0, 1}, {"b", 0, 2}}, want: nil,
		},
		{
			name: "zero prize pays nothing", prize: 0,
			bests: []PlayerBest{{"a", 600, 1}}, want: nil,
		},
		{
			name: "negative prize pays nothing", prize: -5,
			bests: []PlayerBest{{"a", 600, 1}}, want: nil,
		},
		{
			name: "anonymous entries are ignored", prize: 10,
			bests: []PlayerBest{{"", 600, 0}, {"a", 20, 1}},
			want:  []Payout{{"a", 10}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := append([]PlayerBest(nil), tt.bests...)
			got := Settle(tt.prize, tt.bests)
			require.Equal(t, tt.want, got)
			require.Equal(t, in, tt.bests, "the input is not modified")
			require.Equal(t, got, Settle(tt.prize, tt.bests), "pure")
		})
	}
}

func TestRank(t *testing.T) {
	t.Parallel()
	board := Rank([]PlayerBest{
		{"c", 400, 5}, {"a", 560, 9}, {"b", 560, 2}, {"d", 0, 1}, {"c", 380, 1}, {"e", 400, 5},
	})
	require.Equal(t, []PlayerBest{{"b", 560, 2}, {"a", 560, 9}, {"c", 400, 5}, {"e", 400, 5}}, board)
	require.Equal(t, []PlayerBest{{"b", 560, 2}, {"a", 560, 9}}, Winners(board))
	require.Empty(t, Rank(nil))
	require.Empty(t, Winners(nil))
}

// TestSettleProperties checks on random boards: the whole prize is paid
// whenever someone scored, only top scorers are paid, and shares differ by
// at most one diamond with the larger ones going to earlier achievers.
func TestSettleProperties(t *testing.T) {
	t.Parallel()
	rng := seeded(5)
	for range 5_000 {
		n := rng.IntN(12)
		bests := make([]PlayerBest, n)
		for i := range bests {
			bests[i] = PlayerBest{
				Player: fmt.Sprintf("p%d", rng.IntN(8)),
				Best:   PointsPerStep * rng.IntN(4) * 10, // 0, 200, 400, 600: many ties
				At:     rng.Int64N(50),
			}
		}
		prize := rng.Int64N(2000) - 10
		payouts := Settle(prize, bests)
		winners := Winners(bests)

		var sum int64
		for _, p := range payouts {
			sum += p.Amount
			if p.Amount <= 0 {
				t.Fatalf("payout %+v", p)
			}
		}
		switch {
		case prize <= 0 || len(winners) == 0:
			require.Empty(t, payouts)
		default:
			require.Equal(t, prize, sum, "the whole prize is paid")
			top := winners[0].Best
			for _, b := range bests {
				if b.Best > top {
					t.Fatalf("winner best %d below %d", top, b.Best)
				}
			}
			for i, p := range payouts {
				require.Equal(t, winners[i].Player, p.Player, "payouts follow the rank order")
				require.LessOrEqual(t, payouts[0].Amount-p.Amount, int64(1))
				if i > 0 {
					require.LessOrEqual(t, p.Amount, payouts[i-1].Amount)
				}
			}
		}
	}
}
