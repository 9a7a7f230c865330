// Package sim plays simulated codemojex players against a server over its
// JSON API, for demos and load tests: each player signs in, is granted
// keys, joins a room and submits guesses, waiting for each score (a climb
// strategy keeps its best guess and tries a small change of it, so games
// get cracked), and the run reports the guesses accepted and scored per
// second and the latency from submit to score.
package sim
