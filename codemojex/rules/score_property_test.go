package rules

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// referenceScore is the rule read literally, by brute force over every
// (guess position, secret position) pair, with no shared helper: the best
// of 100 − 20·|i − j| over the secret positions j holding the guessed code,
// else 0.
func referenceScore(secret Secret, guess Guess) (total int, points [CodeLength]int) {
	for i := range CodeLength {
		best := 0
		for j := range CodeLength {
			if secret[j] != guess[i] {
				continue
			}
			d := i - j
			if d < 0 {
				d = -d
			}
			if p := 100 - 20*d; p > best {
				best = p
			}
		}
		points[i] = best
		total += best
	}
	return total, points
}

func TestScoreMatchesReference(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	small, err := ParseKeyboard("0000,0001,0002,0003,0004,0005,0006,0007")
	require.NoError(t, err)
	rng := seeded(2024)
	for n := range 100_000 {
		// Alternate a 36-code keyboard (mostly misses) and an 8-code one
		// (mostly hits) so both branches are well covered.
		board := kb
		if n%2 == 1 {
			board = small
		}
		secret, err := DrawSecret(board, rng)
		require.NoError(t, err)
		drawn, err := DrawSecret(board, rng)
		require.NoError(t, err)
		guess := Guess(drawn)
		r := Score(secret, guess)
		total, points := referenceScore(secret, guess)
		if r.Total != total {
			t.Fatalf("secret %s guess %s: Score %d, reference %d", secret, guess, r.Total, total)
		}
		for i, p := range r.Breakdown {
			if p.Points != points[i] {
				t.Fatalf("secret %s guess %s position %d: Score %d, reference %d", secret, guess, i, p.Points, points[i])
			}
		}
		if r.Total < 0 || r.Total > MaxScore || r.Total%PointsPerStep != 0 {
			t.Fatalf("total %d out of 0..600 in steps of 20", r.Total)
		}
		if r.Cracked() != (secret == Secret(guess)) {
			t.Fatalf("secret %s guess %s: total %d but cracked=%v", secret, guess, r.Total, r.Cracked())
		}
		if r.Percent != Percent(r.Total) {
			t.Fatalf("percent %d of %d", r.Percent, r.Total)
		}
	}
}

// TestScorePermutations tries every one of the 720 orders of the secret.
// A permutation σ puts the secret's code j at guess position σ⁻¹(j); its
// score is 600 − 20·Σ|displacement|, so it depends only on the multiset of
// displacements, and only the identity scores 600.
func TestScorePermutations(t *testing.T) {
	t.Parallel()
	byMultiset := map[[CodeLength]int]int{}
	count := 0
	for perm := range permutations(CodeLength) {
		count++
		var g Guess
		var disp [CodeLength]int
		sum := 0
		for i, j := range perm {
			g[i] = testSecret[j]
			disp[i] = abs(i - j)
			sum += disp[i]
		}
		r := Score(testSecret, g)
		require.Equal(t, MaxScore-PointsPerStep*sum, r.Total, "perm %v", perm)
		require.LessOrEqual(t, r.Total, MaxScore)
		identity := slices.Equal(perm, []int{0, 1, 2, 3, 4, 5})
		require.Equal(t, identity, r.Total == MaxScore, "perm %v", perm)
		for i, p := range r.Breakdown {
			require.Equal(t, disp[i], p.Distance)
		}
		slices.Sort(disp[:])
		if prev, ok := byMultiset[disp]; ok {
			require.Equal(t, prev, r.Total, "same displacements %v, same score", disp)
		}
		byMultiset[disp] = r.Total
	}
	require.Equal(t, 720, count)
}

// TestScoreRenamingInvariance: renaming the cells (any bijection of codes)
// changes no score, since only positions matter.
func TestScoreRenamingInvariance(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	rng := seeded(99)
	for range 2000 {
		codes := kb.Codes()
		renamed := slices.Clone(codes)
		rng.Shuffle(len(renamed), func(i, j int) { renamed[i], renamed[j] = renamed[j], renamed[i] })
		rename := map[Code]Code{}
		for i, c := range codes {
			rename[c] = renamed[i]
		}
		secret, _ := DrawSecret(kb, rng)
		drawn, _ := DrawSecret(kb, rng)
		guess := Guess(drawn)
		var s2 Secret
		var g2 Guess
		for i := range CodeLength {
			s2[i], g2[i] = rename[secret[i]], rename[guess[i]]
		}
		require.Equal(t, Score(secret, guess).Total, Score(s2, g2).Total)
	}
}

// permutations yields every permutation of 0..n-1 (Heap's algorithm).
func permutations(n int) func(yield func([]int) bool) {
	return func(yield func([]int) bool) {
		a := make([]int, n)
		for i := range a {
			a[i] = i
		}
		c := make([]int, n)
		if !yield(slices.Clone(a)) {
			return
		}
		for i := 0; i < n; {
			if c[i] < i {
				if i%2 == 0 {
					a[0], a[i] = a[i], a[0]
				} else {
					a[c[i]], a[i] = a[i], a[c[i]]
				}
				if !yield(slices.Clone(a)) {
					return
				}
				c[i]++
				i = 0
			} else {
				c[i] = 0
				i++
			}
		}
	}
}
