package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// writeError answers in the error shape the endpoint's real servers use: OpenAI's
// {"error":{...}}, Cohere's {"message"} or TEI's {"error","error_type"}.
func writeError(w http.ResponseWriter, req Request, e *HTTPError) {
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	var body any
	switch {
	case req.Endpoint == "rerank" && req.Flavor == "tei":
		body = map[string]any{"error": msg, "error_type": "fake"}
	case req.Endpoint == "rerank":
		body = map[string]any{"message": msg}
	default:
		body = map[string]any{"error": map[string]any{
			"message": msg, "type": "fake_error", "param": nil, "code": e.Status,
		}}
	}
	writeJSON(w, e.Status, body)
}

// writeFuncFailure writes what went wrong with a Func's answer to req: its error, or a 500 when
// it gave got results for want inputs (noun names the results, inputs what they answer). It
// reports whether it wrote a response, after which the handler returns.
func writeFuncFailure(w http.ResponseWriter, req Request, herr *HTTPError, fn string, got, want int, noun, inputs string) bool {
	switch {
	case herr != nil:
		writeError(w, req, herr)
	case got != want:
		writeError(w, req, &HTTPError{Status: http.StatusInternalServerError,
			Message: fmt.Sprintf("fake %s returned %d %s for %d %s", fn, got, noun, want, inputs)})
	default:
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
