package rules

// Scoring constants: each position is worth up to PointsPerPosition, and
// every step of distance costs PointsPerStep.
const (
	PointsPerPosition = 100
	PointsPerStep     = 20
	// MaxScore is a perfect crack: all six positions exact.
	MaxScore = CodeLength * PointsPerPosition
)

// Status words for one scored position, by distance.
type Status uint8

const (
	// StatusMiss means the code is not in the secret (0 points).
	StatusMiss Status = iota
	// StatusExact means distance 0 (100 points).
	StatusExact
	// StatusAdjacent means distance 1 (80 points).
	StatusAdjacent
	// StatusNear means distance 2 or 3 (60 or 40 points).
	StatusNear
	// StatusFar means distance 4 (20 points).
	StatusFar
	// StatusMax means distance 5, the two ends swapped (0 points, but the code
	// is in the secret).
	StatusMax
)

var statusWords = [...]string{"MISS", "EXACT", "ADJACENT", "NEAR", "FAR", "MAX"}

// String returns the status word: "EXACT", "ADJACENT", "NEAR", "FAR",
// "MAX" or "MISS".
func (s Status) String() string {
	if int(s) < len(statusWords) {
		return statusWords[s]
	}
	return "Status(?)"
}

// Position is the score of one position of a guess.
type Position struct {
	// Code is the guessed code at this position.
	Code Code
	// Distance is |i − j|, where j is the code's position in the secret, or
	// -1 when the code is not in the secret.
	Distance int
	// Points is 100 − 20·Distance, or 0 for a miss.
	Points int
	// Status is the word for Distance.
	Status Status
}

// Result is the score of a guess. Breakdown is for the server and for a
// reveal; players of an open game see only Total and Percent.
type Result struct {
	// Total is the sum of the points, 0..600 in steps of 20.
	Total int
	// Percent is Total as a whole percentage of 600, rounded to nearest.
	Percent int
	// Breakdown scores each position, 0 first.
	Breakdown [CodeLength]Position
}

// Cracked reports a perfect score: the guess is the secret.
func (r Result) Cracked() bool { return r.Total == MaxScore }

// Score rates guess against secret. For each position i the guessed code
// is looked up in the secret; at position j it earns 100 − 20·|i − j|
// points (100 exact, 80 one off, … 0 five off), and a code not in the
// secret earns 0. Score is pure and deterministic; the total of a guess
// and the secret is 600 exactly when they are equal.
//
// Score is defined on any arrays, checked or not: a guess repeating a
// code scores each copy on its own, which is why [NewGuess] refuses
// repeats (they would reveal a code's place).
func Score(secret Secret, guess Guess) Result {
	var r Result
	for i, c := range guess {
		p := Position{Code: c, Distance: -1, Status: StatusMiss}
		if j := secret.Index(c); j >= 0 {
			p.Distance = abs(i - j)
			p.Points = PointsForDistance(p.Distance)
			p.Status = statusFor(p.Distance)
		}
		r.Breakdown[i] = p
		r.Total += p.Points
	}
	r.Percent = Percent(r.Total)
	return r
}

// PointsForDistance returns 100 − 20·d for a distance d in 0..5, and 0
// for any other d (a miss).
func PointsForDistance(d int) int {
	if d < 0 || d >= CodeLength {
		return 0
	}
	return PointsPerPosition - PointsPerStep*d
}

// Percent returns total as a whole percentage of [MaxScore], rounded half
// up: 560 → 93, 400 → 67, 500 → 83. Totals of real guesses are multiples
// of 20, whose percentages are never exactly half-way. It is computed when
// shown, never stored.
func Percent(total int) int { return (total*100 + MaxScore/2) / MaxScore }

func statusFor(d int) Status {
	switch d {
	case 0:
		return StatusExact
	case 1:
		return StatusAdjacent
	case 2, 3:
		return StatusNear
	case 4:
		return StatusFar
	}
	return StatusMax
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
