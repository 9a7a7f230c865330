package archive

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/echomq/echomq"
)

// The layout of one stream's archive in a store, Hive-style so tools that
// read partitioned Parquet datasets see queue and stream as columns:
//
//	queue=<q>/stream=<name>/manifests/<generation, 20 digits>.json
//	queue=<q>/stream=<name>/segments/<first EVT id>-<last EVT id>.parquet
//
// Queue and stream names follow [A-Za-z0-9._-]{1,128}; behind "queue=" and
// "stream=" even a name such as ".." is a plain component.

// streamPrefix returns "queue=<q>/stream=<name>/".
func streamPrefix(q, name string) string { return "queue=" + q + "/stream=" + name + "/" }

func manifestPrefix(q, name string) string { return streamPrefix(q, name) + "manifests/" }

func segmentPrefix(q, name string) string { return streamPrefix(q, name) + "segments/" }

// manifestName returns the object name of generation gen.
func manifestName(q, name string, gen uint64) string {
	return fmt.Sprintf("%s%020d.json", manifestPrefix(q, name), gen)
}

// parseManifestName returns the generation of a manifest object name.
func parseManifestName(prefix, obj string) (uint64, bool) {
	rest, ok := strings.CutPrefix(obj, prefix)
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(rest, ".json")
	if !ok || len(digits) != 20 {
		return 0, false
	}
	gen, err := strconv.ParseUint(digits, 10, 64)
	return gen, err == nil
}

// segmentName names the segment of the ids first..last: the same range
// always gets the same name, so a cycle retried after a crash rewrites its
// segment rather than adding a second copy.
func segmentName(q, name string, first, last echomq.ID) string {
	return segmentPrefix(q, name) + first.String() + "-" + last.String() + ".parquet"
}

// StreamRef names one archived stream.
type StreamRef struct {
	Queue  string
	Stream string
}

// String returns "<queue>/<stream>".
func (r StreamRef) String() string { return r.Queue + "/" + r.Stream }

// parseStreamPrefix returns the stream an object name belongs to.
func parseStreamPrefix(obj string) (StreamRef, bool) {
	q, rest, ok := strings.Cut(obj, "/")
	if !ok {
		return StreamRef{}, false
	}
	s, _, ok := strings.Cut(rest, "/")
	if !ok {
		return StreamRef{}, false
	}
	q, okq := strings.CutPrefix(q, "queue=")
	s, oks := strings.CutPrefix(s, "stream=")
	return StreamRef{Queue: q, Stream: s}, okq && oks
}
