package emqotel

// SetMaxWaiting sets how many send spans may wait for a handoff and
// returns a function that restores the bound.
func SetMaxWaiting(n int) (restore func()) {
	old := maxWaiting
	maxWaiting = n
	return func() { maxWaiting = old }
}
