package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/archive/s3store/s3test"
)

// The same archive commands on a real S3-compatible server (versitygw):
// archive run creates the bucket; the keys come from the environment.
func TestArchiveS3(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	b := setup(t)
	b.env = map[string]string{"EMQ_S3_ACCESS_KEY": srv.AccessKey, "EMQ_S3_SECRET_KEY": srv.SecretKey}
	url := "http://" + srv.Endpoint + "/cli-archive/team-a"
	b.seed("orders", 0, 4)
	b.must("archive", "run", "orders", "--policy", "maxlen 1", "--s3", url)
	require.Contains(t, b.must("--json", "archive", "ls", "--s3", url), `"stream":"orders","generation":1,`)
	out := b.must("--json", "read", "orders", "--merged", "--s3", url)
	require.Contains(t, out, `"count":4,"archived":3`)
	require.Contains(t, b.must("archive", "status", "orders", "--s3", url), "entries     3")
	b.at(10*time.Second).must("append", "orders", "late=1")
	b.must("archive", "run", "orders", "--policy", "maxlen 0", "--s3", url)
	require.Contains(t, b.must("--json", "archive", "read", "orders", "--s3", url), `"count":5,"archived":5`)

	// Wrong keys: a runtime error (exit 1), one line, nothing archived.
	b.env["EMQ_S3_SECRET_KEY"] = "wrong"
	out, errs, code := b.run("archive", "run", "orders", "--policy", "maxlen 0", "--s3", url)
	require.Equal(t, ExitError, code, errs)
	require.Empty(t, out)
	require.Equal(t, 1, strings.Count(errs, "\n"), errs)
}
