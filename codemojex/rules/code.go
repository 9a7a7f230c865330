package rules

import "fmt"

// CodeLength is the number of positions in a secret and in a guess,
// numbered 0..5.
const CodeLength = 6

// Code names one cell of an emoji set's grid: four ASCII digits "XXYY", the
// two-digit column XX followed by the two-digit row YY, both from 0 (so
// "0305" is column 3, row 5). A code is what a secret, a guess and a
// keyboard hold; the glyph drawn for it belongs to the [Set].
//
// The zero Code ("") is not a valid code; [ParseCode] and [CodeAt] build
// valid ones.
type Code string

// MaxGrid is the number of columns (and of rows) a code can address: two
// decimal digits each.
const MaxGrid = 100

// ParseCode checks that s is four ASCII digits and returns it as a Code.
// A malformed s returns a *[CodeError] matching [ErrMalformedCode].
func ParseCode(s string) (Code, error) {
	if !validCode(s) {
		return "", &CodeError{Input: s}
	}
	return Code(s), nil
}

// CodeAt returns the code of the cell at column col and row row. Either
// outside 0..99 returns a *[CodeError] matching [ErrMalformedCode].
func CodeAt(col, row int) (Code, error) {
	if col < 0 || col >= MaxGrid || row < 0 || row >= MaxGrid {
		return "", &CodeError{Input: fmt.Sprintf("%02d%02d", col, row)}
	}
	return Code([]byte{
		byte('0' + col/10), byte('0' + col%10),
		byte('0' + row/10), byte('0' + row%10),
	}), nil
}

// Valid reports whether c is four ASCII digits.
func (c Code) Valid() bool { return validCode(string(c)) }

// Col returns the column (the XX digits), or -1 if c is malformed.
func (c Code) Col() int {
	if !c.Valid() {
		return -1
	}
	return int(c[0]-'0')*10 + int(c[1]-'0')
}

// Row returns the row (the YY digits), or -1 if c is malformed.
func (c Code) Row() int {
	if !c.Valid() {
		return -1
	}
	return int(c[2]-'0')*10 + int(c[3]-'0')
}

// Offset returns where the cell sits on a sprite sheet of square cells of
// cellSize pixels, as the CSS background offset (−col·cellSize,
// −row·cellSize): "0305" at 144 px is (−432, −720). A malformed code gives
// (0, 0).
func (c Code) Offset(cellSize int) (x, y int) {
	if !c.Valid() {
		return 0, 0
	}
	return -c.Col() * cellSize, -c.Row() * cellSize
}

// String returns the code's four digits.
func (c Code) String() string { return string(c) }

func validCode(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := range 4 {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
