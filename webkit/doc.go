// Package webkit is the shared web layer of EchoMQ's own web modules, the
// dashboard (github.com/echomq/echomq/dashboard) and codemojex's pages
// (codemojex/web, codemojex/operator). It is not a user API: it is a module
// of its own only so both can share one design, and it changes with them.
//
// It holds what both would otherwise write twice:
//
//   - Sessions: stateless session cookies (a random nonce and an expiry,
//     signed with an HMAC under a key derived from a secret), the CSRF
//     token bound to a session, and [Sessions.CheckWrite], the one guard of
//     a state-changing request: a same-origin check
//     ([http.CrossOriginProtection]) and the session's CSRF token compared
//     in constant time. [TokenEqual] compares a sign-in secret in constant
//     time whatever the lengths.
//   - Stream: a Server-Sent Events response: its headers, the retry hint,
//     framing of events and comments, keep-alive comments while idle, a
//     write deadline per write, Last-Event-ID for a resuming client, and
//     [Serve], a loop that stops when the client goes, the request's context
//     ends or the server shuts down, leaving no goroutine behind.
//   - A stylesheet base ([BaseCSS], served by [StyleHandler]): colour
//     variables for light and dark, a reset, typography, buttons, inputs and
//     focus styles; each UI links it before its own sheet, which keeps only
//     its specifics.
//
// Package browsertest, beside it, holds the browser-test helpers both test
// suites use (a headless Chromium, screenshots, console errors).
package webkit
