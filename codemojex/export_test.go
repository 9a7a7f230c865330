package codemojex

// Test seams: the stages of a guess a test can stop at.

func (e *Engine) setBeforeScore(f func(guess string))       { e.hooks.beforeScore = f }
func (e *Engine) setAfterScore(f func(guess string))        { e.hooks.afterScore = f }
func (e *Engine) setBeforeQueue(f func(guess string) error) { e.hooks.beforeQueue = f }
