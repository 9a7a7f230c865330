package rules_test

import (
	"errors"
	"fmt"

	"github.com/echomq/echomq/codemojex/rules"
)

// A blind game commits to its secret when it opens and reveals it when it
// closes; anyone can check the reveal against the commitment.
func ExampleCommit() {
	set, _ := rules.Builtin("food")
	secret, _ := rules.DrawSecret(set.Keyboard(), nil) // crypto/rand

	commitment, reveal, _ := rules.Commit(secret, nil) // publish commitment, keep reveal
	fmt.Println(len(commitment), len(reveal.Salt))

	fmt.Println(rules.Verify(commitment, reveal)) // at close

	forged := reveal
	forged.Secret[0], forged.Secret[1] = forged.Secret[1], forged.Secret[0]
	fmt.Println(errors.Is(rules.Verify(commitment, forged), rules.ErrCommitmentMismatch))
	// Output:
	// 64 32
	// <nil>
	// true
}
