package webkit

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// CSRFField is the form field a write carries the session's CSRF token in.
const CSRFField = "csrf"

// Refusals of [Sessions.CheckWrite].
var (
	// ErrCrossOrigin: the browser marked the request cross-origin.
	ErrCrossOrigin = errors.New("cross-origin request refused")
	// ErrCSRF: the form's CSRF token is missing or is not the session's.
	ErrCSRF = errors.New("the form's CSRF token is missing or wrong: reload the page and try again")
)

// origin is the same-origin check every write passes: it refuses what a
// browser marks cross-site (Sec-Fetch-Site, else Origin against Host) and
// lets through requests no browser made.
var origin = http.NewCrossOriginProtection()

// CheckOrigin refuses, with [ErrCrossOrigin], a request the browser marks
// cross-origin: a sign-in form, which has no session yet, checks this.
func CheckOrigin(r *http.Request) error {
	if origin.Check(r) != nil {
		return ErrCrossOrigin
	}
	return nil
}

// CheckWrite guards a state-changing request of session sess: it must be
// same-origin ([CheckOrigin]) and carry the session's CSRF token in the
// form field [CSRFField] (the synchronizer token: a page of another site
// cannot read it), compared in constant time. The form must already be
// parsed or small: it is read with r.PostFormValue.
func (s *Sessions) CheckWrite(r *http.Request, sess Session) error {
	if err := CheckOrigin(r); err != nil {
		return err
	}
	if !TokenEqual(r.PostFormValue(CSRFField), sess.CSRF) || sess.CSRF == "" {
		return ErrCSRF
	}
	return nil
}

// TokenEqual reports whether got is want, in a time that depends on
// neither: both are hashed first, so not even the length of the secret
// leaks.
func TokenEqual(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// SafeNext returns next when it is a path under prefix (which ends in
// "/"), on this host, else fallback: a sign-in never redirects elsewhere.
func SafeNext(next, prefix, fallback string) string {
	if !strings.HasPrefix(next, prefix) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return fallback
	}
	return next
}
