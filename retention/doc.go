// Package retention trims streams by a declared policy: keep the newest n
// entries ([MaxLen]), drop the entries minted before an instant
// ([MinTime]) or older than an age ([Ago]), approximately by default or
// exactly on request ([Rule.Exact]).
//
// Retention is opt-in: nothing is trimmed unless a [Policy] names the
// stream. It is decoupled from readers: a stream nobody reads still trims,
// and a consumer group's pending entries do not hold a trim back (the
// consumer acknowledges entries whose data was trimmed while pending).
//
// # Applying policies
//
// [Apply] applies one policy once. A [Driver] is a background service that
// applies its policies on a tick ([Driver.Start], [Driver.Stop]) or by hand
// ([Driver.Sweep]); its clock is injectable so an [Ago] rule can be tested
// against a fixed "now".
//
//	d, err := retention.New(client, &retention.Config{Policies: []retention.Policy{
//		{Queue: "cm", Stream: "guess-scored", Rule: retention.Ago(72 * time.Hour)},
//		{Queue: "cm", Stream: "room-opened", Rule: retention.MaxLen(10_000).Exact()},
//	}})
//	if err != nil { … }
//	if err := d.Start(ctx); err != nil { … }
//	defer d.Stop(ctx)
//
// # Streams under archive control
//
// A stream whose trimmed entries are folded into the durable archive (see
// package archive) is trimmed only by the archiver, which trims nothing it
// has not archived. Retention refuses such a stream with an
// [*ArchivedError] (matching [ErrArchived]) and trims nothing: the stream
// has an archive watermark ("emq:{q}:stream:<name>:archived") or an
// archiver holds its lease ("emq:{q}:stream:<name>:archiver").
package retention
