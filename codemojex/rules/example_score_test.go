package rules_test

import (
	"fmt"

	"github.com/echomq/echomq/codemojex/rules"
)

// Scoring the worked examples: each position earns 100 − 20·distance, a
// code not in the secret earns 0.
func ExampleScore() {
	secret := rules.Secret{"0000", "0101", "0202", "0303", "0404", "0505"}
	guesses := []struct {
		what  string
		guess rules.Guess
	}{
		{"exact crack", rules.Guess(secret)},
		{"0 and 1 swapped", rules.Guess{"0101", "0000", "0202", "0303", "0404", "0505"}},
		{"0 and 5 swapped", rules.Guess{"0505", "0101", "0202", "0303", "0404", "0000"}},
		{"first absent", rules.Guess{"0606", "0101", "0202", "0303", "0404", "0505"}},
	}
	for _, g := range guesses {
		r := rules.Score(secret, g.guess)
		fmt.Printf("%-16s %3d %3d%% %v %v\n", g.what, r.Total, r.Percent, r.Breakdown[0].Status, r.Cracked())
	}
	// Output:
	// exact crack      600 100% EXACT true
	// 0 and 1 swapped  560  93% ADJACENT false
	// 0 and 5 swapped  400  67% MAX false
	// first absent     500  83% MISS false
}
