// Package app is the codemojex program: the serve command (the JSON API,
// the scoring workers, the sweep, the projections) and the sim command
// (simulated players for demos and load tests). codemojex/cmd/codemojex is its thin
// main.
package app
