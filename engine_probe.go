package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

// probeEngine is Connect's one start-up round trip: the engine's clock,
// INFO and the scripting probe in one pipeline. It refuses an engine that
// evicts (unless Config.AllowEviction) and a user who may not run
// scripts.
func (c *Client) probeEngine(ctx context.Context) error {
	p, err := c.conn.Probe(ctx)
	if err != nil {
		return err
	}
	c.eclock.observe(c.eclock.since(), p.TimeUs)
	// An engine that is loading or busy refuses the probes for now, not
	// for this user: that is an outage, not a verdict.
	for _, err := range []error{p.InfoErr, p.ScriptErr} {
		if err != nil && wire.Transient(err) {
			return err
		}
	}
	now := time.Now()
	e := Engine{Name: engineEmbedded, Policy: policyNoEviction, Checked: true, At: now}
	switch {
	case c.embedded != nil:
		// miniredis answers INFO with its clients and stats sections only;
		// it never evicts and has no limit.
	case p.InfoErr != nil:
		e = Engine{At: now}
		c.cfg.Logger.Warn("echomq: INFO refused: the engine's eviction policy and memory are unchecked (grant +info to this user)", "err", p.InfoErr)
	default:
		e = engineFromInfo(p.Info, now)
	}
	if p.ScriptErr != nil {
		return &ScriptsError{Err: p.ScriptErr}
	}
	e.Scripts = true
	if e.Evicting() {
		if !c.cfg.AllowEviction {
			return &EvictionError{Engine: e}
		}
		c.cfg.Logger.Warn("echomq: the engine evicts keys and Config.AllowEviction accepts it: acknowledged events may vanish when it is full",
			"policy", e.Policy, "maxmemory", e.MaxMemory)
	}
	c.engine.Store(&e)
	return nil
}

// Engine returns what the client knows of its engine: read at Connect and
// kept current by the watcher every Config.EngineCheckInterval. It does no
// I/O.
func (c *Client) Engine() Engine { return *c.engine.Load() }
