package signalling

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Exchange posts the offer as application/sdp and returns the answer; a
// refusal carries the server's status and reason; an answer is read to at
// most MaxAnswer bytes.
func TestExchange(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/sdp":
			http.Error(w, "bad request", http.StatusBadRequest)
		case string(b) == "full":
			http.Error(w, "rtc: too many peers", http.StatusServiceUnavailable)
		case string(b) == "huge":
			io.WriteString(w, strings.Repeat("a", 2*MaxAnswer))
		default:
			io.WriteString(w, "answer to "+string(b))
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	if a, err := Exchange(ctx, srv.Client(), srv.URL, "v=0"); err != nil || a != "answer to v=0" {
		t.Errorf("answer %q, %v", a, err)
	}
	if _, err := Exchange(ctx, srv.Client(), srv.URL, "full"); err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "too many peers") {
		t.Errorf("refusal: %v", err)
	}
	if a, err := Exchange(ctx, srv.Client(), srv.URL, "huge"); err != nil || len(a) != MaxAnswer {
		t.Errorf("huge answer: %d bytes, %v", len(a), err)
	}
}
