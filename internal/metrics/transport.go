package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// instrumentedTransport times every request of a chat platform's API client.
type instrumentedTransport struct {
	platform string
	next     http.RoundTripper
	m        *Metrics
}

// InstrumentTransport returns a RoundTripper that sends requests with next (nil:
// http.DefaultTransport) and records their duration by platform, API method and status code.
// The method is the URL's last path segment ("chat.postMessage" for Slack's Web API).
func (m *Metrics) InstrumentTransport(platform string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &instrumentedTransport{platform: platform, next: next, m: m}
}

// RoundTrip implements http.RoundTripper; it returns next's response and error.
func (t *instrumentedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	method := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
	t.m.platformCalls.WithLabelValues(t.platform, method, code).Observe(time.Since(start).Seconds())
	return resp, err
}
