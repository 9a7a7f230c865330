// Package fsstore is the local-directory [archive.Store], the default
// home of archives: one file per object under a root directory, the object
// name's slashes as subdirectories.
//
// Durability and atomicity: Put writes a temporary file in the target
// directory, fsyncs it, then renames it over the name (or, for an
// exclusive Put, links it to the name, which fails if the name exists) and
// fsyncs the directory; a crash leaves the old object or the new one,
// never a torn one, plus at worst a ".tmp-*" file that List ignores.
//
// Locking: Lock takes an flock(2) on a file under "<root>/.locks", so two
// archivers (processes, or two Archivers in one process) cannot fold the
// same stream at once; the kernel releases the lock when its holder dies.
//
//	store, err := fsstore.New("/var/lib/echomq/archive")
//	arch, err := archive.New(client, store, &archive.Config{…})
package fsstore
