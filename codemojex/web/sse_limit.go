package web

// Defaults of the live feed's caps ([Config.MaxStreams],
// [Config.MaxStreamsPerClient]). The feed is public (it carries what the
// lobby shows, nothing a player's session guards), so the caps are what
// bounds it.
const (
	DefaultMaxStreams          = 1000
	DefaultMaxStreamsPerClient = 4
)

// LiveFeeds returns how many live feeds are open on this handler now (for
// health reporting: codemojex/health's Config.LiveFeeds).
func (h *Handler) LiveFeeds() int { return h.caps.Open() }
