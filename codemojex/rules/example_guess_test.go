package rules_test

import (
	"errors"
	"fmt"

	"github.com/echomq/echomq/codemojex/rules"
)

// Checking a player's guess against the game's keyboard: every refusal is a
// bad guess (422) with the reason and the position.
func ExampleNewGuess() {
	set, _ := rules.Builtin("animals")
	kb := set.Keyboard()

	g, err := rules.ParseGuess(kb, "0000,0100,0200,0300,0400,0500")
	fmt.Println(set.Render(g[:]), err)

	for _, codes := range [][]string{
		{"0000", "0100", "0200", "0300", "0400"},
		{"0000", "0100", "0200", "0300", "0100", "0500"},
		{"0000", "0100", "0200", "0300", "0909", "0500"},
	} {
		_, err := rules.NewGuess(kb, codes)
		var ce *rules.CodesError
		errors.As(err, &ce)
		fmt.Println(errors.Is(err, rules.ErrBadGuess), ce.Position, err)
	}
	// Output:
	// 🐶🐱🐭🐹🐰🦊 <nil>
	// true -1 rules: bad guess: 5 codes, want exactly 6
	// true 4 rules: bad guess: position 4: code "0100" repeats position 1
	// true 4 rules: bad guess: position 4: code "0909" is not on the keyboard
}
