package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// maxBody bounds a request body.
const maxBody = 64 << 10

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// decode reads the request body as one JSON object into v, refusing
// unknown fields, trailing data and bodies over maxBody; the error says
// which, for a 400.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.EOF):
			return errors.New("the request body is empty: send a JSON object")
		case errors.As(err, &mbe):
			return fmt.Errorf("the request body is over %d bytes", maxBody)
		case errors.As(err, &se):
			return fmt.Errorf("the request body is not JSON (at byte %d)", se.Offset)
		case errors.As(err, &te):
			return fmt.Errorf("field %q must be a %s", te.Field, te.Type.String())
		}
		return fmt.Errorf("bad request body: %w", err)
	}
	if dec.More() {
		return errors.New("the request body holds more than one JSON value")
	}
	return nil
}

// intParam reads an integer query parameter in lo..hi, def when absent.
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) { //nolint:unparam // any integer parameter; "limit" is the only one today
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("query parameter %s must be an integer %d..%d", name, lo, hi)
	}
	return n, nil
}

// durationParam reads a Go duration query parameter in 0..hi, def when
// absent.
func durationParam(r *http.Request, name string, def, hi time.Duration) (time.Duration, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > hi {
		return 0, fmt.Errorf("query parameter %s must be a duration 0s..%s (such as 10s)", name, hi)
	}
	return d, nil
}
