package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var testSecret = Secret{"0000", "0101", "0202", "0303", "0404", "0505"}

func TestScoreWorkedExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		guess    Guess
		total    int
		percent  int
		statuses [CodeLength]Status
	}{
		{
			name: "exact crack", guess: Guess(testSecret), total: 600, percent: 100,
			statuses: [6]Status{StatusExact, StatusExact, StatusExact, StatusExact, StatusExact, StatusExact},
		},
		{
			name: "positions 0 and 1 swapped", guess: Guess{"0101", "0000", "0202", "0303", "0404", "0505"}, total: 560, percent: 93,
			statuses: [6]Status{StatusAdjacent, StatusAdjacent, StatusExact, StatusExact, StatusExact, StatusExact},
		},
		{
			name: "positions 0 and 5 swapped", guess: Guess{"0505", "0101", "0202", "0303", "0404", "0000"}, total: 400, percent: 67,
			statuses: [6]Status{StatusMax, StatusExact, StatusExact, StatusExact, StatusExact, StatusMax},
		},
		{
			name: "first emoji absent", guess: Guess{"0606", "0101", "0202", "0303", "0404", "0505"}, total: 500, percent: 83,
			statuses: [6]Status{StatusMiss, StatusExact, StatusExact, StatusExact, StatusExact, StatusExact},
		},
		{
			name: "rotated by one", guess: Guess{"0505", "0000", "0101", "0202", "0303", "0404"}, total: 400, percent: 67,
			statuses: [6]Status{StatusMax, StatusAdjacent, StatusAdjacent, StatusAdjacent, StatusAdjacent, StatusAdjacent},
		},
		{
			name: "reversed", guess: Guess{"0505", "0404", "0303", "0202", "0101", "0000"}, total: 240, percent: 40,
			statuses: [6]Status{StatusMax, StatusNear, StatusAdjacent, StatusAdjacent, StatusNear, StatusMax},
		},
		{
			name: "two swaps and a miss", guess: Guess{"0101", "0000", "0202", "0404", "0303", "0606"}, total: 420, percent: 70,
			statuses: [6]Status{StatusAdjacent, StatusAdjacent, StatusExact, StatusAdjacent, StatusAdjacent, StatusMiss},
		},
		{
			name: "nothing in the secret", guess: Guess{"0606", "0607", "0608", "0609", "0610", "0611"}, total: 0, percent: 0,
			statuses: [6]Status{StatusMiss, StatusMiss, StatusMiss, StatusMiss, StatusMiss, StatusMiss},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Score(testSecret, tt.guess)
			require.Equal(t, tt.total, r.Total)
			require.Equal(t, tt.percent, r.Percent)
			require.Equal(t, tt.total == MaxScore, r.Cracked())
			sum := 0
			for i, p := range r.Breakdown {
				require.Equal(t, tt.guess[i], p.Code)
				require.Equal(t, tt.statuses[i], p.Status, "position %d", i)
				sum += p.Points
			}
			require.Equal(t, r.Total, sum)
			require.Equal(t, r, Score(testSecret, tt.guess), "deterministic")
		})
	}
}

func TestScoreEachDistance(t *testing.T) {
	t.Parallel()
	// The secret's code at position 0 guessed at position d, every other
	// position a miss: the points of distance d alone.
	want := []struct {
		points int
		status Status
		word   string
	}{
		{100, StatusExact, "EXACT"},
		{80, StatusAdjacent, "ADJACENT"},
		{60, StatusNear, "NEAR"},
		{40, StatusNear, "NEAR"},
		{20, StatusFar, "FAR"},
		{0, StatusMax, "MAX"},
	}
	for d, w := range want {
		g := Guess{"0606", "0607", "0608", "0609", "0610", "0611"}
		g[d] = testSecret[0]
		r := Score(testSecret, g)
		require.Equal(t, w.points, r.Total, "distance %d", d)
		p := r.Breakdown[d]
		require.Equal(t, d, p.Distance)
		require.Equal(t, w.points, p.Points)
		require.Equal(t, w.status, p.Status)
		require.Equal(t, w.word, p.Status.String())
		require.Equal(t, w.points, PointsForDistance(d))
		miss := r.Breakdown[(d+1)%CodeLength]
		require.Equal(t, -1, miss.Distance)
		require.Equal(t, "MISS", miss.Status.String())
	}
	require.Zero(t, PointsForDistance(-1))
	require.Zero(t, PointsForDistance(6))
	require.Equal(t, "Status(?)", Status(99).String())
}

func TestPercent(t *testing.T) {
	t.Parallel()
	for total, want := range map[int]int{0: 0, 20: 3, 80: 13, 180: 30, 300: 50, 400: 67, 500: 83, 520: 87, 560: 93, 580: 97, 600: 100} {
		require.Equal(t, want, Percent(total), "total %d", total)
	}
}

func TestScoreUncheckedDuplicates(t *testing.T) {
	t.Parallel()
	// What NewGuess refuses: one code in every slot scores each copy, which
	// would reveal where the code sits.
	r := Score(testSecret, Guess{"0303", "0303", "0303", "0303", "0303", "0303"})
	require.Equal(t, 40+60+80+100+80+60, r.Total)
}
