package echomq

import (
	"context"
	"time"
)

// growthReadings is how many of the watcher's readings the growth estimate
// spans: with the default interval about two minutes, long enough to
// smooth one burst, short enough to follow a change of pace.
const growthReadings = 8

// startWatch starts the engine watcher when the engine has figures to
// watch; Close stops it.
func (c *Client) startWatch() {
	e := c.Engine()
	if c.cfg.EngineCheckInterval < 0 || c.embedded != nil || !e.Checked {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.watchStop, c.watchDone = cancel, make(chan struct{})
	go c.watch(ctx, c.cfg.EngineCheckInterval)
}

// reading is one watcher reading of used memory.
type reading struct {
	at   time.Time
	used int64
}

// watch re-reads INFO memory every interval until Close: it updates
// Engine, logs each change of the eviction policy once, and estimates the
// growth of used memory over the last growthReadings readings.
func (c *Client) watch(stop context.Context, interval time.Duration) {
	defer close(c.watchDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	first := c.Engine()
	recent := []reading{{first.At, first.UsedMemory}}
	failing := false
	for {
		select {
		case <-stop.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(stop, max(c.cfg.CallTimeout, interval))
		info, err := c.conn.InfoMemory(ctx)
		cancel()
		if stop.Err() != nil {
			return
		}
		if err != nil {
			if !failing {
				c.cfg.Logger.Warn("echomq: engine watcher: INFO memory failed; retrying every interval", "err", err)
			}
			failing = true
			continue
		}
		failing = false
		prev := c.Engine()
		e := prev
		e.At = time.Now()
		e.readMemory(infoFields(info))
		recent = append(recent, reading{e.At, e.UsedMemory})
		if len(recent) > growthReadings {
			recent = recent[len(recent)-growthReadings:]
		}
		e.Growth = growth(recent)
		if e.Policy != prev.Policy {
			e.PolicyChanges++
			c.policyChanged(prev.Policy, e)
		}
		c.engine.Store(&e)
	}
}

// policyChanged logs a change of the eviction policy, once per change.
func (c *Client) policyChanged(from string, e Engine) {
	if e.Evicting() {
		c.cfg.Logger.Error("echomq: the engine's maxmemory-policy changed to one that evicts keys: acknowledged events may vanish when it is full; "+
			"set it back with CONFIG SET maxmemory-policy noeviction", "from", from, "to", e.Policy)
		return
	}
	c.cfg.Logger.Warn("echomq: the engine's maxmemory-policy changed", "from", from, "to", e.Policy)
}

// growth is the rise of used memory per second from the first reading to
// the last; 0 when it did not rise.
func growth(rs []reading) float64 {
	if len(rs) < 2 {
		return 0
	}
	a, b := rs[0], rs[len(rs)-1]
	d := b.at.Sub(a.at).Seconds()
	if d <= 0 || b.used <= a.used {
		return 0
	}
	return float64(b.used-a.used) / d
}
