package echomq

// deadLetter moves an entry to the dead-letter stream and acknowledges it,
// in one atomic step that first checks this consumer still owns it (so a
// peer that reclaimed it meanwhile keeps it, and an entry is dead-lettered
// once). The dead letter's id comes from the client's minter; when another
// writer got above it, the minter moves past the dead stream's top and
// mints again. A failure leaves the entry pending: its next delivery is
// over the limit and moves it then.
func (r *run) deadLetter(j *job, cause string) {
	c := r.c
	d := &j.d
	origin := d.Key()
	id, moved, err := moveToDead(r.io, c.c, c.s.key, c.dead.key, c.cfg.Group, c.cfg.Name, *d, cause)
	if err != nil || moved {
		r.deadLettered(*d, id, cause, err)
	}
	switch {
	case err != nil:
		c.log.Error("dead-lettering failed; entry stays pending", "entry", d.Entry, "id", origin, "err", err)
	case moved:
		c.stats.dead.Add(1)
		c.log.Warn("entry moved to the dead letters", "entry", d.Entry, "id", origin, "attempts", d.Attempts, "error", cause, "dead", id)
	default:
		c.log.Info("entry left this consumer before it could be dead-lettered", "entry", d.Entry, "id", origin)
	}
}
