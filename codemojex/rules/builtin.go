package rules

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// The built-in sets are set files (see LoadSet) embedded in the binary, so
// a game can start with no files around it.
//
//go:embed sets/*.txt
var builtinFiles embed.FS

var builtins = sync.OnceValue(func() map[string]*Set {
	entries, err := builtinFiles.ReadDir("sets")
	if err != nil {
		panic(fmt.Sprintf("rules: built-in sets: %v", err))
	}
	out := make(map[string]*Set, len(entries))
	for _, e := range entries {
		data, err := builtinFiles.ReadFile(path.Join("sets", e.Name()))
		if err != nil {
			panic(fmt.Sprintf("rules: built-in set %s: %v", e.Name(), err))
		}
		s, err := LoadSet(bytes.NewReader(data))
		if err != nil {
			// The embedded files are part of the source; tests load them all.
			panic(fmt.Sprintf("rules: built-in set %s: %v", e.Name(), err))
		}
		if want := strings.TrimSuffix(e.Name(), ".txt"); s.Name() != want {
			panic(fmt.Sprintf("rules: built-in set %s is named %q", e.Name(), s.Name()))
		}
		out[s.Name()] = s
	}
	return out
})

// Builtins returns the names of the built-in sets, sorted: "animals" and
// "food" (48 cells each, 8 columns by 6 rows).
func Builtins() []string {
	names := make([]string, 0, len(builtins()))
	for n := range builtins() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Builtin returns the built-in set named name. An unknown name returns an
// error matching [ErrUnknownSet].
func Builtin(name string) (*Set, error) {
	s, ok := builtins()[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (built-in: %s)", ErrUnknownSet, name, strings.Join(Builtins(), ", "))
	}
	return s, nil
}
