package emqprom

import (
	"context"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/projection"
)

var (
	_ echomq.EngineCallHook     = (*Metrics)(nil)
	_ echomq.AppendHook         = (*Metrics)(nil)
	_ echomq.ReadHook           = (*Metrics)(nil)
	_ echomq.DeliverHook        = (*Metrics)(nil)
	_ echomq.AckHook            = (*Metrics)(nil)
	_ echomq.DeadLetterHook     = (*Metrics)(nil)
	_ echomq.TrimHook           = (*Metrics)(nil)
	_ lanes.JobHook             = (*Metrics)(nil)
	_ archive.CycleHook         = (*Metrics)(nil)
	_ projection.CheckpointHook = (*Metrics)(nil)
)

// OnEngineCall counts an engine call.
func (m *Metrics) OnEngineCall(c echomq.EngineCall) {
	m.calls.WithLabelValues(c.Command).Add(float64(c.Commands))
	m.callDuration.WithLabelValues(c.Command).Observe(c.Duration.Seconds())
	if c.Err != nil {
		m.callErrors.WithLabelValues(c.Command, Kind(c.Err)).Inc()
	}
}

// OnAppend counts an append call's records and its latency.
func (m *Metrics) OnAppend(_ context.Context, a echomq.AppendInfo) {
	if ok := a.Records - a.Failed; ok > 0 {
		m.appends.WithLabelValues(a.Queue, a.Stream).Add(float64(ok))
	}
	if a.Failed > 0 {
		m.appendErrors.WithLabelValues(a.Queue, a.Stream, Kind(a.Err)).Add(float64(a.Failed))
	}
	m.appendDuration.WithLabelValues(a.Queue, a.Stream).Observe(a.Duration.Seconds())
}

// OnRead counts a range read.
func (m *Metrics) OnRead(_ context.Context, r echomq.ReadInfo) {
	m.reads.WithLabelValues(r.Queue, r.Stream).Inc()
	m.readEvents.WithLabelValues(r.Queue, r.Stream).Add(float64(r.Events))
}

// OnDeliver counts a delivery, its failure and its handler's time.
func (m *Metrics) OnDeliver(_ context.Context, d echomq.DeliverInfo) {
	m.delivered.WithLabelValues(d.Queue, d.Stream, d.Group).Inc()
	if d.Err != nil {
		m.failed.WithLabelValues(d.Queue, d.Stream, d.Group).Inc()
	}
	m.handleDuration.WithLabelValues(d.Queue, d.Stream, d.Group).Observe(d.Duration.Seconds())
}

// OnAck counts acknowledged entries (trimmed ones apart).
func (m *Metrics) OnAck(_ context.Context, a echomq.AckInfo) {
	if a.Err != nil {
		return
	}
	if a.Trimmed {
		m.trimmedAcks.WithLabelValues(a.Queue, a.Stream, a.Group).Add(float64(a.Entries))
		return
	}
	m.acked.WithLabelValues(a.Queue, a.Stream, a.Group).Add(float64(a.Entries))
}

// OnDeadLetter counts an entry moved to the dead letters.
func (m *Metrics) OnDeadLetter(_ context.Context, d echomq.DeadLetterInfo) {
	if d.Err == nil {
		m.dead.WithLabelValues(d.Queue, d.Stream, d.Group).Inc()
	}
}

// OnTrim counts the entries a trim removed.
func (m *Metrics) OnTrim(_ context.Context, t echomq.TrimInfo) {
	if t.Removed > 0 {
		m.trims.WithLabelValues(t.Queue, t.Stream, t.By).Add(float64(t.Removed))
	}
}

// OnJob counts a lanes job transition and its latencies.
func (m *Metrics) OnJob(_ context.Context, j lanes.JobTransition) {
	m.jobs.WithLabelValues(j.Queue, j.Event).Inc()
	switch j.Event {
	case lanes.JobClaimed:
		m.claimWait.WithLabelValues(j.Queue).Observe(j.Wait.Seconds())
	case lanes.JobCompleted, lanes.JobRetried, lanes.JobDead:
		m.runDuration.WithLabelValues(j.Queue).Observe(j.Run.Seconds())
	}
}

// OnArchiveCycle counts an archive cycle and records its outcome.
func (m *Metrics) OnArchiveCycle(_ context.Context, a archive.CycleInfo) {
	outcome, ok := "ok", 1.0
	if a.Err != nil {
		outcome, ok = Kind(a.Err), 0
	}
	m.cycles.WithLabelValues(a.Queue, a.Stream, outcome).Inc()
	m.folded.WithLabelValues(a.Queue, a.Stream).Add(float64(a.Folded))
	m.lastCycle.WithLabelValues(a.Queue, a.Stream).Set(float64(a.Start.Add(a.Duration).UnixNano()) / float64(time.Second))
	m.lastCycleOK.WithLabelValues(a.Queue, a.Stream).Set(ok)
	m.cycleDuration.WithLabelValues(a.Queue, a.Stream).Observe(a.Duration.Seconds())
}

// OnCheckpoint counts a projection snapshot.
func (m *Metrics) OnCheckpoint(_ context.Context, c projection.CheckpointInfo) {
	outcome := "ok"
	if c.Err != nil {
		outcome = Kind(c.Err)
	}
	m.checkpoints.WithLabelValues(c.Projection, outcome).Inc()
}
