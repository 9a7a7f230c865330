package codemojex

// Test seams: the stages of a guess a test can stop at.

func (e *Engine) setBeforeScore(f func(guess string))       { e.hooks.beforeScore = f }
func (e *Engine) setAfterScore(f func(guess string))        { e.hooks.afterScore = f }
func (e *Engine) setBeforeQueue(f func(guess string) error) { e.hooks.beforeQueue = f }
func (e *Engine) setBeforeCharge(f func(guesses []string) error) {
	e.hooks.beforeCharge = f
}
func (e *Engine) setInCharge(f func(guesses []string)) { e.hooks.inCharge = f }
func (e *Engine) setInRefuse(f func(guess string))     { e.hooks.inRefuse = f }
