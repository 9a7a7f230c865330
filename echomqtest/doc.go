// Package echomqtest provides test helpers that run REAL redis-server (or
// valkey-server) processes for integration tests of echomq.
//
// Every server is a private child process of the test binary listening on a
// free loopback port (127.0.0.1), with persistence disabled (--save "" and
// --appendonly no), its working directory in a temporary directory and its
// stdout/stderr captured in a log file in that directory. Servers are started
// with Pdeathsig=SIGKILL and their own process group, so they never outlive
// the test binary, even when it crashes or is interrupted. Nothing in this
// package ever talks to a server it did not start itself (except the one named
// by EMQ_TEST_ADDR), and nothing ever issues FLUSHALL: tests isolate
// themselves with unique names from [Queue] or with a private server from
// [Start].
//
// Typical use:
//
//	func TestMain(m *testing.M) { echomqtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		srv := echomqtest.Shared(t)  // one server for the whole test binary
//		queue := echomqtest.Queue(t) // unique queue name for this test
//		client := newClient(t, srv.URL())
//		...
//	}
//
// [Start] gives a test its own server (for fault injection with
// [Server.Kill] and [Server.Restart]) and [StartCluster] a three-master
// Redis Cluster. [StartReplica] adds a replica to a server (for the durable
// append's WAIT), and [StartReplicatedCluster] starts three masters with a
// replica each, for failovers ([Cluster.Failover], [Cluster.WaitPromoted]).
// A [Proxy] between a client and a server injects network faults and counts
// the client's attempts ([Proxy.Counts]); [Logs] records what a component
// logged. [Server.Version] says which engine and release a server runs, for
// the few tests whose expectations depend on an engine feature
// ([Version.RedisAtLeast]). All helpers are safe to call from parallel
// tests.
//
// Environment variables:
//
//   - EMQ_TEST_ADDR=host:port makes [Shared] reuse that server instead of
//     spawning one (it is never stopped, killed or flushed by this package).
//   - CI=true turns a missing redis-server / redis-cli binary from a test skip
//     into a test failure.
//   - EMQ_ENGINE=valkey starts valkey-server and valkey-cli instead of
//     redis-server and redis-cli, for every helper (servers, clusters,
//     replicas, faults); "redis" or unset is the default, any other value
//     fails the tests that need a server (see [TestEngine]).
//   - EMQ_REDIS_SERVER and EMQ_REDIS_CLI override the paths of the server
//     and client binaries (default: the selected engine's, looked up in
//     $PATH).
//
// The package deliberately does not depend on any Redis client library; it
// contains a minimal RESP2 client of its own for PING, INFO and CLUSTER
// commands.
package echomqtest
