package echomqtest

import (
	"fmt"
	"strconv"
	"strings"
)

// Info returns the fields of one INFO section of the server ("server",
// "memory", "replication", ...; "" for the default set) as key/value pairs.
func (s *Server) Info(section string) (map[string]string, error) {
	args := []string{"INFO"}
	if section != "" {
		args = append(args, section)
	}
	v, err := respString(s.addr, probeTimeout, args...)
	if err != nil {
		return nil, fmt.Errorf("echomqtest: %s: %w", s.addr, err)
	}
	return parseInfo(v), nil
}

// Version is the engine a server runs and its release, as INFO server
// reports them (Valkey also reports the Redis release it is compatible
// with; Version holds Valkey's own).
type Version struct {
	Engine              Engine
	Major, Minor, Patch int
}

// String returns e.g. "valkey 8.0.1".
func (v Version) String() string {
	return fmt.Sprintf("%s %d.%d.%d", v.Engine, v.Major, v.Minor, v.Patch)
}

// AtLeast reports whether the release is major.minor or later (of the same
// engine: compare Engine first when the answer differs between engines).
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// Version asks the server which engine and release it runs. It is for tests
// whose expectations depend on an engine feature (say which one in the
// test); most tests should not need it.
func (s *Server) Version() (Version, error) {
	info, err := s.Info("server")
	if err != nil {
		return Version{}, err
	}
	return parseVersion(info)
}

// parseVersion reads the engine and release from INFO server's fields.
func parseVersion(info map[string]string) (Version, error) {
	v := Version{Engine: EngineRedis}
	release := info["redis_version"]
	if vk := info["valkey_version"]; vk != "" || info["server_name"] == "valkey" {
		v.Engine, release = EngineValkey, vk
	}
	parts := strings.SplitN(release, ".", 3)
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || len(parts) != 3 {
			return Version{}, fmt.Errorf("echomqtest: INFO server: release %q of %s is not MAJOR.MINOR.PATCH", release, v.Engine)
		}
		nums[i] = n
	}
	v.Major, v.Minor, v.Patch = nums[0], nums[1], nums[2]
	return v, nil
}
