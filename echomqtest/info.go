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
// reports them.
type Version struct {
	Engine              Engine
	Major, Minor, Patch int // the engine's own release (Valkey's for Valkey)
	// RedisMajor and RedisMinor are the Redis release whose commands and
	// replies the engine has: Redis's own; for Valkey, the Redis release it
	// reports in redis_version (7.2 for Valkey 7 and 8).
	RedisMajor, RedisMinor int
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

// RedisAtLeast reports whether the engine has what Redis major.minor has:
// the check for a feature both engines share, such as WAITAOF or XINFO
// CONSUMERS' inactive time (Redis 7.2, every Valkey).
func (v Version) RedisAtLeast(major, minor int) bool {
	return v.RedisMajor > major || v.RedisMajor == major && v.RedisMinor >= minor
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
	own, err := parseRelease(release)
	if err != nil {
		return Version{}, fmt.Errorf("echomqtest: INFO server: %s release: %w", v.Engine, err)
	}
	redis, err := parseRelease(info["redis_version"])
	if err != nil {
		return Version{}, fmt.Errorf("echomqtest: INFO server: redis_version: %w", err)
	}
	v.Major, v.Minor, v.Patch = own[0], own[1], own[2]
	v.RedisMajor, v.RedisMinor = redis[0], redis[1]
	return v, nil
}

// parseRelease parses "MAJOR.MINOR.PATCH".
func parseRelease(s string) ([3]int, error) {
	var nums [3]int
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nums, fmt.Errorf("%q is not MAJOR.MINOR.PATCH", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nums, fmt.Errorf("%q is not MAJOR.MINOR.PATCH", s)
		}
		nums[i] = n
	}
	return nums, nil
}
