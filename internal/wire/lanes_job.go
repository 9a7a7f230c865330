package wire

import (
	"context"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"
)

// LaneAdmit is the input of one enqueue.
type LaneAdmit struct {
	ID          string
	Lane        string
	Payload     []byte
	Delay       time.Duration
	MaxAttempts int
}

// LaneAdmitted is the verdict of one enqueue: Admitted with its arrival
// number Seq, or refused because a row in State already holds the id.
type LaneAdmitted struct {
	Admitted bool
	Seq      int64
	State    string
}

// LaneEnqueueMax is the most jobs one enqueue script call admits.
const LaneEnqueueMax = 256

// LaneEnqueue admits jobs in order (at most [LaneEnqueueMax]) in one script
// call and returns a verdict per job.
func (w *Conn) LaneEnqueue(ctx context.Context, k *LaneKeys, hist int, as []LaneAdmit) ([]LaneAdmitted, error) {
	args := make([]string, 0, 2+5*len(as))
	args = append(args, strconv.Itoa(hist), strconv.Itoa(len(as)))
	for i := range as {
		a := &as[i]
		args = append(args, a.ID, a.Lane, string(a.Payload),
			strconv.FormatInt(a.Delay.Milliseconds(), 10), strconv.Itoa(a.MaxAttempts))
	}
	msg, err := w.runLane(ctx, laneEnqueueLua, k, args)
	if err != nil {
		return nil, err
	}
	return decodeLaneEnqueue(msg, len(as))
}

// decodeLaneEnqueue decodes the enqueue script's reply for n jobs: a
// verdict pair per job.
func decodeLaneEnqueue(msg valkey.ValkeyMessage, n int) ([]LaneAdmitted, error) {
	arr, err := laneArray(msg, "lanes enqueue", 2*n)
	if err != nil {
		return nil, err
	}
	out := make([]LaneAdmitted, n)
	for i := range out {
		if laneNum(arr[2*i]) == 1 {
			out[i] = LaneAdmitted{Admitted: true, Seq: laneNum(arr[2*i+1])}
		} else {
			out[i] = LaneAdmitted{State: laneStr(arr[2*i+1])}
		}
	}
	return out, nil
}

// LaneJob is one claimed job.
type LaneJob struct {
	ID      string
	Lane    string
	Payload []byte
	Attempt int64
	Token   int64
	Max     int64
	Seq     int64
	EnqMs   int64
}

// laneJobFields is the width of one job in the claim reply.
const laneJobFields = 8

// LaneClaim leases up to n jobs for lease, rotating the ring at most steps
// times.
func (w *Conn) LaneClaim(ctx context.Context, k *LaneKeys, hist int, lease time.Duration, n, steps int) ([]LaneJob, error) {
	msg, err := w.runLane(ctx, laneClaimLua, k, []string{
		strconv.Itoa(hist),
		strconv.FormatInt(lease.Milliseconds(), 10), strconv.Itoa(n), strconv.Itoa(steps),
	})
	if err != nil {
		return nil, err
	}
	return decodeLaneClaim(msg)
}

// decodeLaneClaim decodes the claim script's reply: laneJobFields values
// per job.
func decodeLaneClaim(msg valkey.ValkeyMessage) ([]LaneJob, error) {
	arr, err := laneArray(msg, "lanes claim", 0)
	if err != nil {
		return nil, err
	}
	jobs := make([]LaneJob, 0, len(arr)/laneJobFields)
	for i := 0; i+laneJobFields <= len(arr); i += laneJobFields {
		// A copy: AsBytes would alias the reply's string.
		payload := []byte(laneStr(arr[i+2]))
		jobs = append(jobs, LaneJob{
			ID:      laneStr(arr[i]),
			Lane:    laneStr(arr[i+1]),
			Payload: payload,
			Attempt: laneNum(arr[i+3]),
			Token:   laneNum(arr[i+4]),
			Max:     laneNum(arr[i+5]),
			Seq:     laneNum(arr[i+6]),
			EnqMs:   laneNum(arr[i+7]),
		})
	}
	return jobs, nil
}

