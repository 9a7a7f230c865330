// Package engines is the seam through which package embedded offers the
// in-process engine to the root package without the root package linking
// it: embedded sets Embedded in its init, and a program that never imports
// embedded never links miniredis.
package engines

// Scheme is the URL scheme of the embedded engine: "embedded:" in
// Config.URL.
const Scheme = "embedded"

// Engine is a started in-process engine.
type Engine struct {
	// Addr is the host:port it listens on (loopback).
	Addr string
	// Stop stops it; the data is gone.
	Stop func()
}

// Embedded starts a fresh in-process engine. It is nil unless package
// embedded is linked into the program.
var Embedded func() (Engine, error)
