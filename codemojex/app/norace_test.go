//go:build !race

package app

// simPlayers is TestServeShardedOnCluster's default player count: the
// acceptance's thousand (see race_test.go for a -race build).
const simPlayers = 1000
