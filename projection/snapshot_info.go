package projection

import "context"

// SnapshotInfo is the header of a stored live-projection snapshot: what a
// dashboard or an operator needs to see how far a projection has folded,
// without knowing its state type or codec.
type SnapshotInfo struct {
	// Name and Version are the projection's, as the [Live] that saved it
	// was configured.
	Name    string
	Version int
	// Applied counts the events folded into the saved state.
	Applied int64
	// Checkpoint is the last entry folded per stream, in source order.
	Checkpoint Checkpoint
	// StateBytes is the size of the encoded state that follows the header.
	StateBytes int
}

// Info loads the stored snapshot and returns its header, and false when
// none is stored. It reads the whole value (one GET) but decodes only the
// header line. Errors as [SnapshotStore.Load], and a [*SnapshotError]
// (matching [ErrSnapshot]) when the value is not in the snapshot format.
func (s *SnapshotStore) Info(ctx context.Context) (SnapshotInfo, bool, error) {
	b, ok, err := s.Load(ctx)
	if err != nil || !ok {
		return SnapshotInfo{}, false, err
	}
	info, err := ParseSnapshotInfo(s.key, b)
	return info, err == nil, err
}

// ParseSnapshotInfo decodes the header of snapshot bytes b (as a [Store]
// holds them; key names the value in the error). It returns a
// [*SnapshotError] when b is not in the snapshot format.
func ParseSnapshotInfo(key string, b []byte) (SnapshotInfo, error) {
	h, cp, state, err := decodeSnapshot(key, b)
	if err != nil {
		return SnapshotInfo{}, err
	}
	return SnapshotInfo{Name: h.Name, Version: h.Version, Applied: h.Applied, Checkpoint: cp, StateBytes: len(state)}, nil
}
