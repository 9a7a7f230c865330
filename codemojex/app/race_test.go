//go:build race

package app

// simPlayers is TestServeShardedOnCluster's default player count. The race
// detector slows the in-process server about eightfold (1,000 players took
// 100 s on two busy cores against 16 s without it), so a -race build plays
// 250 by default; EMQ_SIM_PLAYERS=1000 plays the acceptance's thousand.
const simPlayers = 250
