package lanes

// HoldHeartbeats stops (or restarts) the renewal of w's leases, so a test
// can let a lease lapse under a running handler.
func HoldHeartbeats(w *Worker, hold bool) { w.beatsOff.Store(hold) }
