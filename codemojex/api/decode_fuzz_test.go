package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The body decoder refuses anything but one JSON object of known fields,
// and never panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"codes":["0000","0100","0200","0300","0400","0500"]}`, `{"emojis":["🐶"]}`, `{}`, ``, `[]`, `{"codes":1}`, `{"codes":[]} {}`, `{"x":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/games/x/guess", bytes.NewReader(body))
		var req GuessRequest
		if err := decode(httptest.NewRecorder(), r, &req); err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
	})
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for body, ok := range map[string]bool{
		`{"codes":["0000"]}`:   true,
		`{"codes":["0000"]} x`: false,
		`{"codes":"0000"}`:     false,
		`{"code":["0000"]}`:    false,
		``:                     false,
		`nope`:                 false,
		`{"codes":[` + string(bytes.Repeat([]byte(`"0000",`), maxBody/7)) + `"0000"]}`: false,
	} {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(body)))
		var req GuessRequest
		err := decode(httptest.NewRecorder(), r, &req)
		if (err == nil) != ok {
			t.Errorf("%.40q: err %v", body, err)
		}
	}
}
