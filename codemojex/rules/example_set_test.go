package rules_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/echomq/echomq/codemojex/rules"
)

// Loading an emoji set from a set file, reducing its keyboard and drawing
// a secret with a seeded source (production passes nil for crypto/rand).
func ExampleLoadSet() {
	set, err := rules.LoadSet(strings.NewReader(`# weather
name weather
title Weather
0000 ☀ sun
0100 🌧 rain
0200 ⛄ snowman
0001 🌈 rainbow
0101 🌪 tornado
0201 🌫 fog
0002 ⚡ lightning
0102 🌙 moon
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(set.Title(), set.Len(), set.Cols(), "x", set.Rows())

	rng := rand.New(rand.NewPCG(1, 2))
	kb, _ := set.Keyboard().Reduce(6, rng)
	secret, _ := rules.DrawSecret(kb, rng)
	fmt.Println(kb.Len(), set.Render(kb.Codes()), set.Render(secret[:]))

	_, err = rules.LoadSet(strings.NewReader("name weather\n0000 ☀\n0100 ☀\n"))
	fmt.Println(err)
	// Output:
	// Weather 8 3 x 3
	// 6 ☀🌧⛄🌪🌫⚡ ⛄🌪🌧☀⚡🌫
	// rules: bad emoji set: line 3: duplicate glyph: glyph ☀ of 0100 again (first at line 2)
}
