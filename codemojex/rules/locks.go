package rules

// Locks are a player's position locks in one game: Locks[i] is the code
// the player pinned at position i, or "" when position i is free. Locks
// persist across the player's guesses; at submit, [Locks.Apply] overlays
// them on the codes the keyboard sent, so a locked position always holds
// its locked code, and the result is then checked like any guess.
// Codes are compared as the strings they are ("0305", never 305).
type Locks [CodeLength]Code

// Lock returns l with code pinned at pos. It returns a *[CodesError]
// matching [ErrBadLock] and [ErrBadPosition] for a pos outside 0..5,
// [ErrMalformedCode] or [ErrUnknownCode] for a code that is not on kb,
// and [ErrDuplicateCode] for a code already locked at another position
// (every guess would then repeat it).
func (l Locks) Lock(kb Keyboard, pos int, code string) (Locks, error) {
	if pos < 0 || pos >= CodeLength {
		return l, &CodesError{Of: "lock", Reason: ErrBadPosition, Count: 1, Position: pos, Code: code, First: -1}
	}
	c := Code(code)
	switch {
	case !c.Valid():
		return l, &CodesError{Of: "lock", Reason: ErrMalformedCode, Count: 1, Position: pos, Code: code, First: -1}
	case !kb.Contains(c):
		return l, &CodesError{Of: "lock", Reason: ErrUnknownCode, Count: 1, Position: pos, Code: code, First: -1}
	}
	for j, have := range l {
		if have == c && j != pos {
			return l, &CodesError{Of: "lock", Reason: ErrDuplicateCode, Count: 1, Position: pos, Code: code, First: j}
		}
	}
	l[pos] = c
	return l, nil
}

// Unlock returns l with pos free. A pos outside 0..5 returns a
// *[CodesError] matching [ErrBadLock] and [ErrBadPosition].
func (l Locks) Unlock(pos int) (Locks, error) {
	if pos < 0 || pos >= CodeLength {
		return l, &CodesError{Of: "lock", Reason: ErrBadPosition, Count: 0, Position: pos, First: -1}
	}
	l[pos] = ""
	return l, nil
}

// Apply returns a copy of codes with every locked position replaced by its
// locked code. Positions past the end of codes are left out (the guess is
// then refused for its count), so Apply never hides a wrong count.
func (l Locks) Apply(codes []string) []string {
	out := append([]string(nil), codes...)
	for i := range min(len(out), CodeLength) {
		if l[i] != "" {
			out[i] = string(l[i])
		}
	}
	return out
}
