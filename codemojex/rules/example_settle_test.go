package rules_test

import (
	"fmt"

	"github.com/echomq/echomq/codemojex/rules"
)

// Winner-take-all with a three-way tie: 1000 diamonds split 334/333/333,
// the odd diamond to the player who reached 560 first.
func ExampleSettle() {
	bests := []rules.PlayerBest{
		{Player: "PLRalice", Best: 560, At: 1700000003000},
		{Player: "PLRbob", Best: 560, At: 1700000001000},
		{Player: "PLRcarol", Best: 560, At: 1700000002000},
		{Player: "PLRdave", Best: 400, At: 1700000000000},
	}
	for _, p := range rules.Settle(1000, bests) {
		fmt.Println(p.Player, p.Amount)
	}
	// Output:
	// PLRbob 334
	// PLRcarol 333
	// PLRalice 333
}
