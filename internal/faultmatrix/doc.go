// Package faultmatrix holds the fault matrix of EchoMQ's long-running
// components, and nothing else: its tests run every component (consumer,
// set consumer, lanes worker, stream and set followers, live and cached
// projections, archiver, retention driver, node lease, plain reads) against every fault of the harness in
// ./echomqtest (engine restarts, a paused engine, a partition, added
// latency), each cell on an engine and a proxy of its own, and record
// whether it recovered, how fast, what it lost or repeated and whether it
// exited. docs/faults.md holds the figures and the commands:
//
//	go test -race -count=1 ./internal/faultmatrix                    # short version (make test)
//	EMQ_FAULTS=full go test -race -count=1 -v -timeout 30m ./internal/faultmatrix   # make faults
package faultmatrix
