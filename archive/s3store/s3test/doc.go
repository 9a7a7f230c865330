// Package s3test runs a real S3-compatible server for tests: versitygw
// with its posix backend, a private child process on a free loopback port
// serving a temporary directory, with root credentials.
//
// The binary is found as $EMQ_VERSITYGW, on $PATH, or in $(go env
// GOPATH)/bin; when it is missing it is built once with
//
//	go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
//
// (serialized across test binaries by a lock file). If that fails the
// test is skipped, or failed when CI=true.
//
//	srv := s3test.Start(t)        // killed by t.Cleanup
//	store := srv.NewStore(t)      // a fresh bucket
//	srv.Kill(); srv.Restart(t)    // fault injection: the store is unreachable, then back
package s3test
