// Package archivetest is the conformance suite every [archive.Store] must
// pass: durable, atomic, exclusive Puts, Get, sorted prefix List, name
// checks that write nothing, and the optional [archive.Deleter] and
// [archive.Locker] capabilities when the store has them.
//
//	func TestConformance(t *testing.T) {
//		archivetest.Run(t, func(t *testing.T) archive.Store { return newStore(t) })
//	}
//
// newStore must return an empty store private to the calling test.
package archivetest