// LaneVerdict is the answer of a script that acts on one job: Code 1 done
// (State is the job's state after), 0 no such job, -1 the job is in State
// and the call does not apply to it (not held by that claim, not dead).
type LaneVerdict struct {
	Code  int64
	State string
}

func (w *Conn) laneVerdict(ctx context.Context, s *lanesScript, k *LaneKeys, args []string) (LaneVerdict, error) {
	msg, err := w.runLane(ctx, s, k, args)
	if err != nil {
		return LaneVerdict{}, err
	}
	return decodeLaneVerdict(msg)
}

// decodeLaneVerdict decodes a one-job script's reply: [code, state].
func decodeLaneVerdict(msg valkey.ValkeyMessage) (LaneVerdict, error) {
	arr, err := laneArray(msg, "lanes verdict", 2)
	if err != nil {
		return LaneVerdict{}, err
	}
	return LaneVerdict{Code: laneNum(arr[0]), State: laneStr(arr[1])}, nil
}

// LaneComplete settles held jobs (ids with their claim tokens) as done in
// one script call and returns a verdict per job; a tombstone > 0 keeps each
// row (without payload) for that long.
func (w *Conn) LaneComplete(ctx context.Context, k *LaneKeys, hist int, tombstone time.Duration, ids []string, tokens []int64) ([]LaneVerdict, error) {
	args := make([]string, 0, 2+2*len(ids))
	args = append(args, strconv.Itoa(hist), strconv.FormatInt(tombstone.Milliseconds(), 10))
	for i, id := range ids {
		args = append(args, id, strconv.FormatInt(tokens[i], 10))
	}
	msg, err := w.runLane(ctx, laneCompleteLua, k, args)
	if err != nil {
		return nil, err
	}
	arr, err := laneArray(msg, "lanes complete", 2*len(ids))
	if err != nil {
		return nil, err
	}
	out := make([]LaneVerdict, len(ids))
	for i := range out {
		out[i] = LaneVerdict{Code: laneNum(arr[2*i]), State: laneStr(arr[2*i+1])}
	}
	return out, nil
}

// LaneFail settles a held job as failed: back to the head of its lane with
// the lane held for backoff, or dead when its attempts are spent or kill is
// set.
func (w *Conn) LaneFail(ctx context.Context, k *LaneKeys, hist int, id string, token int64, backoff time.Duration, reason string, kill bool) (LaneVerdict, error) {
	killArg := "0"
	if kill {
		killArg = "1"
	}
	return w.laneVerdict(ctx, laneFailLua, k, []string{
		strconv.Itoa(hist), id,
		strconv.FormatInt(token, 10), strconv.FormatInt(backoff.Milliseconds(), 10), reason, killArg,
	})
}

// LaneRelease gives a held job back to the head of its lane without
// spending its attempt.
func (w *Conn) LaneRelease(ctx context.Context, k *LaneKeys, hist int, id string, token int64) (LaneVerdict, error) {
	return w.laneVerdict(ctx, laneReleaseLua, k, []string{strconv.Itoa(hist), id, strconv.FormatInt(token, 10)})
}

// LaneExtend renews the leases of the held jobs ids (with their claim
// tokens) to lease from now and returns the ids no longer held.
func (w *Conn) LaneExtend(ctx context.Context, k *LaneKeys, lease time.Duration, ids []string, tokens []int64) ([]string, error) {
	args := make([]string, 0, 2+2*len(ids))
	args = append(args, "0", strconv.FormatInt(lease.Milliseconds(), 10))
	for i, id := range ids {
		args = append(args, id, strconv.FormatInt(tokens[i], 10))
	}
	msg, err := w.runLane(ctx, laneExtendLua, k, args)
	if err != nil {
		return nil, err
	}
	arr, err := laneArray(msg, "lanes extend", 0)
	if err != nil {
		return nil, err
	}
	lost := make([]string, len(arr))
	for i := range arr {
		lost[i] = laneStr(arr[i])
	}
	return lost, nil
}
