package dashboard

import (
	"log/slog"
	"time"

	"github.com/echomq/echomq/archive"
)

// Defaults of [Config].
const (
	DefaultRefresh    = 2 * time.Second
	DefaultPageSize   = 50
	DefaultCountLimit = 10000
	DefaultSessionTTL = 12 * time.Hour
	DefaultTitle      = "EchoMQ"
	DefaultMaxLive    = 64
	// MinTokenLen is the shortest token New accepts: a token is the only
	// thing between the network and the writes.
	MinTokenLen = 16
	// MaxPageSize bounds Config.PageSize and the n parameter of a page.
	MaxPageSize = 1000
)

// Config configures a [Handler]; nil or the zero value means the defaults,
// though a dashboard without Queues has nothing to show.
type Config struct {
	// Queues are the queues shown, each with its streams, projections and
	// lanes. Names are checked by New. Defaults to none.
	Queues []Queue

	// Archive is the archive store. When set, the stream browser reads
	// archive and live tail as one log and marks the seam, the archive page
	// is on, and the archived streams of the configured queues are shown
	// even when Queue.Streams does not list them. Defaults to nil: live
	// streams only.
	Archive archive.Store

	// ArchivePolicies are the policies the archiver of Archive runs; the
	// archive page shows each stream's lag behind its policy (live entries
	// the policy hands to the archive that are not archived yet). Defaults
	// to none: no lag is shown.
	ArchivePolicies []archive.Policy

	// ReadOnly turns every write off: no write control is rendered and
	// every POST but sign-in and sign-out is refused with 403. Defaults to
	// false.
	ReadOnly bool

	// Token is the secret an operator signs in with (at least
	// [MinTokenLen] bytes). When set, every page needs a signed-in
	// session. Defaults to "": the pages are open and the handler is
	// read-only, whatever ReadOnly says (a write is never served to a
	// stranger).
	Token string

	// Prefix is the path the handler is mounted under ("/ops"), used to
	// build links and the session cookie's path. Defaults to "": the prefix
	// http.StripPrefix removed, found from the request (its RequestURI
	// minus its URL path).
	Prefix string

	// Refresh is the interval of the live updates. Defaults to
	// [DefaultRefresh].
	Refresh time.Duration

	// PageSize is how many events or dead letters one page lists (1 to
	// [MaxPageSize]). Defaults to [DefaultPageSize].
	PageSize int

	// CountLimit caps the entries one count reads (the rate chart, a lag
	// the engine does not know, a projection's lag); a count that reaches
	// it is shown as "≥ N". Defaults to [DefaultCountLimit].
	CountLimit int

	// MaxLive caps the live update streams open at once (one per open
	// page); one more is answered 503 with Retry-After, and its page keeps
	// working without live numbers. Defaults to [DefaultMaxLive].
	MaxLive int

	// SessionTTL is how long a sign-in lasts. Defaults to
	// [DefaultSessionTTL].
	SessionTTL time.Duration

	// Logger receives the errors of reads that a page shows as "error"
	// and of every write. Defaults to slog.Default().
	Logger *slog.Logger

	// Title names the dashboard in every page's heading. Defaults to
	// [DefaultTitle].
	Title string
}

// Queue is one queue the dashboard shows.
type Queue struct {
	// Name is the queue's name. Required.
	Name string
	// Streams are streams of the queue to show first, in this order, even
	// before they exist. The dashboard finds the others itself (see
	// Fixed); archived streams are added when Config.Archive is set.
	// Defaults to none.
	Streams []string
	// Projections are the names of live projections whose snapshots are
	// kept in the engine (projection.EngineStore). Defaults to none.
	Projections []string
	// Lanes always shows the queue's lanes job queue. Defaults to false:
	// the lanes are shown when the queue has any (a job was ever enqueued,
	// or the queue is paused), unless Fixed is set.
	Lanes bool
	// Fixed shows only what is configured: the Streams (and archived
	// streams), and the lanes only with Lanes. Defaults to false: each
	// overview discovers the queue's streams with a SCAN of its keys
	// (echomq.Client.StreamsPrefix: one walk of the keys on the node that
	// serves the queue's slot, which holds every key of the queue on a
	// cluster too) and looks for its lanes. A keyspace of millions of keys
	// on that node makes the walk slow: list the streams and set Fixed.
	Fixed bool
}

func (c Config) withDefaults() Config {
	if c.Refresh <= 0 {
		c.Refresh = DefaultRefresh
	}
	if c.PageSize <= 0 {
		c.PageSize = DefaultPageSize
	}
	if c.CountLimit <= 0 {
		c.CountLimit = DefaultCountLimit
	}
	if c.MaxLive <= 0 {
		c.MaxLive = DefaultMaxLive
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = DefaultSessionTTL
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Title == "" {
		c.Title = DefaultTitle
	}
	return c
}
